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

/** What the developer applied for, as both the developer's and the staff's pages show it (SUL 501, 502 A). */
export type ExtensionSummaryFields = {
  organizationName: string;
  statusLabel: string;
  decisionReason: string | null;
  location: string;
  mapReference: string;
  lots: number;
  designFlowGpd: number;
  documents: { documentId: string; kindLabel: string; filename: string }[];
};

export function ExtensionSummary({ e, children }: { e: ExtensionSummaryFields; children?: React.ReactNode }) {
  return (
    <>
      <dl>
        <dt>Developer</dt>
        <dd>{e.organizationName}</dd>
        <dt>Status</dt>
        <dd>{e.statusLabel}</dd>
        {e.decisionReason && (
          <>
            <dt>Why</dt>
            <dd>{e.decisionReason}</dd>
          </>
        )}
        <dt>Where</dt>
        <dd>
          {e.location} ({e.mapReference})
        </dd>
        <dt>Lots and design flow</dt>
        <dd>
          {e.lots} lots, {e.designFlowGpd.toLocaleString("en-US")} gallons per day
        </dd>
        {children}
      </dl>
      <h2>Documents</h2>
      <ul className="usa-list">
        {e.documents.map((d) => (
          <li key={d.documentId}>
            {d.kindLabel}:{" "}
            <a className="usa-link" href={`/documents/${d.documentId}`}>
              {d.filename}
            </a>
          </li>
        ))}
      </ul>
    </>
  );
}

/** The as-built drawings filed for the sewer (SUL 507), each a link; `none` is said when none are filed. */
export function AsBuiltDrawings({ documents, none }: { documents: { documentId: string; kind: string; filename: string }[]; none?: string }) {
  const drawings = documents.filter((d) => d.kind === "AS_BUILT");
  if (!drawings.length) return none ? <p>{none}</p> : null;
  return (
    <ul className="usa-list">
      {drawings.map((d) => (
        <li key={d.documentId}>
          <a className="usa-link" href={`/documents/${d.documentId}`}>
            {d.filename}
          </a>
        </li>
      ))}
    </ul>
  );
}
