import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AuthenticityTokenInput } from "remix-utils/csrf/react";
import { requireSignedIn } from "~/auth.server";
import { Notice } from "~/components/fields";
import { formatCalendarDate, isCalendarDate, todayIn } from "~/components/format";
import { ErrorSummary, SuccessAlert, TextField } from "~/components/forms";
import { ENTRY_FIELDS, LimitsTable, SourceTag, byTopic, slugify, type RuleEntry, type Rulebook, type RulebookVersion } from "~/components/rulebook";
import { requireStaff } from "~/components/staff.server";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";
import { centsToDollars, dollarsToCents } from "~/components/money";

/** A column of a board table the ADMIN enters (the API names them: the Uni-Bell tables, SUL 505 F and G). */
type TableColumn = { field: "parameter" | "minimum" | "average"; label: string };
type Entry = RuleEntry & { tableColumns: TableColumn[] | null };
type District = { id: string; slug: string; name: string; timeZone: string; rulebook: Omit<Rulebook, "entries"> & { entries: Entry[] }; rulebookVersions: RulebookVersion[] };
type Values = Record<string, string>;
type ActionData = { error: string; fields: Record<string, string>; values: Values };

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `Rulebook of ${(data as { district?: District } | undefined)?.district?.name ?? "the district"} | Staff | Tapline` },
];

const Q = `query RulebookForEdit($slug: String!) {
  district(slug: $slug) {
    id slug name timeZone
    rulebook { version label effectiveDate entries { ${ENTRY_FIELDS} tableColumns { field label } } }
    rulebookVersions { version label effectiveDate source reason }
  }
}`;

/** ADMIN of this district only. */
async function loadForAdmin(args: Pick<LoaderFunctionArgs, "request" | "context" | "params">): Promise<District> {
  const staff = await requireStaff(args, ["ADMIN"]);
  const { district } = await requireSignedIn<{ district: District }>(args, Q, { slug: args.params.slug });
  if (!staff.districts.some((d) => d.id === district.id && d.roles.includes("ADMIN")))
    throw new Response(`Only an Administrator of ${district.name} may change its rulebook.`, { status: 403 });
  return district;
}

export async function loader(args: LoaderFunctionArgs) {
  const district = await loadForAdmin(args);
  return { district, today: todayIn(district.timeZone) };
}

/**
 * Only the Town Board's figures change here; the law's change only with the law (a new shipped
 * version). Tables: the Board's tables the API gives columns for (the Uni-Bell tables the law cites
 * without stating, SUL 505 F and G); the limits tables are the law's, read-only.
 */
const editable = (e: RuleEntry) => e.kind !== "table" && e.source === "BOARD";
const editableTable = (e: Entry) => e.kind === "table" && e.source === "BOARD" && !!e.tableColumns?.length;
/** Blank rows a table's form offers for new rows (more after saving). */
const BLANK_ROWS = 3;
const MAX_TABLE_ROWS = 40;
const cell = (k: string, i: number, field: string) => `${k}.${i}.${field}`;
const fmt = (n: number | string | null | undefined) => (n === null || n === undefined ? "" : String(n));
/** A table's rows in one comparable form: each row's figures in column order, rows ordered by the first. */
const tableKey = (rows: number[][]) => JSON.stringify([...rows].sort((a, b) => a[0] - b[0]));

/**
 * Reads a table's form: rows ticked "Remove" or left empty are dropped; every figure of a kept row is
 * a number greater than 0, a diameter once. Raw values are kept in `values` so nothing typed is lost.
 */
