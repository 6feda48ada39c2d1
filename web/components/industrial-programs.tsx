import { Link } from "@remix-run/react";
import { slugify } from "~/components/rulebook";

/**
 * Which districts' laws have a wastewater discharge permit program (`industrial.permitsEnabled`:
 * Lakeview's, SUL 1003; Huron's has none, III-2), read from each district's rulebook in force today.
 * Where a law has none, the page says so and what that law asks of an industrial establishment
 * instead, never the other district's rule.
 */
export type DischargeProgram = { id: string; slug: string; name: string; enabled: boolean; section: string; note: string | null };

export const PROGRAM_QUERY = `districts { id slug name rulebook { entries { key value section note } } }`;

type DistrictRows = { id: string; slug: string; name: string; rulebook: { entries: { key: string; value: unknown; section: string; note: string | null }[] } }[];

export function dischargePrograms(districts: DistrictRows): DischargeProgram[] {
  return districts.map((d) => {
    const e = d.rulebook.entries.find((x) => x.key === "industrial.permitsEnabled");
    return { id: d.id, slug: d.slug, name: d.name, enabled: e?.value === true, section: e?.section ?? "", note: e?.note ?? null };
  });
}

/** One line a district: a permit program with its section, or none, with what its law asks instead. */
export function DischargePrograms({ programs }: { programs: DischargeProgram[] }) {
  return (
    <section aria-labelledby="programs-heading">
      <h2 id="programs-heading">Which districts issue discharge permits</h2>
      <ul className="usa-list">
        {programs.map((p) =>
          p.enabled ? (
            <li key={p.id}>
              <strong>{p.name}</strong>: issues wastewater discharge permits, and permit holders file compliance reports ({p.section}). {p.note}
            </li>
          ) : (
            <li key={p.id}>
              <strong>{p.name}</strong>: no discharge permit and no compliance reports. {p.note ?? "Its law has no discharge permit program."} ({p.section}){" "}
              <Link className="usa-link" to="/permits/new">
                Apply for the building sewer permit<span className="usa-sr-only"> in {p.name}</span>
              </Link>{" "}
              and keep within{" "}
              <Link className="usa-link" to={`/rules/${p.slug}#topic-${slugify("Discharge limits")}`}>
                the limits its law sets on what may be discharged<span className="usa-sr-only"> in {p.name}</span>
              </Link>
              .
            </li>
          ),
        )}
      </ul>
    </section>
  );
}
