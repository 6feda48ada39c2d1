import { Link } from "@remix-run/react";
import { SelectField } from "./fields";

/**
 * An application's documents chosen from the files the applicant uploaded: one select per kind the
 * law asks for (named `doc-<kind>`), each with its label and its error.
 */
export function DocumentChoices({
  legend,
  kinds,
  labels,
  documents,
  values,
  errors,
}: {
  legend: string;
  kinds: readonly string[];
  labels: Record<string, string>;
  documents: { id: string; filename: string }[];
  values: Record<string, string | undefined>;
  errors: Record<string, string | undefined>;
}) {
  const options = [{ value: "", label: "None" }, ...documents.map((d) => ({ value: d.id, label: d.filename }))];
  return (
    <fieldset className="usa-fieldset">
      <legend className="usa-legend">{legend}</legend>
      <p className="usa-hint">
        Choose from the files you uploaded (<Link className="usa-link" to="/account/documents">upload them first</Link>).
      </p>
      {kinds.map((kind) => (
        <SelectField key={kind} name={`doc-${kind}`} id={`doc-${kind}`} label={labels[`doc-${kind}`]} options={options} defaultValue={values[`doc-${kind}`]} error={errors[`doc-${kind}`]} />
      ))}
    </fieldset>
  );
}