function readTable(e: Entry, form: FormData, values: Values, fields: Record<string, string>): number[][] | null {
  const cols = e.tableColumns!;
  const count = Math.min(Math.max(Number.parseInt(String(form.get(`${e.key}.rows`) ?? "0"), 10) || 0, 0), MAX_TABLE_ROWS + BLANK_ROWS);
  const existing = Math.min(Math.max(Number.parseInt(String(form.get(`${e.key}.existing`) ?? "0"), 10) || 0, 0), count);
  values[`${e.key}.rows`] = String(count);
  values[`${e.key}.existing`] = String(existing);
  const rows: number[][] = [];
  const firstRowOf = new Map<number, number>();
  let ok = true;
  for (let i = 0; i < count; i++) {
    const raw = cols.map((c) => String(form.get(cell(e.key, i, c.field)) ?? ""));
    cols.forEach((c, j) => (values[cell(e.key, i, c.field)] = raw[j]));
    const remove = form.get(cell(e.key, i, "remove")) === "on";
    values[cell(e.key, i, "remove")] = remove ? "on" : "";
    if (remove || raw.every((r) => r.trim() === "")) continue;
    const row = cols.map((c, j) => {
      const n = parseNumber(raw[j], false);
      if (n === null || n === undefined || n <= 0) {
        fields[cell(e.key, i, c.field)] =
          raw[j].trim() === "" ? `Enter the ${c.label.toLowerCase()}, or tick Remove to drop the row.` : `Enter a number greater than 0, like ${c.field === "average" ? "0.76" : c.field === "minimum" ? "227" : "8"}.`;
        ok = false;
        return NaN;
      }
      return n;
    });
    const seen = firstRowOf.get(row[0]);
    if (!Number.isNaN(row[0]) && seen !== undefined) {
      fields[cell(e.key, i, cols[0].field)] = `This is already in row ${seen + 1}: give each once.`;
      ok = false;
    } else if (!Number.isNaN(row[0])) firstRowOf.set(row[0], i);
    rows.push(row);
  }
  if (ok && rows.length > MAX_TABLE_ROWS) {
    fields[e.key] = `A table has at most ${MAX_TABLE_ROWS} rows.`;
    ok = false;
  }
  return ok ? rows : null;
}

/** The table in force, in the form's terms. */
const currentTable = (e: Entry): number[][] => (e.rows ?? []).map((r) => e.tableColumns!.map((c) => Number(r[c.field])));
const isMoney = (e: RuleEntry) => e.kind === "money" || e.kind === "money_rate";

/** The value in force, as the form shows it. */
function formValue(e: RuleEntry): string {
  if (isMoney(e)) return e.amountCents === null || e.amountCents === undefined ? "" : centsToDollars(e.amountCents);
  if (e.kind === "boolean") return e.applies ? "on" : "";
  if (e.kind === "text") return e.applies ? e.display : "";
  return e.number === null || e.number === undefined ? "" : String(e.number);
}

/** The value in force, as the API stores it. */
function currentValue(e: RuleEntry): unknown {
  if (isMoney(e)) return e.amountCents ?? null;
  if (e.kind === "boolean") return e.applies;
  if (e.kind === "text") return e.applies ? e.display : null;
  return e.number ?? null;
}

