import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS } from "../../api/db/demo.js";
import { DEMO_CONTRACTOR } from "../../api/db/demo-scene-contractors.js";
import { loadDemoScenes } from "../../api/db/demo-scenes.js";
import { Client, DEMO, startTestServer, type TestServer } from "../harness.js";
import { pdfText } from "./pdf-text.js";

/**
 * One way to show time and status (issue 19, item 8): every page a demo role can reach by its links,
 * every email the outbox holds and the permit PDF's text, after a typical run (the demo scenes, a
 * lateral permit applied for, paid and issued), show no ISO date or timestamp, no "UTC", no "1 days",
 * and no status as its ALL-CAPS code.
 *
 * No browser: plain HTTP against the built portal (as portal-post-fuzz), links followed breadth
 * first from each role's start pages, a few pages of each shape of address, so it stays cheap.
 */

let srv: TestServer;
let permitId: string;
let codes: Set<string>;
beforeAll(async () => {
  srv = await startTestServer({ portal: true });
  await loadDemoScenes(srv.running.ds, srv.url, srv.config);
  permitId = await typicalRun();
  codes = await statusCodes();
}, 120_000);
afterAll(() => srv?.close());

const PDF = Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");

/** The demo homeowner applies for a residential lateral permit in Lakeview with the demo contractor, pays in the test checkout, and the Operator issues it. */
async function typicalRun(): Promise<string> {
  const a = new Client(srv.url);
  await a.signIn(DEMO.applicant);
  const { lakeview } = await a.ok(`{ lakeview: district(slug: "lakeview") { id } }`);
  const { approvedContractors } = await a.ok(`{ approvedContractors(districtSlug: "lakeview") { id name } }`);
  const contractor = approvedContractors.find((c: { name: string }) => c.name === DEMO_CONTRACTOR.organization);
  const { uploadDocument } = await a.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, { i: { filename: "site-plan.pdf", contentBase64: PDF } });
  const { saveLateralPermitDraft: d } = await a.ok(`mutation($i: LateralPermitDraftInput!) { saveLateralPermitDraft(input: $i) { id } }`, {
    i: {
      districtId: lakeview.id,
      permitClass: "RESIDENTIAL_COMMERCIAL_INSTITUTIONAL",
      buildingUse: "RESIDENTIAL",
      workKind: "NEW_BUILDING",
      streetNumber: "12",
      street: "Orchard Lane",
      city: "Lakeview",
      zip: "13600",
      taxParcel: "101.2-3-4",
      ownerName: "Alex Applicant",
      contractorId: contractor.id,
      asBuiltSheets: 2,
      documentIds: [uploadDocument.id],
    },
  });
  const { submitLateralPermit: s } = await a.ok(`mutation($id: ID!) { submitLateralPermit(id: $id) { paymentId } }`, { id: d.id });
  const { startCheckout } = await a.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: s.paymentId });
  await a.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { id } }`, { s: startCheckout.url.split("/").pop() });
  const operator = new Client(srv.url);
  await operator.signIn(DEMO.lakeviewOperator);
  await operator.ok(`mutation($id: ID!) { approveLateralPermit(id: $id) { id } }`, { id: d.id });
  await operator.ok(`mutation($id: ID!) { requestInspection(permitId: $id, kind: "TRENCH") { id } }`, { id: d.id }).catch(() => null);
  return d.id;
}

// ---------------------------------------------------------------------------------------------
// What a person must not read

/** Status codes the database holds (every text column named status, kind or state): shown as a word, never as the code. */
async function statusCodes(): Promise<Set<string>> {
  const cols: { table_name: string; column_name: string }[] = await srv.running.ds.query(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type IN ('text', 'character varying')
        AND (c.column_name IN ('status', 'state', 'outcome', 'result', 'decision') OR c.column_name LIKE '%\\_status')`,
  );
  const codes = new Set<string>();
  for (const c of cols) {
    const rows: { v: string }[] = await srv.running.ds.query(`SELECT DISTINCT "${c.column_name}" AS v FROM "${c.table_name}" WHERE "${c.column_name}" IS NOT NULL`);
    for (const r of rows) if (/^[A-Z][A-Z_]{2,}$/.test(r.v)) codes.add(r.v);
  }
  // Whatever the demo holds today, the lateral permit's and the payment's codes are always checked.
  for (const c of ["DRAFT", "SUBMITTED", "APPROVED", "ISSUED", "PENDING", "PAID", "CANCELLED", "REFUNDED", "PARTIALLY_REFUNDED", "REQUESTED", "SCHEDULED", "PASSED", "FAILED"]) codes.add(c);
  return codes;
}

