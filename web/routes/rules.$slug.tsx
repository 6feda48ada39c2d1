import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { NestedErrorBoundary } from "~/components/fields";
import { formatCalendarDate, todayIn } from "~/components/format";
import { ErrorSummary } from "~/components/forms";
import { ruleFragments } from "~/components/rule-fragments";
import { ruleTopicFragments, type TopicFragment } from "~/components/rule-fragments.server";
import { SOURCE_LABELS, type Rulebook, type RulebookVersion } from "~/components/rulebook";
import { gql, statusOf } from "~/graphql.server";

type District = {
  slug: string;
  name: string;
  lawName: string;
  timeZone: string;
  address: string;
  contacts: { role: string; name: string; email: string; phone: string }[];
  publicNotice: string;
  rulebook: Rulebook;
  rulebookVersions: RulebookVersion[];
};
/** The district without its rulebook's entries: the page gets their HTML, rendered once per rulebook (rule-fragments.server.tsx). */
type PageDistrict = Omit<District, "rulebook"> & { rulebook: Omit<Rulebook, "entries"> };
type Data = { district: PageDistrict; topics: TopicFragment[]; on: string | null; dateError: string | null; typedOn: string };

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${(data as Data | undefined)?.district.name ?? "District"}: rules and fees | Tapline` },
];

/**
 * What the page shows of each entry (the staff editor's ENTRY_FIELDS also has the bounds, the
 * resolution and the raw figures); the entries reach the browser only as their rendered HTML.
 */
const PAGE_ENTRY_FIELDS = `key topic label kind section note display applies source sourceText rows { parameter unit average maximum minimum note } tableColumns { field label }`;

const Q = `query DistrictRules($slug: String!, $on: String) {
  district(slug: $slug) {
    slug name lawName timeZone address contacts { role name email phone } publicNotice
    rulebook(on: $on) { version label effectiveDate entries { ${PAGE_ENTRY_FIELDS} } }
    rulebookVersions { version label effectiveDate source reason }
  }
}`;

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const typedOn = (new URL(request.url).searchParams.get("on") ?? "").trim();
  const on = typedOn || null;
  let r = await gql<{ district: District }>(context, request, Q, { slug: params.slug, on });
  let dateError: string | null = null;
  if (!r.ok && on) {
    // A date with no rulebook in force, or not a date: show today's rules with the problem next to the date field.
    dateError = r.error.fields.on ?? r.error.message;
    r = await gql<{ district: District }>(context, request, Q, { slug: params.slug, on: null });
  }
  if (!r.ok) throw new Response(r.error.message, { status: statusOf(r.error.code) });
  const { rulebook, ...district } = r.data.district;
  const { entries, ...version } = rulebook;
  // A page load renders the lists into its HTML from the server's copy; a client-side navigation
  // (Remix asks for data, not text/html) gets them in its data.
  const pageLoad = (request.headers.get("accept") ?? "").includes("text/html");
  const topics = ruleTopicFragments(district.slug, entries, !pageLoad);
  return { district: { ...district, rulebook: version }, topics, on: dateError ? null : on, dateError, typedOn } satisfies Data;
}

export default function DistrictRules() {
  const { district: d, topics, on, dateError, typedOn } = useLoaderData<typeof loader>() as Data;
  const rb = d.rulebook;
  const today = todayIn(d.timeZone);
  const shownDate = on ?? today;
  // In the browser after a page load, the lists stay as the server rendered them (empty HTML: React keeps them while hydrating).
  const html = (given: string | undefined, key: string) => ({ __html: given ?? ruleFragments.get(key) ?? "" });
  return (
    <>
      <p className="margin-top-0">
        <Link className="usa-link" to="/rules">
          All districts
        </Link>
      </p>
      <h1>{d.name}: rules and fees</h1>
      <p className="usa-intro">
        Governed by the {d.lawName}. Each figure below names its section and who sets it: the law itself, which only an amendment of the law changes,
        or the Town Board, by resolution within the bounds the law sets.
      </p>

      <div className="grid-row grid-gap">
        <section className="tablet:grid-col-6" aria-labelledby="office-heading">
          <h2 id="office-heading">District office</h2>
          <address className="tapline-address">{d.address}</address>
          <ul className="usa-list usa-list--unstyled margin-top-2">
            {d.contacts.map((c) => (
              <li key={c.role} className="margin-bottom-2">
                <strong>{c.role}:</strong> {c.name}
                <br />
                <a className="usa-link" href={`mailto:${c.email}`}>
                  {c.email}
                </a>
                ,{" "}
                <a className="usa-link" href={`tel:${c.phone.replace(/[^\d+]/g, "")}`}>
                  {c.phone}
                </a>
              </li>
            ))}
          </ul>
        </section>
        <section className="tablet:grid-col-6" aria-labelledby="notice-heading">
          <h2 id="notice-heading">Public notice</h2>
          <p>{d.publicNotice}</p>
        </section>
      </div>

      <section aria-labelledby="in-force-heading" className="tapline-in-force">
        <h2 id="in-force-heading">Rules in force on {formatCalendarDate(shownDate)}</h2>
        <p>
          Version {rb.version}, “{rb.label}”, in force since {formatCalendarDate(rb.effectiveDate)}.
          {on && on !== today && (
            <>
              {" "}
              <Link className="usa-link" to=".">
                Show the rules in force today
              </Link>
              .
            </>
          )}
        </p>
        <ErrorSummary
          message={dateError ? "No rules could be shown for that date; the rules in force today are shown instead." : null}
          fields={dateError ? { on: dateError } : undefined}
          labels={{ on: "Date" }}
        />
        <Form method="get" className="usa-form tapline-date-form">
          <div className={`usa-form-group${dateError ? " usa-form-group--error" : ""}`}>
            <label className={`usa-label${dateError ? " usa-label--error" : ""}`} htmlFor="on">
              See the rules in force on another date
            </label>
            <div className="usa-hint" id="on-hint">
              For example, the day you applied or were served a notice.
            </div>
            {dateError && (
              <span className="usa-error-message" id="on-error" role="alert">
                {dateError}
              </span>
            )}
            <div className="tapline-date-form__row">
              <input
                className={`usa-input${dateError ? " usa-input--error" : ""}`}
                type="date"
                id="on"
                name="on"
                defaultValue={dateError ? typedOn : shownDate}
                aria-describedby={dateError ? "on-hint on-error" : "on-hint"}
                aria-invalid={dateError ? true : undefined}
              />
              <button className="usa-button usa-button--outline" type="submit">
                Show these rules
              </button>
            </div>
          </div>
        </Form>
        <nav aria-label="Topics" className="margin-top-3">
          <ul className="usa-list tapline-topic-list">
            {topics.map((t) => (
              <li key={t.topic}>
                <a className="usa-link" href={`#${t.id}`}>
                  {t.topic}
                </a>
              </li>
            ))}
            <li>
              <a className="usa-link" href="#history-heading">
                Version history
              </a>
            </li>
          </ul>
        </nav>
      </section>

      {topics.map((t) => (
        <section key={t.topic} aria-labelledby={t.id} className="tapline-topic">
          <h2 id={t.id}>{t.topic}</h2>
          {t.topic === "Contractors" && (
            <p>
              <Link className="usa-link" to={`/contractors/${d.slug}`}>
                The list of approved contractors
              </Link>{" "}
              ·{" "}
              <Link className="usa-link" to={`/contractors/apply?district=${d.slug}`}>
                Apply to be an approved contractor
              </Link>
            </p>
          )}
          {t.topic === "Sewer extensions" && t.applies > 0 && (
            <p>
              <Link className="usa-link" to={`/extensions/public/${d.slug}`}>
                The public record of sewer extensions: capacity committed, charges set and sewers accepted
              </Link>{" "}
              (Sewer Use Law 1301-1303)
            </p>
          )}
          {t.applies === 0 && <p>This district's law sets none of these.</p>}
          <ul className="usa-list usa-list--unstyled tapline-rules" dangerouslySetInnerHTML={html(t.appliesHtml, t.appliesKey)} suppressHydrationWarning />
          {t.notProvided > 0 && (
            <details className="tapline-details">
              <summary>
                Not provided by this district's law ({t.notProvided})<span className="usa-sr-only">: {t.topic}</span>
              </summary>
              <ul className="usa-list usa-list--unstyled tapline-rules" dangerouslySetInnerHTML={html(t.notProvidedHtml, t.notProvidedKey)} suppressHydrationWarning />
            </details>
          )}
        </section>
      ))}

      <section aria-labelledby="history-heading">
        <h2 id="history-heading">Version history</h2>
        <p>
          Every change to these figures makes a new version, in force from its date. Earlier versions still apply to what happened while they were in
          force.
        </p>
        <table className="usa-table usa-table--stacked usa-table--borderless width-full">
          <caption>Versions of the rules of {d.name}, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">In force from</th>
              <th scope="col">Title</th>
              <th scope="col">Source</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {d.rulebookVersions.map((v) => (
              <tr key={v.version}>
                <th scope="row" data-label="Version">
                  {v.version}
                  {v.version === rb.version && <span className="usa-tag margin-left-1">Shown</span>}
                </th>
                <td data-label="In force from">
                  <Link className="usa-link" to={`?on=${v.effectiveDate}`}>
                    {formatCalendarDate(v.effectiveDate)}
                    <span className="usa-sr-only">: show the rules in force on this date</span>
                  </Link>
                </td>
                <td data-label="Title">{v.label}</td>
                <td data-label="Source">{SOURCE_LABELS[v.source] ?? v.source}</td>
                <td data-label="Reason">{v.reason ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;