function parseNumber(input: string, integer: boolean): number | null | undefined {
  const s = input.trim().replace(/,/g, "");
  if (s === "") return null;
  if (!(integer ? /^-?\d+$/ : /^-?(\d+\.?\d*|\.\d+)$/).test(s)) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/** Reads one entry's field; undefined value means the input is not acceptable (the message says why). */
function readEntry(e: RuleEntry, raw: string): { value?: unknown; problem?: string } {
  switch (e.kind) {
    case "money":
    case "money_rate": {
      const v = dollarsToCents(raw);
      return v === undefined
        ? { problem: "Enter an amount in dollars and cents, like 150.00, or leave it empty if the Town Board has not set it." }
        : { value: v };
    }
    case "integer":
    case "days": {
      const v = parseNumber(raw, true);
      return v === undefined ? { problem: "Enter a whole number, like 30, or leave it empty if the Town Board has not set it." } : { value: v };
    }
    case "number":
    case "percent": {
      const v = parseNumber(raw, false);
      return v === undefined ? { problem: "Enter a number, like 2.5, or leave it empty if the Town Board has not set it." } : { value: v };
    }
    case "boolean":
      return { value: raw === "on" };
    default: {
      const t = raw.trim();
      return { value: t === "" ? null : t };
    }
  }
}

export async function action(args: ActionFunctionArgs) {
  const { request, context } = args;
  await requireCsrf(context, request);
  const district = await loadForAdmin(args);
  const form = await request.formData();
  const entries = district.rulebook.entries.filter(editable);
  const tables = district.rulebook.entries.filter(editableTable);
  const values: Values = {
    effectiveDate: String(form.get("effectiveDate") ?? "").trim(),
    reason: String(form.get("reason") ?? ""),
    resolutionNumber: String(form.get("resolutionNumber") ?? "").trim(),
    resolutionAdoptedOn: String(form.get("resolutionAdoptedOn") ?? "").trim(),
  };
  const fields: Record<string, string> = {};
  const changes: { key: string; value: unknown }[] = [];
  for (const e of entries) {
    const raw = e.kind === "boolean" ? (form.get(e.key) === "on" ? "on" : "") : String(form.get(e.key) ?? "");
    values[e.key] = raw;
    const { value, problem } = readEntry(e, raw);
    if (problem) fields[e.key] = problem;
    else if (JSON.stringify(value) !== JSON.stringify(currentValue(e))) changes.push({ key: e.key, value });
  }
  for (const e of tables) {
    const rows = readTable(e, form, values, fields);
    if (rows && tableKey(rows) !== tableKey(currentTable(e)))
      changes.push({ key: e.key, value: rows.map((r) => Object.fromEntries(e.tableColumns!.map((c, j) => [c.field, c.field === "parameter" ? String(r[j]) : r[j]]))) });
  }
  if (!isCalendarDate(values.effectiveDate)) fields.effectiveDate = "Enter the date the change comes into force, like 2026-12-01.";
  if (!values.reason.trim()) fields.reason = "Say why the rule changes (the audit log keeps it).";
  if (changes.length && !values.resolutionNumber) fields.resolutionNumber = "Give the number of the Town Board resolution that sets these figures, like 2026-14.";
  if (changes.length && !isCalendarDate(values.resolutionAdoptedOn)) fields.resolutionAdoptedOn = "Enter the day the Town Board adopted the resolution, like 2026-11-03.";
  else if (changes.length && isCalendarDate(values.effectiveDate) && values.effectiveDate < values.resolutionAdoptedOn)
    fields.effectiveDate = "The change cannot come into force before the resolution was adopted.";
  if (Object.keys(fields).length)
    return Response.json({ error: "Please correct the highlighted fields.", fields, values } satisfies ActionData, { status: 400 });

  const r = await gql<{ changeRulebook: { version: number; effectiveDate: string } }>(
    context,
    request,
    `mutation ChangeRulebook($input: ChangeRulebookInput!) { changeRulebook(input: $input) { version effectiveDate } }`,
    {
      input: {
        districtId: district.id,
        changes,
        effectiveDate: values.effectiveDate,
        reason: values.reason,
        resolutionNumber: values.resolutionNumber || null,
        resolutionAdoptedOn: values.resolutionAdoptedOn || null,
      },
    }
  );
  if (!r.ok) {
    if (r.error.code === "UNAUTHENTICATED")
      throw redirect(`/sign-in?redirectTo=${encodeURIComponent(new URL(request.url).pathname)}`, { headers: cookieHeaders(r) });
    // A setting the API refuses is shown on its own field: its key is the rulebook entry's.
    const refused: Record<string, string> = {};
    for (const [k, msg] of Object.entries(r.error.fields ?? {})) {
      const row = /^changes\.(\d+)(?:\.|$)/.exec(k);
      const key = row ? changes[Number(row[1])]?.key : undefined;
      refused[key ?? k] = refused[key ?? k] ?? msg;
    }
    return Response.json({ error: r.error.message, fields: refused, values } satisfies ActionData, { status: 400, headers: cookieHeaders(r) });
  }
  const v = r.data.changeRulebook;
  return redirect(`/staff/rulebook/${district.slug}?done=${v.version}&from=${v.effectiveDate}`, { headers: cookieHeaders(r) });
}

/** The form's own labels; each setting's is its rulebook label (the API reports a setting by its key). */
export const LABELS: Record<string, string> = {
  districtId: "District",
  changes: "Settings",
  "changes.*.key": "Settings",
  "changes.*.value": "Settings",
  resolutionNumber: "Town Board resolution number",
  resolutionAdoptedOn: "Resolution adopted on",
  effectiveDate: "Comes into force on",
  reason: "Reason for the change",
};

export default function RulebookEditor() {
  const { district: d, today } = useLoaderData<typeof loader>() as { district: District; today: string };
  const a = useActionData<ActionData>();
  const [params] = useSearchParams();
  const done = a ? null : params.get("done");
  const from = params.get("from");
  const rb = d.rulebook;
  const topics = byTopic(rb.entries);
  const scheduled = d.rulebookVersions.filter((v) => v.effectiveDate > today);
  // In the form's order: the settings, topic by topic, then the resolution, the date and the reason.
  const { districtId, changes, ...after } = LABELS;
  const labels: Record<string, string> = {
    districtId,
    changes,
    ...Object.fromEntries(
      (topics.flatMap((t) => t.entries) as Entry[]).flatMap((e) => [
        [e.key, e.label],
        ...(editableTable(e) ? e.tableColumns!.map((c) => [`${e.key}.*.${c.field}`, `${e.label}, row {n}: ${c.label}`]) : []),
      ]),
    ),
    ...after,
  };
  const value = (e: RuleEntry) => (a?.values ? a.values[e.key] ?? "" : formValue(e));

  return (
    <>
      <h1>Rulebook of {d.name}</h1>
      {done && (
        <SuccessAlert>
          Saved as rulebook version {done}
          {from ? `, in force from ${formatCalendarDate(from)}` : ""}. The audit log records the change and its reason.
        </SuccessAlert>
      )}
      <p>
        Showing version {rb.version}, “{rb.label}”, in force today ({formatCalendarDate(today)}) since {formatCalendarDate(rb.effectiveDate)}. Saving
        makes a new version from the date you choose; the version in force before that date stays as it is.{" "}
        <Link className="usa-link" to={`/rules/${d.slug}`}>
          See the public rules page of {d.name}
        </Link>
        .
      </p>
      {scheduled.length > 0 && (
        <Notice type="warning">
          Already scheduled:{" "}
          {scheduled.map((v, i) => (
            <span key={v.version}>
              {i > 0 && "; "}version {v.version} from {formatCalendarDate(v.effectiveDate)}
            </span>
          ))}
          . A change is made on top of the version in force on its date, and carried into those later versions wherever they still have the figure
          it replaces.
        </Notice>
      )}
      <ErrorSummary message={a?.error} fields={a?.fields} labels={labels} />

      <Form method="post" className="tapline-rulebook-form" noValidate key={`${rb.version}-${done ?? ""}`}>
        <AuthenticityTokenInput />
        <p>
          Only the Town Board's figures can be changed here, within the bounds the law sets, citing the resolution that sets them. Figures the law
          itself sets are shown read-only: they change only when the law is amended. Money is in dollars and cents (for example 150.00). Leave a field
          empty where the Board has not set the figure. In a table the Board enters, fill a blank row to add one and tick Remove to drop one; save to
          get more blank rows. Only the settings you change are saved.
        </p>
        <nav aria-label="Topics">
          <ul className="usa-list tapline-topic-list">
            {topics.map((t) => (
              <li key={t.topic}>
                <a className="usa-link" href={`#topic-${slugify(t.topic)}`}>
                  {t.topic}
                </a>
              </li>
            ))}
            <li>
              <a className="usa-link" href="#save-heading">
                Resolution, date and reason, then save
              </a>
            </li>
          </ul>
        </nav>
        {/* Where the error summary's link for the settings as a whole leads: a group named by its visible label. */}
        {a?.fields?.changes && (
          <div id="changes" tabIndex={-1} role="group" aria-labelledby="changes-label" className="usa-form-group usa-form-group--error">
            <p className="usa-label usa-label--error" id="changes-label">
              {LABELS.changes}
            </p>
            <span className="usa-error-message" role="alert">
              {a.fields.changes}
            </span>
          </div>
        )}
        {topics.map((t) => (
          <section key={t.topic} aria-labelledby={`topic-${slugify(t.topic)}`} className="tapline-topic">
            <h2 id={`topic-${slugify(t.topic)}`}>{t.topic}</h2>
            {(t.entries as Entry[]).map((e) =>
              editableTable(e) ? (
                <TableEntryField key={e.key} entry={e} values={a?.values} fields={a?.fields} />
              ) : e.kind === "table" ? (
                <div key={e.key} className="margin-y-3">
                  {e.note && <p className="tapline-rule__note">{e.note}</p>}
                  <p className="tapline-rule__note">
                    <SourceTag entry={e} /> {e.sourceText}: it changes only when the law is amended.
                  </p>
                  {(e.rows?.length ?? 0) > 0 ? (
                    <LimitsTable entry={e} />
                  ) : (
                    <p>
                      <strong>{e.label}</strong> ({e.section}): none set.
                    </p>
                  )}
                </div>
              ) : editable(e) ? (
                <EntryField key={e.key} entry={e} value={value(e)} error={a?.fields?.[e.key]} />
              ) : (
                <StatuteLine key={e.key} entry={e} error={a?.fields?.[e.key]} />
              )
            )}
          </section>
        ))}

        <section aria-labelledby="save-heading" className="tapline-save">
          <h2 id="save-heading">Resolution, date and reason</h2>
          <TextField
            name="resolutionNumber"
            label="Town Board resolution number"
            hint="The resolution that sets the figures you change, for example 2026-14. The public rules page cites it."
            defaultValue={a?.values.resolutionNumber}
            error={a?.fields?.resolutionNumber}
            required
          />
          <TextField
            name="resolutionAdoptedOn"
            label="Resolution adopted on"
            type="date"
            hint="The day the Town Board adopted it. The change cannot come into force before that day."
            defaultValue={a?.values.resolutionAdoptedOn}
            error={a?.fields?.resolutionAdoptedOn}
            required
          />
          <TextField
            name="effectiveDate"
            label="Comes into force on"
            type="date"
            hint="The change applies from this date, in the district's time zone. Today by default."
            defaultValue={a?.values.effectiveDate ?? today}
            error={a?.fields?.effectiveDate}
            required
          />
          <div className={`usa-form-group${a?.fields?.reason ? " usa-form-group--error" : ""}`}>
            <label className={`usa-label${a?.fields?.reason ? " usa-label--error" : ""}`} htmlFor="reason">
              Reason for the change<span className="usa-hint"> (required)</span>
            </label>
            <div className="usa-hint" id="reason-hint">
              For example: Town Board resolution 2026-14 of November 3, 2026. The audit log keeps it.
            </div>
            {a?.fields?.reason && (
              <span className="usa-error-message" id="reason-error" role="alert">
                {a.fields.reason}
              </span>
            )}
            <textarea
              className={`usa-textarea${a?.fields?.reason ? " usa-input--error" : ""}`}
              id="reason"
              name="reason"
              rows={3}
              required
              defaultValue={a?.values.reason}
              aria-invalid={a?.fields?.reason ? true : undefined}
              aria-describedby={a?.fields?.reason ? "reason-hint reason-error" : "reason-hint"}
            />
          </div>
          <button className="usa-button" type="submit">
            Save as a new version
          </button>
        </section>
      </Form>
    </>
  );
}

/** A figure the law sets: shown, not editable, with why. */
function StatuteLine({ entry: e, error }: { entry: RuleEntry; error?: string }) {
  return (
    <div className={`usa-form-group tapline-readonly${error ? " usa-form-group--error" : ""}`} id={e.key} tabIndex={-1}>
      <p className="margin-y-0">
        <strong>{e.label}:</strong> {e.display}
      </p>
      {error && (
        <span className="usa-error-message" role="alert">
          {error}
        </span>
      )}
      <p className="tapline-rule__note">
        <SourceTag entry={e} /> {e.sourceText}: it changes only when the law is amended, so it cannot be changed here.
      </p>
    </div>
  );
}

function EntryField({ entry: e, value, error }: { entry: RuleEntry; value: string; error?: string }) {
  const id = e.key;
  const inForce = `In force: ${e.display}${e.resolution ? `, resolution ${e.resolution.number} of ${formatCalendarDate(e.resolution.adoptedOn)}` : ""}.`;
  const bound = e.boundsText ? `${e.boundsText[0].toUpperCase()}${e.boundsText.slice(1)}.` : "";
  const unitHint = isMoney(e)
    ? e.kind === "money_rate" && e.unit
      ? `Dollars ${e.unit.replace(/^cents\s+/, "")}.`
      : ""
    : e.kind === "days"
    ? `Unit: ${e.unit ?? "calendar days"}.`
    : e.kind === "percent"
    ? "Unit: percent."
    : e.unit
    ? `Unit: ${e.unit}.`
    : "";
  const hint = [e.section + ".", unitHint, bound, inForce].filter(Boolean).join(" ");
  const describedBy = [`${id}-hint`, error ? `${id}-error` : null].filter(Boolean).join(" ");
  const errorMsg = error && (
    <span className="usa-error-message" id={`${id}-error`} role="alert">
      {error}
    </span>
  );

  if (e.kind === "boolean")
    return (
      <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
        {errorMsg}
        <div className="usa-checkbox">
          <input
            className="usa-checkbox__input"
            id={id}
            type="checkbox"
            name={e.key}
            defaultChecked={value === "on"}
            aria-describedby={describedBy}
            aria-invalid={error ? true : undefined}
          />
          <label className="usa-checkbox__label" htmlFor={id}>
            {e.label}
            <span className="usa-checkbox__label-description" id={`${id}-hint`}>
              {hint}
            </span>
          </label>
        </div>
      </div>
    );

  const inputClass = `usa-input${error ? " usa-input--error" : ""}${e.kind === "text" ? "" : " usa-input--md"}`;
  const input = (
    <input
      className={inputClass}
      id={id}
      name={e.key}
      type="text"
      inputMode={isMoney(e) || e.kind === "number" || e.kind === "percent" ? "decimal" : e.kind === "text" ? undefined : "numeric"}
      defaultValue={value}
      aria-describedby={describedBy}
      aria-invalid={error ? true : undefined}
      spellCheck={e.kind === "text" ? undefined : false}
      autoComplete="off"
    />
  );
  return (
    <div className={`usa-form-group${error ? " usa-form-group--error" : ""}`}>
      <label className={`usa-label${error ? " usa-label--error" : ""}`} htmlFor={id}>
        {e.label}
      </label>
      <div className="usa-hint" id={`${id}-hint`}>
        {hint}
      </div>
      {errorMsg}
      {isMoney(e) ? (
        <div className={`usa-input-group usa-input--md${error ? " usa-input--error" : ""}`}>
          <div className="usa-input-prefix" aria-hidden="true">
            $
          </div>
          {input}
        </div>
      ) : (
        input
      )}
    </div>
  );
}

/**
 * A table the Board enters (the Uni-Bell tables, SUL 505 F and G), as a form without JavaScript:
 * the rows in force, each with Remove, and blank rows to add; after a refused save, the rows as sent.
 */
function TableEntryField({ entry: e, values, fields }: { entry: Entry; values?: Values; fields?: Record<string, string> }) {
  const cols = e.tableColumns!;
  const current = (e.rows ?? []).map((r) => cols.map((c) => fmt(r[c.field])));
  const count = values ? Number(values[`${e.key}.rows`] ?? 0) : Math.min(current.length, MAX_TABLE_ROWS) + BLANK_ROWS;
  const existing = values ? Number(values[`${e.key}.existing`] ?? 0) : current.length;
  const value = (i: number, j: number) => (values ? (values[cell(e.key, i, cols[j].field)] ?? "") : (current[i]?.[j] ?? ""));
  const inForce = `In force: ${current.length ? `${current.length} row${current.length === 1 ? "" : "s"}` : "none set"}${
    e.resolution ? `, resolution ${e.resolution.number} of ${formatCalendarDate(e.resolution.adoptedOn)}` : ""
  }.`;
  const own = fields?.[e.key];
  return (
    <fieldset className={`usa-fieldset usa-form-group margin-y-3${own ? " usa-form-group--error" : ""}`} id={e.key} tabIndex={-1} aria-describedby={`${e.key}-hint`}>
      <legend className="usa-legend usa-legend--large">{e.label}</legend>
      <div className="usa-hint" id={`${e.key}-hint`}>
        {e.section}. {inForce} {e.note}
      </div>
      {own && (
        <span className="usa-error-message" role="alert">
          {own}
        </span>
      )}
      <input type="hidden" name={`${e.key}.rows`} value={count} />
      <input type="hidden" name={`${e.key}.existing`} value={existing} />
      <div className="usa-table-container--scrollable" tabIndex={0} role="region" aria-label={`${e.label}: rows`}>
        <table className="usa-table usa-table--compact">
          <caption className="usa-sr-only">{e.label}</caption>
          <thead>
            <tr>
              <th scope="col">Row</th>
              {cols.map((c, j) => (
                <th scope="col" key={c.field} id={`${e.key}-col-${j}`}>
                  {c.label}
                </th>
              ))}
              <th scope="col">Remove</th>
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: count }, (_, i) => (
              <tr key={i}>
                <th scope="row" id={`${e.key}-row-${i}`}>
                  {i < existing ? `Row ${i + 1}` : `New row ${i + 1}`}
                </th>
                {cols.map((c, j) => {
                  const id = cell(e.key, i, c.field);
                  const err = fields?.[id];
                  return (
                    <td key={c.field} className={err ? "usa-form-group--error" : undefined}>
                      {err && (
                        <span className="usa-error-message" id={`${id}-error`} role="alert">
                          {err}
                        </span>
                      )}
                      <input
                        className={`usa-input usa-input--sm${err ? " usa-input--error" : ""}`}
                        id={id}
                        name={id}
                        type="text"
                        inputMode="decimal"
                        defaultValue={value(i, j)}
                        aria-labelledby={`${e.key}-col-${j} ${e.key}-row-${i}`}
                        aria-describedby={err ? `${id}-error` : undefined}
                        aria-invalid={err ? true : undefined}
                        spellCheck={false}
                        autoComplete="off"
                      />
                    </td>
                  );
                })}
                <td>
                  {i < existing ? (
                    <div className="usa-checkbox">
                      <input
                        className="usa-checkbox__input"
                        id={cell(e.key, i, "remove")}
                        name={cell(e.key, i, "remove")}
                        type="checkbox"
                        defaultChecked={values?.[cell(e.key, i, "remove")] === "on"}
                      />
                      <label className="usa-checkbox__label" htmlFor={cell(e.key, i, "remove")}>
                        Remove<span className="usa-sr-only"> row {i + 1}</span>
                      </label>
                    </div>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </fieldset>
  );
}
