import { useEffect, useRef } from "react";

export type FieldErrors = Record<string, string>;

/**
 * A form's visible labels by the keys the API reports, in the form's order (the error summary lists
 * errors in this order). A key of a list's row is written with `*` for the row ("vehicles.*.make");
 * `{n}` in its label is the row's number.
 */
export type FieldLabels = Record<string, string>;

/** The label map's key that names `key`: the key itself, or the key with its row numbers as `*`. */
export function labelKeyOf(labels: FieldLabels, key: string): string | undefined {
  if (key in labels) return key;
  const pattern = key.replace(/\.\d+(?=\.|$)/g, ".*");
  return pattern in labels ? pattern : undefined;
}

/** The visible label of the field an error's key names, or undefined when the map has none. */
export function labelFor(labels: FieldLabels, key: string): string | undefined {
  const k = labelKeyOf(labels, key);
  if (!k) return undefined;
  const row = /\.(\d+)(?=\.|$)/.exec(key);
  return labels[k].replace("{n}", row ? String(Number(row[1]) + 1) : "");
}

/**
 * USWDS error summary at the top of a form; takes focus so screen readers announce it. Each error
 * names its field by the visible label and links to it, in the form's order (the label map's).
 */
export function ErrorSummary({ message, fields, labels = {} }: { message?: string | null; fields?: FieldErrors; labels?: FieldLabels }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (message) ref.current?.focus();
  }, [message]);
  if (!message) return null;
  const order = Object.keys(labels);
  const rankOf = (labelKey: string | undefined) => {
    const i = labelKey ? order.indexOf(labelKey) : -1;
    return i < 0 ? order.length : i;
  };
  // A list's rows come where the list is in the form, row by row, each row's fields in order.
  const place = (k: string): number[] => {
    const own = rankOf(labelKeyOf(labels, k));
    const row = /^(.*?)\.(\d+)(?=\.|$)/.exec(k);
    if (!row) return [own, -1, own];
    const first = order.findIndex((o) => o === `${row[1]}.*` || o.startsWith(`${row[1]}.*.`) || o === row[1]);
    return [first < 0 ? own : first, Number(row[2]), own];
  };
  const entries = Object.entries(fields ?? {})
    .map(([k, v], i) => ({ k, v, i, at: place(k) }))
    .sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1] || a.at[2] - b.at[2] || a.i - b.i);
  return (
    <div className="usa-alert usa-alert--error" role="alert" tabIndex={-1} ref={ref} id="error-summary">
      <div className="usa-alert__body">
        <h2 className="usa-alert__heading">There is a problem</h2>
        <p className="usa-alert__text">{message}</p>
        {entries.length > 0 && (
          <ul className="usa-list">
            {entries.map(({ k, v }) => {
              const label = labelFor(labels, k);
              return (
                <li key={k}>
                  {/* A field's visible label, never its key: without a label the message stands alone. */}
                  <a className="usa-link" href={`#${k}`}>{label ? `${label}: ${v}` : v}</a>
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </div>
  );
}

export function SuccessAlert({ children }: { children: React.ReactNode }) {
  return (
    <div className="usa-alert usa-alert--success" role="status">
      <div className="usa-alert__body"><p className="usa-alert__text">{children}</p></div>
    </div>
  );
}

type FieldProps = {
  name: string;
  /** The input's id, when the form has several fields of one name (the error summary links to it). */
  id?: string;
  label: string;
  type?: string;
  error?: string;
  hint?: string;
  defaultValue?: string | number | null;
  autoComplete?: string;
  required?: boolean;
  inputMode?: React.HTMLAttributes<HTMLInputElement>["inputMode"];
};

/** A labelled input whose error sits next to it and which keeps what the person typed. */
export function TextField({ name, id = name, label, type = "text", error, hint, defaultValue, autoComplete, required, inputMode }: FieldProps) {
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
      <label className={`usa-label${error ? " usa-label--error" : ""}`} htmlFor={id}>
        {label}
        {required && <span className="usa-hint"> (required)</span>}
      </label>
      {hint && <div className="usa-hint" id={`${id}-hint`}>{hint}</div>}
      {error && <span className="usa-error-message" id={`${id}-error`} role="alert">{error}</span>}
      <input
        className={`usa-input${error ? " usa-input--error" : ""}`}
        id={id}
        name={name}
        type={type}
        defaultValue={type === "password" ? undefined : (defaultValue ?? undefined)}
        autoComplete={autoComplete}
        required={required}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        inputMode={inputMode}
      />
    </div>
  );
}