/** What is wrong with a text a person reads, one line per finding. */
export function findings(text: string, codes: Set<string>): string[] {
  const out: string[] = [];
  const near = (i: number, len: number) => text.slice(Math.max(0, i - 40), i + len + 40).replace(/\s+/g, " ");
  const each = (re: RegExp, what: string) => {
    for (const m of text.matchAll(re)) out.push(`${what}: …${near(m.index!, m[0].length)}…`);
  };
  each(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/g, "ISO timestamp");
  each(/(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-]|T\d)/g, "ISO date");
  each(/\bUTC\b/g, "UTC");
  each(/(?<![\d.,])1 (days|weeks|months|years|hours|minutes)\b/g, "plural after 1");
  for (const m of text.matchAll(/(?<![\w-])[A-Z][A-Z_]{2,}(?![\w-])/g)) if (codes.has(m[0]) || m[0].includes("_")) out.push(`code ${m[0]}: …${near(m.index!, m[0].length)}…`);
  return out;
}

/**
 * The text of a page a person reads: no head, scripts or styles, tags dropped, entities read. What
 * is marked as code or as keys to type (<code>, <kbd>: a record's id, a token's prefix, an audit
 * action to filter by, a meter export's line format) is an identifier or an input, not words: left out.
 */
function visibleText(html: string): string {
  return html
    .replace(/<head[\s\S]*?<\/head>/i, " ")
    .replace(/<(script|style|template|code|kbd)\b[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;|&#160;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(+n))
    .replace(/\s+/g, " ");
}

// ---------------------------------------------------------------------------------------------
// The crawl

/** Pages of one shape (the path with its ids as :id, the query's names): one per role, a few across roles; a role's pages at most MAX_PAGES. */
const PER_SHAPE = 1;
const ACROSS_ROLES = 3;
const MAX_PAGES = 60;
const shapesSeen = new Map<string, number>();
const shape = (u: URL) =>
  u.pathname.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, ":id") + "?" + [...new Set(u.searchParams.keys())].sort().join("&");
/** Not pages: files, calendars, exports, and the link that ends the session. */
const skip = (u: URL) => /^\/(sign-out|documents\/|webhooks\/|graphql)/.test(u.pathname) || /\.(ics|csv|pdf|data)$/.test(u.pathname) || u.pathname.startsWith("/assets/");

async function crawl(cookie: string, starts: string[]): Promise<{ pages: number; found: string[] }> {
  const seen = new Set<string>();
  const perShape = new Map<string, number>();
  const queue = [...starts];
  const found: string[] = [];
  let pages = 0;
  const take = (href: string) => {
    const u = new URL(href, srv.url);
    u.hash = "";
    if (u.origin !== new URL(srv.url).origin || skip(u) || seen.has(u.pathname + u.search)) return;
    const s = shape(u);
    if ((perShape.get(s) ?? 0) >= PER_SHAPE || (shapesSeen.get(s) ?? 0) >= ACROSS_ROLES) return;
    perShape.set(s, (perShape.get(s) ?? 0) + 1);
    shapesSeen.set(s, (shapesSeen.get(s) ?? 0) + 1);
    seen.add(u.pathname + u.search);
    queue.push(u.pathname + u.search);
  };
  for (const s of starts) seen.add(s);
  while (queue.length && pages < MAX_PAGES) {
    const batch = queue.splice(0, 4);
    await Promise.all(
      batch.map(async (path) => {
        const res = await fetch(`${srv.url}${path}`, { redirect: "manual", headers: cookie ? { cookie } : {} });
        if (res.status >= 300 && res.status < 400) {
          const to = res.headers.get("location");
          if (to) take(to);
          await res.arrayBuffer();
          return;
        }
        if (!(res.headers.get("content-type") ?? "").includes("text/html")) return void (await res.arrayBuffer());
        const html = await res.text();
        pages++;
        for (const f of findings(visibleText(html), codes)) found.push(`${path}: ${f}`);
        for (const m of html.matchAll(/<a\b[^>]*\bhref="([^"]+)"/g)) take(m[1].replace(/&amp;/g, "&"));
      }),
    );
  }
  return { pages, found };
}

describe("what the checks find", () => {
  it("flags ISO dates and timestamps, UTC, '1 days' and codes, not receipt numbers, policy numbers or words", () => {
    const codes = new Set(["SUBMITTED", "PAID"]);
    const f = (t: string) => findings(t, codes).map((x) => x.split(":")[0]);
    expect(f("Received: 2026-12-01T13:54:35.867Z")).toEqual(["ISO timestamp"]);
    expect(f("Expires 2027-11-30.")).toEqual(["ISO date"]);
    expect(f("Paid Dec 1, 2026, 1:49 PM UTC")).toEqual(["UTC"]);
    expect(f("1 days left")).toEqual(["plural after 1"]);
    expect(f("Status SUBMITTED")).toEqual(["code SUBMITTED"]);
    expect(f("PARTIALLY_REFUNDED")).toEqual(["code PARTIALLY_REFUNDED"]);
    expect(f("Receipt LKV-2026-000042, permit LKV-IU-2026-0001, policy MM-AUTO_BOD-2026, parcel 101.2-3-4, NYSDEC, 11 days, 21 days, Submitted, Dec 1, 2026, 8:49 AM EST")).toEqual([]);
  });
});

const START = ["/", "/dashboard", "/account", "/account/payments", "/account/documents", "/account/emails", "/account/tokens", "/notices", "/staff", "/permits"];

describe("every page a demo role reaches by its links", () => {
  it("shows times on the district's clock, dates in words, counts in good grammar and statuses as words", { timeout: 240_000 }, async () => {
    const everyone = [{ email: "", label: "signed out" }, ...DEMO_ACCOUNTS.map((a) => ({ email: a.email, label: a.email }))];
    const all: string[] = [];
    let total = 0;
    for (const who of everyone) {
      const c = new Client(srv.url);
      if (who.email) await c.signIn(who.email);
      const { pages, found } = await crawl(c.cookieHeader, who.email ? START : ["/", "/rules", "/notices", "/public-records", "/sign-in"]);
      total += pages;
      expect(pages, `${who.label} reached pages`).toBeGreaterThan(2);
      all.push(...found.map((f) => `${who.label} ${f}`));
    }
    expect(total).toBeGreaterThan(150);
    expect([...new Set(all)]).toEqual([]);
  });
});

describe("the emails the outbox holds and the permit's PDF, after the run", () => {
  it("read the same way", async () => {
    const mails: { kind: string; subject: string; body_text: string }[] = await srv.running.ds.query(`SELECT kind, subject, body_text FROM outbox_email ORDER BY created_at`);
    expect(mails.length).toBeGreaterThan(5);
    expect(mails.map((m) => m.kind)).toEqual(expect.arrayContaining(["lateral.submitted", "payment.receipt"]));
    const found = mails.flatMap((m) => findings(`${m.subject}\n${m.body_text}`, codes).map((f) => `${m.kind}: ${f}`));
    expect([...new Set(found)]).toEqual([]);

    const a = new Client(srv.url);
    await a.signIn(DEMO.applicant);
    const { lateralPermit } = await a.ok(`query($id: ID!) { lateralPermit(id: $id) { pdfUrl } }`, { id: permitId });
    const res = await fetch(new URL(lateralPermit.pdfUrl, srv.url), { headers: { cookie: a.cookieHeader } });
    expect(res.status).toBe(200);
    const text = pdfText(Buffer.from(await res.arrayBuffer()));
    expect(text).toContain("Issued");
    expect(findings(text, codes)).toEqual([]);
  });
});
