import { CalendarDate } from "~/components/format";

/** A sewer extension's test sections with every attempt and what the law asked of it (Sewer Use Law 505, 506 B). */

export type Attempt = {
  attempt: number;
  kindLabel: string;
  outcome: string;
  outcomeLabel: string;
  reason: string | null;
  testedOn: string;
  notes: string | null;
  criteria: { text: string; section: string; met: boolean }[];
};
export type Section = { id: string; name: string; passed: boolean; attempts: Attempt[] };
export const SECTION_FIELDS = `sections { id name passed attempts { attempt kindLabel outcome outcomeLabel reason testedOn notes criteria { text section met } } }`;

export function TestResults({ sections }: { sections: Section[] }) {
  if (!sections.length) return <p>No section has been tested yet.</p>;
  return (
    <>
      {sections.map((s) => (
        <section key={s.id} aria-labelledby={`section-${s.id}`}>
          <h3 id={`section-${s.id}`}>
            {s.name}: {s.passed ? "passed" : "not passed yet"}
          </h3>
          {s.attempts.length === 0 ? (
            <p>No test entered yet.</p>
          ) : (
            <ol className="usa-list">
              {s.attempts.map((a) => (
                <li key={`${a.kindLabel}-${a.attempt}`}>
                  <strong>
                    {a.kindLabel}, attempt {a.attempt}: {a.outcomeLabel}
                  </strong>{" "}
                  (<CalendarDate date={a.testedOn} />)
                  {a.reason && <p>{a.reason}</p>}
                  <ul className="usa-list">
                    {a.criteria.map((c, i) => (
                      <li key={i}>
                        {c.met ? "Met" : "Not met"}: {c.text} ({c.section})
                      </li>
                    ))}
                  </ul>
                  {a.notes && <p>Notes: {a.notes}</p>}
                </li>
              ))}
            </ol>
          )}
        </section>
      ))}
    </>
  );
}
