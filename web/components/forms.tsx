import { useEffect, useRef } from "react";

export type FieldErrors = Record<string, string>;

/** USWDS error summary at the top of a form; takes focus so screen readers announce it. */
export function ErrorSummary({ message, fields, labels = {} }: { message?: string | null; fields?: FieldErrors; labels?: Record<string, string> }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (message) ref.current?.focus();
  }, [message]);
  if (!message) return null;
  const entries = Object.entries(fields ?? {});
  return (
    <div className="usa-alert usa-alert--error" role="alert" tabIndex={-1} ref={ref} id="error-summary">
      <div className="usa-alert__body">
        <h2 className="usa-alert__heading">There is a problem</h2>
        <p className="usa-alert__text">{message}</p>
        {entries.length > 0 && (
          <ul className="usa-list">
            {entries.map(([k, v]) => (
              <li key={k}>
                {/* A field's visible label, never its key: without a label the message stands alone. */}
                <a className="usa-link" href={`#${k}`}>{labels[k] ? `${labels[k]}: ${v}` : v}</a>
              </li>
            ))}
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
export function TextField({ name, label, type = "text", error, hint, defaultValue, autoComplete, required, inputMode }: FieldProps) {
  const describedBy = [hint ? `${name}-hint` : null, error ? `${name}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
      <label className={`usa-label${error ? " usa-label--error" : ""}`} htmlFor={name}>
        {label}
        {required && <span className="usa-hint"> (required)</span>}
      </label>
      {hint && <div className="usa-hint" id={`${name}-hint`}>{hint}</div>}
      {error && <span className="usa-error-message" id={`${name}-error`} role="alert">{error}</span>}
      <input
        className={`usa-input${error ? " usa-input--error" : ""}`}
        id={name}
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
