import { Link, isRouteErrorResponse, useRouteError } from "@remix-run/react";

/** A labelled select whose error sits next to it and which keeps what the person chose. */
export function SelectField({
  name,
  label,
  options,
  error,
  hint,
  defaultValue,
  required,
  id = name,
}: {
  name: string;
  label: string;
  options: { value: string; label: string }[];
  error?: string;
  hint?: string;
  defaultValue?: string | null;
  required?: boolean;
  id?: string;
}) {
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
      <label className={`usa-label${error ? " usa-label--error" : ""}`} htmlFor={id}>
        {label}
        {required && <span className="usa-hint"> (required)</span>}
      </label>
      {hint && (
        <div className="usa-hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <span className="usa-error-message" id={`${id}-error`} role="alert">
          {error}
        </span>
      )}
      <select
        className={`usa-select${error ? " usa-input--error" : ""}`}
        id={id}
        name={name}
        defaultValue={defaultValue ?? undefined}
        required={required}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * Radio buttons in a fieldset. The first radio carries id={name} so the error summary's
 * "#name" link lands on the group.
 */
export function RadioGroup({
  name,
  legend,
  options,
  error,
  hint,
  defaultValue,
  required,
  id: first = name,
}: {
  name: string;
  /** The first radio's id, where the error summary links (the name unless the page has several groups of one name). */
  id?: string;
  legend: string;
  options: { value: string; label: string; description?: string }[];
  error?: string;
  hint?: string;
  defaultValue?: string | null;
  required?: boolean;
}) {
  const describedBy = [hint ? `${first}-hint` : null, error ? `${first}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
      <fieldset className="usa-fieldset" aria-describedby={describedBy}>
        <legend className={`usa-legend${error ? " usa-label--error" : ""}`}>
          {legend}
          {required && <span className="usa-hint"> (required)</span>}
        </legend>
        {hint && (
          <div className="usa-hint" id={`${first}-hint`}>
            {hint}
          </div>
        )}
        {error && (
          <span className="usa-error-message" id={`${first}-error`} role="alert">
            {error}
          </span>
        )}
        {options.map((o, i) => {
          const id = i === 0 ? first : `${first}-${o.value}`;
          return (
            <div className="usa-radio" key={o.value}>
              <input
                className="usa-radio__input usa-radio__input--tile"
                id={id}
                type="radio"
                name={name}
                value={o.value}
                defaultChecked={defaultValue === o.value}
                aria-invalid={error ? true : undefined}
              />
              <label className="usa-radio__label" htmlFor={id}>
                {o.label}
                {o.description && <span className="usa-radio__label-description">{o.description}</span>}
              </label>
            </div>
          );
        })}
      </fieldset>
    </div>
  );
}

/** A slim USWDS alert for a message that is not an error (info) or a caution (warning). */
export function Notice({ type = "info", children }: { type?: "info" | "warning"; children: React.ReactNode }) {
  return (
    <div className={`usa-alert usa-alert--${type} usa-alert--slim`}>
      <div className="usa-alert__body">
        <p className="usa-alert__text">{children}</p>
      </div>
    </div>
  );
}

/**
 * Error page for nested routes: keeps the site header and navigation (the root boundary replaces
 * the whole page). A thrown Response's text is the API's message.
 */
export function NestedErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const title = status === 404 ? "Page not found" : status === 403 ? "Not allowed" : "Something went wrong";
  const text = isRouteErrorResponse(error)
    ? typeof error.data === "string" && error.data
      ? error.data
      : error.statusText
    : "An unexpected error happened. Please try again.";
  return (
    <>
      <h1>{title}</h1>
      <p>{text}</p>
      <p>
        <Link className="usa-link" to="/">
          Go to the home page
        </Link>
      </p>
    </>
  );
}

/** A labelled text area whose error sits next to it, marked invalid, and which keeps what the person typed. */
export function TextAreaField({
  name,
  label,
  error,
  hint,
  defaultValue,
  required,
  id = name,
}: {
  name: string;
  label: string;
  error?: string;
  hint?: string;
  defaultValue?: string | null;
  required?: boolean;
  id?: string;
}) {
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
      <label className={`usa-label${error ? " usa-label--error" : ""}`} htmlFor={id}>
        {label}
        {required && <span className="usa-hint"> (required)</span>}
      </label>
      {hint && (
        <div className="usa-hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <span className="usa-error-message" id={`${id}-error`} role="alert">
          {error}
        </span>
      )}
      <textarea
        className={`usa-textarea${error ? " usa-input--error" : ""}`}
        id={id}
        name={name}
        defaultValue={defaultValue ?? undefined}
        required={required}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
      />
    </div>
  );
}
