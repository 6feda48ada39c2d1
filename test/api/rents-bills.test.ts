import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { Client, DEMO, countStatements, errorCode, startTestServer, type GqlResponse, type TestServer, signedInAs } from "../harness.js";

/**
 * Bill runs (issue 14): preview with its flags, issue (numbered, frozen, emailed), a run stopped
 * halfway and issued again bills nobody twice, adjustments and changed EDUs on the next bill,
 * Huron's minimum per user and the owner's excess, and who may do what, operation by operation.
 */

const TZ = "America/New_York";
let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let clerk: Client;
let operator: Client;
let huronClerk: Client;
let owner: Client;
let stranger: Client;
const db = () => srv.running.ds;
const today = () => dateIn(TZ);
const fields = (r: GqlResponse) => (r.errors?.[0]?.extensions?.fields ?? {}) as Record<string, string>;

const CHANGE = `mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`;
const ADD = `mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`;
const OPEN = `mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id accountNumber } }`;
const METER = `mutation($i: AddServiceMeterInput!) { addServiceMeter(input: $i) { id meters { id } } }`;
const ASSESS = `mutation($i: AssessServiceAccountInput!) { assessServiceAccount(input: $i) { id } }`;
const RUN = `id cycle periodStart periodEnd status statusLabel rulebookVersion mailedOn dueOn earliestMailing billCount flaggedCount issuedCount totalCents tasks { key text }`;
const PREVIEW = `mutation($i: PreviewBillRunInput!) { previewBillRun(input: $i) { ${RUN} } }`;
const ISSUE = `mutation($i: IssueBillRunInput!) { issueBillRun(input: $i) { ${RUN} } }`;
const BILL = `id kind accountId accountNumber billTo periodStart periodEnd servedFrom servedTo final gallons edus totalCents status number mailedOn dueOn dueText flags { code text }
  lines { kind kindLabel description quantity rate amountCents section }`;
const BILLS = `query($r: ID!, $f: Boolean, $n: Int, $a: String) { billRunBills(runId: $r, flaggedOnly: $f, first: $n, after: $a) { nextCursor items { ${BILL} } } }`;
const RUNS = `query($d: ID!) { billRuns(districtId: $d) { runs { id status } cycles { cycle label months section } tasks { key text } } }`;
const GET_RUN = `query($id: ID!) { billRun(id: $id) { ${RUN} } }`;
const GET_BILL = `query($id: ID!) { sewerBill(id: $id) { ${BILL} usage { periodStart gallons totalCents number } } }`;
const MY_BILLS = `{ mySewerBills { id number totalCents } }`;
const ACCOUNT_BILLS = `query($id: ID!) { serviceAccountBills(accountId: $id) { id number } }`;
const ADJUST = `mutation($i: BillAdjustmentInput!) { recordBillAdjustment(input: $i) { id amountCents reason } }`;

let parcel = 0;
/** A property whose accounts (one, or several behind one meter) read `gallons` a period; reads written as an import leaves them. */
async function metered(c: Client, districtId: string, o: { users?: number; openedOn?: string; ownerEmail?: string; homes?: number; reads?: [string, number | null, ("ACTUAL" | "ESTIMATED")?][] }) {
  const n = ++parcel;
  const p = (await c.ok(ADD, { i: { districtId, taxParcel: `55.${n}-3-${n}`, streetNumber: String(n), street: "Bill Street", zip: "13600", ownerName: `Owner ${n}`, ownerSince: "2020-01-01", ownerEmail: o.ownerEmail ?? null } }))
    .addSewerProperty;
  const accounts: { id: string; accountNumber: string }[] = [];
  let meterId = "";
  for (let i = 0; i < (o.users ?? 1); i++) {
    const a = (await c.ok(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: `Occupant ${n}.${i}`, openedOn: o.openedOn ?? "2024-01-01" } })).openServiceAccount;
    meterId = (await c.ok(METER, { i: { accountId: a.id, meterNumber: `B-${n}`, installedOn: "2020-01-01" } })).addServiceMeter.meters[0].id;
    if (o.homes) await c.ok(ASSESS, { i: { accountId: a.id, effectiveOn: o.openedOn ?? "2024-01-01", counts: [{ key: "billing.edu.singleFamilyHome", count: o.homes }] } });
    accounts.push(a);
  }
  for (const [readOn, gallons, kind] of o.reads ?? [])
    await db().query(`INSERT INTO meter_reading (district_id, meter_id, read_on, reading, kind, consumption_gallons, flags) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      districtId,
      meterId,
      readOn,
      1000 + (gallons ?? 0),
      kind ?? "ACTUAL",
      gallons,
      gallons === null ? ["BASELINE"] : [],
    ]);
  return { propertyId: p.id, taxParcel: `55.${n}-3-${n}`, accounts, meterId };
}

/** Four quarters of 2025 at about 9,000 gallons: the account's own history. */
const HISTORY: [string, number][] = [
  ["2025-03-28", 9000],
  ["2025-06-27", 9100],
  ["2025-09-26", 8900],
  ["2025-12-29", 9000],
];

let home: Awaited<ReturnType<typeof metered>>;
let heavy: Awaited<ReturnType<typeof metered>>;
let unread: Awaited<ReturnType<typeof metered>>;
let estimated: Awaited<ReturnType<typeof metered>>;
let newcomer: Awaited<ReturnType<typeof metered>>;
let q1Run: any;

beforeAll(async () => {
  srv = await startTestServer();
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  let admin: Client, huronAdmin: Client;
  [clerk, operator, huronClerk, admin, huronAdmin] = await Promise.all(
    [DEMO.lakeviewClerk, DEMO.lakeviewOperator, DEMO.huronClerk, DEMO.lakeviewAdmin, DEMO.huronAdmin].map((e) => signedInAs(srv.url, e)),
  );
  owner = new Client(srv.url);
  await owner.signUp("bill-owner@example.com", "Olive Owner");
  stranger = new Client(srv.url);
  await stranger.signUp("bill-stranger@example.com", "Sam Stranger");
  // The Boards' resolutions for 2026: Lakeview $120,000 of fixed costs and $6.50 per 1,000 gallons (SUL 1203);
  // Huron a minimum of $45.00 a period and $5.00 per 1,000 gallons (Huron VII).
  const board = (changes: { key: string; value: number }[], districtId: string) => ({
    i: { districtId, effectiveDate: "2026-01-01", reason: "Sewer rent schedule 2026", resolutionNumber: "2025-88", resolutionAdoptedOn: "2025-12-15", changes },
  });
  await admin.ok(CHANGE, board([{ key: "billing.fixedCostsPerYear", value: 12_000_000 }, { key: "billing.volumeChargePer1000Gallons", value: 650 }], lakeview.id));
  await huronAdmin.ok(CHANGE, board([{ key: "billing.minimumCharge", value: 4500 }, { key: "billing.volumeChargePer1000Gallons", value: 500 }], huron.id));

  const q1 = (g: number | null, kind?: "ACTUAL" | "ESTIMATED"): [string, number | null, ("ACTUAL" | "ESTIMATED")?][] => [...HISTORY, ...(g === null ? [] : ([["2026-03-27", g, kind]] as any))];
  home = await metered(clerk, lakeview.id, { homes: 1, ownerEmail: "bill-owner@example.com", reads: q1(12_000) });
  heavy = await metered(clerk, lakeview.id, { homes: 2, reads: q1(40_000) });
  unread = await metered(clerk, lakeview.id, { homes: 1, reads: q1(null) });
  estimated = await metered(clerk, lakeview.id, { homes: 1, reads: q1(9000, "ESTIMATED") });
  newcomer = await metered(clerk, lakeview.id, { homes: 1, openedOn: "2026-02-15", reads: [["2026-03-27", 4500]] });
  // SUL 1205: the District Operator granted the home's owner 80% of the metered water as the basis.
  const [{ id: userId }] = await db().query(`SELECT id FROM app_user WHERE email = 'bill-owner@example.com'`);
  const [{ id: versionId }] = await db().query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY version DESC LIMIT 1`, [lakeview.id]);
  await db().query(
    `INSERT INTO flow_deduction_request (district_id, filed_by_id, property_address, tax_parcel, evidence, status, sewer_percent, decision_reasons, decided_by_id, decided_at, rulebook_version_id)
     VALUES ($1, $2, '1 Bill Street', $3, 'Lawn irrigation on a separate line', 'PERCENTAGE_SET', 80, 'Shown by a sub-meter', $2, '2025-11-01T15:00:00Z', $4)`,
    [lakeview.id, userId, home.taxParcel, versionId],
  );
});
afterAll(() => srv?.close());

const billOf = (items: any[], accountId: string) => items.find((b) => b.accountId === accountId);
async function allBills(runId: string): Promise<any[]> {
  const out: any[] = [];
  let after: string | null = null;
  do {
    const page: any = (await clerk.ok(BILLS, { r: runId, n: 200, a: after })).billRunBills;
    out.push(...page.items);
    after = page.nextCursor;
  } while (after);
  return out;
}

describe("a Lakeview quarter: preview, flags, issue", () => {
  it("previews Q1 2026 for the quarterly cycle with each line's figure, rate and section, and flags what to look at", async () => {
    const r = await clerk.gql(PREVIEW, { i: { districtId: lakeview.id, cycle: "OTHER", periodStart: "2026-02-01" } });
    expect(fields(r).periodStart).toBe("Periods of 3 months start in January, April, July, October (Sewer Use Law 1206).");
    const notOver = await clerk.gql(PREVIEW, { i: { districtId: lakeview.id, cycle: "OTHER", periodStart: `${today().slice(0, 7)}-01`.replace(/-(\d\d)-01$/, (_, m) => `-${String(Math.floor((+m - 1) / 3) * 3 + 1).padStart(2, "0")}-01`) } });
    expect(fields(notOver).periodStart).toMatch(/its bills are run once it is over/);

    q1Run = (await clerk.ok(PREVIEW, { i: { districtId: lakeview.id, cycle: "OTHER", periodStart: "2026-01-01" } })).previewBillRun;
    expect(q1Run).toMatchObject({ status: "PREVIEW", periodEnd: "2026-03-31", mailedOn: null, earliestMailing: "2026-04-01" });
    expect(q1Run.tasks.map((t: any) => t.key)).toEqual(["surcharge", "surcharge"]);
    const bills = await allBills(q1Run.id);

    // The fixed part: $120,000 × 90/365 shared over the district's EDU-days of the quarter.
    const [{ edu_days }] = await db().query(
      `SELECT sum(s.edu_thousandths::bigint * (least('2026-03-31'::date, coalesce(a.closed_on, '2026-03-31')) - greatest('2026-01-01'::date, a.opened_on) + 1))::text AS edu_days
         FROM service_account a CROSS JOIN LATERAL (SELECT x.edu_thousandths FROM service_assessment x WHERE x.account_id = a.id AND x.effective_on <= '2026-03-31' ORDER BY x.effective_on DESC, x.entered_at DESC LIMIT 1) s
        WHERE a.district_id = $1 AND a.opened_on <= '2026-03-31' AND (a.closed_on IS NULL OR a.closed_on >= '2026-01-01')`,
      [lakeview.id],
    );
    const fixed = (edu: number, days: number) => Number((2n * 12_000_000n * 90n * BigInt(edu) * BigInt(days) + 365n * BigInt(edu_days)) / (2n * 365n * BigInt(edu_days)));

    const h = billOf(bills, home.accounts[0].id);
    expect(h).toMatchObject({ status: "PREVIEW", number: null, servedFrom: "2026-01-01", servedTo: "2026-03-31", gallons: 12_000, edus: "1", flags: [] });
    expect(h.lines.map((l: any) => [l.kind, l.amountCents, l.section])).toEqual([
      ["FIXED", fixed(1000, 90), "Sewer Use Law 1203"],
      ["VOLUME", 6240, "Sewer Use Law 1203"],
    ]);
    expect(h.lines[0].rate).toMatch(/per EDU for the period \(90 of 365 days of the fiscal year\)/);
    expect(h.lines[1]).toMatchObject({ quantity: "12,000 gallons metered × 80% reaching the sewer (deduction granted, Sewer Use Law 1205) = 9,600 gallons", rate: "$6.50 per 1,000 gallons" });
    expect(h.totalCents).toBe(fixed(1000, 90) + 6240);

    const hv = billOf(bills, heavy.accounts[0].id);
    expect(hv.flags.map((f: any) => f.code)).toEqual(["FAR_FROM_HISTORY"]);
    expect(hv.lines.map((l: any) => l.amountCents)).toEqual([fixed(2000, 90), 26_000]);
    expect(billOf(bills, unread.accounts[0].id).flags.map((f: any) => f.code)).toEqual(["NO_READ"]);
    expect(billOf(bills, estimated.accounts[0].id).flags.map((f: any) => f.code)).toEqual(["ESTIMATED_READ"]);
    expect(billOf(bills, estimated.accounts[0].id).lines[1].description).toContain("(estimated read)");

    // First bill from the day served: 45 of 90 days.
    const nc = billOf(bills, newcomer.accounts[0].id);
    expect(nc).toMatchObject({ servedFrom: "2026-02-15", servedTo: "2026-03-31" });
    expect(nc.lines[0]).toMatchObject({ amountCents: fixed(1000, 45), quantity: "1 EDU × 45 of 90 days served" });

    const flagged = (await clerk.ok(BILLS, { r: q1Run.id, f: true, n: 200 })).billRunBills.items.map((b: any) => b.accountId);
    expect(flagged).toEqual(expect.arrayContaining([heavy.accounts[0].id, unread.accounts[0].id, estimated.accounts[0].id]));
    expect(flagged).not.toContain(home.accounts[0].id);
    expect(q1Run.billCount).toBe(bills.length);
    expect(q1Run.totalCents).toBe(bills.reduce((s, b) => s + b.totalCents, 0));
  });

  it("previewing again replaces the preview: still one bill per account", async () => {
    const again = (await clerk.ok(PREVIEW, { i: { districtId: lakeview.id, cycle: "OTHER", periodStart: "2026-01-01" } })).previewBillRun;
    expect(again.id).toBe(q1Run.id);
    const [{ n, accounts }] = await db().query(`SELECT count(*)::int AS n, count(DISTINCT account_id)::int AS accounts FROM bill WHERE run_id = $1`, [q1Run.id]);
    expect(n).toBe(accounts);
    expect(n).toBe(q1Run.billCount);
  });

  it("a preview bill is the staff's only: its owner cannot read it yet", async () => {
    const h = billOf(await allBills(q1Run.id), home.accounts[0].id);
    expect(errorCode(await owner.gql(GET_BILL, { id: h.id }))).toBe("NOT_FOUND");
    expect((await operator.ok(GET_BILL, { id: h.id })).sewerBill.status).toBe("PREVIEW");
  });

  it("issue: confirmed, mailed no earlier than today; stopped after two bills and issued again, nobody is billed twice", async () => {
    const day = today();
    expect(fields(await clerk.gql(ISSUE, { i: { runId: q1Run.id, mailedOn: day, confirm: false } })).confirm).toBeTruthy();
    expect(fields(await clerk.gql(ISSUE, { i: { runId: q1Run.id, mailedOn: addCalendarDays(day, -1), confirm: true } })).mailedOn).toMatch(/cannot be before today/);
    const part = (await clerk.ok(ISSUE, { i: { runId: q1Run.id, mailedOn: day, confirm: true, maxBills: 2 } })).issueBillRun;
    expect(part).toMatchObject({ status: "ISSUING", issuedCount: 2, mailedOn: day, dueOn: addCalendarDays(day, 20) });
    // Halfway: no new preview, and the database refuses a second bill for an issued account.
    expect(errorCode(await clerk.gql(PREVIEW, { i: { districtId: lakeview.id, cycle: "OTHER", periodStart: "2026-01-01" } }))).toBe("CONFLICT");
    const [issued] = await db().query(`SELECT * FROM bill WHERE run_id = $1 AND status = 'ISSUED' LIMIT 1`, [q1Run.id]);
    await expect(
      db().query(`INSERT INTO bill (run_id, district_id, cycle, kind, account_id, property_id, bill_to, period_start, period_end, served_from, served_to, total_cents, status, rulebook_version_id)
                  SELECT run_id, district_id, cycle, kind, account_id, property_id, bill_to, period_start, period_end, served_from, served_to, total_cents, 'PREVIEW', rulebook_version_id FROM bill WHERE id = $1`, [issued.id]),
    ).rejects.toThrow(/bill_account_period/);
    // Issued is frozen: the database refuses editing it or its lines.
    await expect(db().query(`UPDATE bill SET total_cents = 1 WHERE id = $1`, [issued.id])).rejects.toThrow(/issued and cannot be changed/);
    await expect(db().query(`DELETE FROM bill_line WHERE bill_id = $1`, [issued.id])).rejects.toThrow(/cannot be changed/);

    // Resumed (a later mailing date asked for is ignored: the run keeps the one it started with).
    const done = (await clerk.ok(ISSUE, { i: { runId: q1Run.id, mailedOn: addCalendarDays(day, 3), confirm: true } })).issueBillRun;
    expect(done).toMatchObject({ status: "ISSUED", issuedCount: q1Run.billCount, mailedOn: day });
    const again = (await clerk.ok(ISSUE, { i: { runId: q1Run.id, mailedOn: day, confirm: true } })).issueBillRun;
    expect(again).toMatchObject({ status: "ISSUED", issuedCount: q1Run.billCount });
    const rows = await db().query(`SELECT account_id, count(*)::int AS n, min(number) AS number, bool_and(status = 'ISSUED') AS issued FROM bill WHERE run_id = $1 GROUP BY account_id`, [q1Run.id]);
    expect(rows.every((r: any) => r.n === 1 && r.issued && /^LKV-202601-\d{7}$/.test(r.number))).toBe(true);
    const mails = await db().query(`SELECT subject, body_text FROM outbox_email WHERE kind = 'rents.bill_issued' AND to_address = 'bill-owner@example.com'`);
    expect(mails).toHaveLength(1);
    // The email says the bill's number, total, due date and words, and links the bill (written with the numbering, in one statement).
    const [mailed] = await db().query(`SELECT id, number, total_cents, due_text, to_char(due_on, 'FMMonth FMDD, YYYY') AS due FROM bill WHERE id = $1`, [/\/properties\/bills\/([0-9a-f-]{36})$/.exec(mails[0].body_text)?.[1]]);
    expect(mails[0].subject).toBe(`Sewer bill ${mailed.number}: $${(mailed.total_cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} due ${mailed.due}`);
    expect(mails[0].body_text).toContain(`Your sewer bill ${mailed.number} for `);
    expect(mails[0].body_text).toContain(`\n${mailed.due_text}\nSee what it is made of: `);
    // Each batch's audit entry names its count and its first and last numbers.
    const batches = await db().query(`SELECT details FROM audit_entry WHERE action = 'rents.bills_issued' AND entity_id = $1 ORDER BY id`, [q1Run.id]);
    expect(batches.map((b: any) => b.details.count)).toEqual([2, q1Run.billCount - 2]);
    for (const { details } of batches) expect(details.first <= details.last && /^LKV-202601-\d{7}$/.test(details.first) && /^LKV-202601-\d{7}$/.test(details.last)).toBe(true);
    expect(batches[0].details.last < batches[1].details.first).toBe(true);
    expect(errorCode(await clerk.gql(PREVIEW, { i: { districtId: lakeview.id, cycle: "OTHER", periodStart: "2026-01-01" } }))).toBe("CONFLICT");
  });

  it("the owner reads the issued bill, its lines, due date and usage; a stranger cannot", async () => {
    const mine = (await owner.ok(MY_BILLS)).mySewerBills;
    expect(mine).toHaveLength(1);
    const b = (await owner.ok(GET_BILL, { id: mine[0].id })).sewerBill;
    expect(b).toMatchObject({ status: "ISSUED", accountId: home.accounts[0].id, billTo: "Occupant " + (parcel - 4) + ".0" });
    expect(b.dueText).toMatch(/^Pay by .*: a bill unpaid 20 days after the billing date is in default and a penalty of 20% is added \(Sewer Use Law 1118\)\.$/);
    expect(b.usage).toEqual([{ periodStart: "2026-01-01", gallons: 12_000, totalCents: b.totalCents, number: b.number }]);
    expect((await owner.ok(ACCOUNT_BILLS, { id: home.accounts[0].id })).serviceAccountBills.map((x: any) => x.id)).toEqual([b.id]);
    // The list reads its bills' lines only when asked for them (BillType.lines): the same lines as the bill's.
    expect(b.lines.length).toBeGreaterThan(0);
    expect((await owner.ok(`{ mySewerBills { id lines { kind description amountCents section } } }`)).mySewerBills).toEqual([
      { id: b.id, lines: b.lines.map((l: any) => ({ kind: l.kind, description: l.description, amountCents: l.amountCents, section: l.section })) },
    ]);
    expect(errorCode(await stranger.gql(GET_BILL, { id: b.id }))).toBe("NOT_FOUND");
    expect(errorCode(await stranger.gql(ACCOUNT_BILLS, { id: home.accounts[0].id }))).toBe("NOT_FOUND");
    expect((await stranger.ok(MY_BILLS)).mySewerBills).toEqual([]);
    expect(errorCode(await huronClerk.gql(GET_BILL, { id: b.id }))).toBe("NOT_FOUND");
    // The PDF statement, drawn on demand: the owner's; a stranger's 404; signed out 401.
    const pdf = (c: Client) => fetch(`${srv.url}/bills/${b.id}/bill.pdf`, { headers: c.cookies.size ? { cookie: c.cookieHeader } : {} });
    const mineRes = await pdf(owner);
    expect(mineRes.status).toBe(200);
    expect(mineRes.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(await mineRes.arrayBuffer()).subarray(0, 5).toString()).toBe("%PDF-");
    expect((await pdf(stranger)).status).toBe(404);
    expect((await pdf(new Client(srv.url))).status).toBe(401);
  });

  it("the next quarter shows an adjustment with its reason and flags the changed EDUs", async () => {
    const r = await clerk.gql(ADJUST, { i: { accountId: home.accounts[0].id, amountCents: 0, reason: "" } });
    expect(Object.keys(fields(r)).sort()).toEqual(["amountCents", "reason"]);
    await clerk.ok(ADJUST, { i: { accountId: home.accounts[0].id, amountCents: -500, reason: "Meter misread in the first quarter" } });
    await clerk.ok(ASSESS, { i: { accountId: home.accounts[0].id, effectiveOn: "2026-04-01", counts: [{ key: "billing.edu.singleFamilyHome", count: 2 }] } });
    const q2 = (await clerk.ok(PREVIEW, { i: { districtId: lakeview.id, cycle: "OTHER", periodStart: "2026-04-01" } })).previewBillRun;
    const h = billOf(await allBills(q2.id), home.accounts[0].id);
    expect(h.flags.map((f: any) => [f.code, f.text])).toEqual(expect.arrayContaining([["EDU_CHANGED", "EDUs changed since the last bill: 1 → 2"]]));
    expect(h.lines.at(-1)).toMatchObject({ kind: "ADJUSTMENT", amountCents: -500, section: "Adjustment to an earlier bill" });
    expect(h.lines.at(-1).description).toMatch(/^Credit recorded .*: Meter misread in the first quarter$/);
    await clerk.ok(ISSUE, { i: { runId: q2.id, mailedOn: today(), confirm: true } });
    const [{ applied }] = await db().query(`SELECT applied_bill_id AS applied FROM bill_adjustment WHERE account_id = $1`, [home.accounts[0].id]);
    expect(applied).toBe(h.id);
  });

  it("previewing takes a fixed number of statements whatever the number of accounts", async () => {
    // The monthly industrial cycle (SUL 1206): one industrial account in September, five in October.
    const industrial = async (n: number, month: string) => {
      for (let i = 0; i < n; i++) {
        const m = await metered(clerk, lakeview.id, { homes: 1, reads: [[`${month}-20`, 1000]] });
        await db().query(`UPDATE service_account SET class = 'INDUSTRIAL', opened_on = '2026-09-01' WHERE id = $1`, [m.accounts[0].id]);
      }
    };
    await industrial(1, "2026-09");
    const one = await countStatements(db(), () => clerk.ok(PREVIEW, { i: { districtId: lakeview.id, cycle: "INDUSTRIAL", periodStart: "2026-09-01" } }));
    await industrial(4, "2026-10");
    let run: any;
    const five = await countStatements(db(), async () => (run = (await clerk.ok(PREVIEW, { i: { districtId: lakeview.id, cycle: "INDUSTRIAL", periodStart: "2026-10-01" } })).previewBillRun));
    expect(run.billCount).toBe(5);
    expect(five).toBe(one);
    const issueOne = await countStatements(db(), () => clerk.ok(ISSUE, { i: { runId: run.id, mailedOn: today(), confirm: true, maxBills: 1 } }));
    // The other four in one batch of the same statements (the first issue also starts the run: its mailing and due dates).
    const issueFour = await countStatements(db(), () => clerk.ok(ISSUE, { i: { runId: run.id, mailedOn: today(), confirm: true, maxBills: 4 } }));
    expect(issueFour).toBeLessThanOrEqual(issueOne);
    expect((await clerk.ok(ISSUE, { i: { runId: run.id, mailedOn: today(), confirm: true } })).issueBillRun).toMatchObject({ status: "ISSUED", issuedCount: 5 });
  });
});

describe("Huron: the minimum per user, the owner's excess on a shared meter, billed to the owner", () => {
  it("three users behind one meter pay $45.00 each and the owner $65.00; a user alone pays the minimum and the use above it", async () => {
    const shared = await metered(huronClerk, huron.id, { users: 3, reads: [["2026-03-20", 40_000]] });
    const alone = await metered(huronClerk, huron.id, { reads: [["2026-03-20", 15_000]] });
    const vacant = await metered(huronClerk, huron.id, { reads: [["2026-03-20", 0]] });
    await db().query(`UPDATE service_account SET occupancy = 'UNOCCUPIED' WHERE id = $1`, [vacant.accounts[0].id]);
    const cycles = (await huronClerk.ok(RUNS, { d: huron.id })).billRuns.cycles;
    expect(cycles).toEqual([{ cycle: "ALL", label: "All users", months: 3, section: "Huron VI-3" }]);
    const run = (await huronClerk.ok(PREVIEW, { i: { districtId: huron.id, cycle: "ALL", periodStart: "2026-01-01" } })).previewBillRun;
    expect(run.tasks).toEqual([]);
    const bills = await (async () => {
      const out: any[] = [];
      let after: string | null = null;
      do {
        const page: any = (await huronClerk.ok(BILLS, { r: run.id, n: 200, a: after })).billRunBills;
        out.push(...page.items);
        after = page.nextCursor;
      } while (after);
      return out;
    })();
    for (const a of shared.accounts) {
      const b = billOf(bills, a.id);
      expect(b.lines.map((l: any) => [l.kind, l.amountCents, l.section])).toEqual([["MINIMUM", 4500, "Huron VII"]]);
      expect(b.billTo).toMatch(/^Owner \d+$/);
    }
    const excess = bills.filter((b) => b.kind === "OWNER_EXCESS");
    expect(excess).toHaveLength(1);
    expect(excess[0]).toMatchObject({ accountId: null, totalCents: 6500 });
    expect(excess[0].lines[0]).toMatchObject({ kind: "OWNER_EXCESS", quantity: "$200.00 use charge − $135.00 in minimums", section: "Huron VI-2" });
    expect(billOf(bills, alone.accounts[0].id).lines.map((l: any) => [l.kind, l.amountCents])).toEqual([
      ["MINIMUM", 4500],
      ["USE_ABOVE_MINIMUM", 3000],
    ]);
    const v = billOf(bills, vacant.accounts[0].id);
    expect(v.totalCents).toBe(4500);
    expect(v.lines[0].description).toContain("Huron VI-5");

    const issued = (await huronClerk.ok(ISSUE, { i: { runId: run.id, mailedOn: today(), confirm: true } })).issueBillRun;
    expect(issued).toMatchObject({ status: "ISSUED", dueOn: addCalendarDays(today(), 15) });
    const b = (await huronClerk.ok(GET_BILL, { id: billOf(bills, alone.accounts[0].id).id })).sewerBill;
    expect(b.dueText).toMatch(/^Due on or before .*, 15 days after mailing \(Huron VI-3\)\.$/);
    expect(b.number).toMatch(/^HRN-202601-\d{7}$/);
  });
});

describe("who may do what, operation by operation", () => {
  it("signed out, a stranger, the district's Operator, the other district's Clerk, the Clerk", async () => {
    const anon = new Client(srv.url);
    const preview = { i: { districtId: lakeview.id, cycle: "OTHER", periodStart: "2025-10-01" } };
    const issue = { i: { runId: q1Run.id, mailedOn: today(), confirm: true } };
    const adjust = { i: { accountId: home.accounts[0].id, amountCents: 100, reason: "x" } };
    for (const [c, expected] of [
      [anon, "UNAUTHENTICATED"],
      [stranger, "FORBIDDEN"],
    ] as const) {
      expect(errorCode(await c.gql(RUNS, { d: lakeview.id }))).toBe(expected);
      expect(errorCode(await c.gql(GET_RUN, { id: q1Run.id }))).toBe(expected);
      expect(errorCode(await c.gql(BILLS, { r: q1Run.id }))).toBe(expected);
      expect(errorCode(await c.gql(PREVIEW, preview))).toBe(expected);
      expect(errorCode(await c.gql(ISSUE, issue))).toBe(expected);
      expect(errorCode(await c.gql(ADJUST, adjust))).toBe(expected);
    }
    expect(errorCode(await anon.gql(MY_BILLS))).toBe("UNAUTHENTICATED");
    // The Operator reads, does not run or issue.
    expect((await operator.ok(RUNS, { d: lakeview.id })).billRuns.runs.length).toBeGreaterThan(0);
    expect((await operator.ok(GET_RUN, { id: q1Run.id })).billRun.id).toBe(q1Run.id);
    expect((await operator.ok(BILLS, { r: q1Run.id, n: 1 })).billRunBills.items).toHaveLength(1);
    expect(errorCode(await operator.gql(PREVIEW, preview))).toBe("FORBIDDEN");
    expect(errorCode(await operator.gql(ISSUE, issue))).toBe("FORBIDDEN");
    expect(errorCode(await operator.gql(ADJUST, adjust))).toBe("FORBIDDEN");
    // The other district's Clerk: its lists FORBIDDEN, its records NOT_FOUND.
    expect(errorCode(await huronClerk.gql(RUNS, { d: lakeview.id }))).toBe("FORBIDDEN");
    expect(errorCode(await huronClerk.gql(GET_RUN, { id: q1Run.id }))).toBe("NOT_FOUND");
    expect(errorCode(await huronClerk.gql(BILLS, { r: q1Run.id }))).toBe("NOT_FOUND");
    expect(errorCode(await huronClerk.gql(PREVIEW, preview))).toBe("FORBIDDEN");
    expect(errorCode(await huronClerk.gql(ISSUE, issue))).toBe("NOT_FOUND");
    expect(errorCode(await huronClerk.gql(ADJUST, adjust))).toBe("NOT_FOUND");
    // The Clerk.
    expect((await clerk.ok(RUNS, { d: lakeview.id })).billRuns.tasks.map((t: any) => t.key)).toEqual(["surcharge", "surcharge"]);
    expect((await clerk.ok(ADJUST, adjust)).recordBillAdjustment.amountCents).toBe(100);
  });
});

describe("two Clerks previewing the same period at once", () => {
  it("the second is told the preview is being computed, and by whom (CONFLICT), never a server error; a mark left by a stopped preview frees the period after 15 minutes", async () => {
    const q2 = { i: { districtId: lakeview.id, cycle: "OTHER", periodStart: "2025-10-01" } };
    const run = (await clerk.ok(PREVIEW, q2)).previewBillRun;
    const [{ id: clerkId, display_name: name }] = await db().query(`SELECT id, display_name FROM app_user WHERE email = $1`, [DEMO.lakeviewClerk]);
    await db().query(`UPDATE bill_run SET computing_by_id = $2, computing_since = now() WHERE id = $1`, [run.id, clerkId]);
    const busy = await clerk.gql(PREVIEW, q2);
    expect(errorCode(busy)).toBe("CONFLICT");
    expect(busy.errors![0].message.startsWith(`A preview of this period is being computed by ${name} (started `)).toBe(true);
    expect(busy.errors![0].message.endsWith("); preview it again once it is done.")).toBe(true);
    const issuing = await clerk.gql(ISSUE, { i: { runId: run.id, mailedOn: today(), confirm: true } });
    expect(errorCode(issuing)).toBe("CONFLICT");
    expect(issuing.errors![0].message).toContain("issue the bills once it is done");
    await db().query(`UPDATE bill_run SET computing_since = now() - interval '15 minutes' WHERE id = $1`, [run.id]);
    expect((await clerk.ok(PREVIEW, q2)).previewBillRun.billCount).toBe(run.billCount);
    expect(await db().query(`SELECT computing_by_id, computing_since FROM bill_run WHERE id = $1`, [run.id])).toEqual([{ computing_by_id: null, computing_since: null }]);

    // Really at once, on a period not yet previewed: one computes it; the other waits for the run's row and is told so, or previews after it.
    const q3 = { i: { districtId: lakeview.id, cycle: "OTHER", periodStart: "2025-07-01" } };
    const both = await Promise.all([clerk.gql(PREVIEW, q3), clerk.gql(PREVIEW, q3)]);
    expect(both.map((r) => (r.errors ? errorCode(r) : "OK")).sort()).toSatisfy((codes: string[]) => codes[1] === "OK" && ["CONFLICT", "OK"].includes(codes[0]));
    const [{ runs, bills, distinct }] = await db().query(
      `SELECT count(DISTINCT r.id)::int AS runs, count(b.id)::int AS bills, count(DISTINCT b.account_id)::int AS distinct
         FROM bill_run r LEFT JOIN bill b ON b.run_id = r.id WHERE r.district_id = $1 AND r.cycle = 'OTHER' AND r.period_start = '2025-07-01'`,
      [lakeview.id],
    );
    expect([runs, bills]).toEqual([1, distinct]);
  });
});

describe("SUL 1202: the surcharge on an industrial user's strengths above normal sewage (201)", () => {
  const LINK = `mutation($i: LinkIndustrialPermitInput!) { linkIndustrialPermit(input: $i) { id } }`;
  it("billed from the permit's own results for the period once the Board sets the rates: above the ceiling a line with the concentrations and the formula, at it none", async () => {
    const admin = await signedInAs(srv.url, DEMO.lakeviewAdmin);
    // The Board's resolution: $0.30 a pound of BOD and $0.25 a pound of suspended solids.
    await admin.ok(CHANGE, {
      i: { districtId: lakeview.id, effectiveDate: "2026-01-01", reason: "Surcharge rates", resolutionNumber: "2026-12", resolutionAdoptedOn: "2025-12-20",
        changes: [{ key: "billing.surchargePerPoundBod", value: 30 }, { key: "billing.surchargePerPoundSuspendedSolids", value: 25 }] },
    });
    const [{ id: userId }] = await db().query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.lakeviewClerk]);
    const [{ id: versionId }] = await db().query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY version DESC LIMIT 1`, [lakeview.id]);
    /** An issued permit with one signed report of November's results (and one October result, outside the period). */
    const permit = async (number: string, results: [string, number, string][]) => {
      const [{ id: orgId }] = await db().query(`INSERT INTO organization (name, kind, created_by_id) VALUES ($1, 'INDUSTRIAL_USER', $2) RETURNING id`, [`${number} Works`, userId]);
      const [{ id }] = await db().query(
        `INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, facility_name, submitted_at, notice_published_on, permit_number, issued_at, effective_on, expires_on, reporting_months, rulebook_version_id)
         VALUES ($1, $2, $3, 'ISSUED', 'Plant', '2025-01-01', '2025-01-15', $4, '2025-02-01', '2025-02-01', '2030-01-31', '{6,12}', $5) RETURNING id`,
        [lakeview.id, orgId, userId, number, versionId],
      );
      const [{ id: reportId }] = await db().query(`INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status) VALUES ($1, 'PERIODIC', '2026-10-01', '2026-11-30', '2026-12-30', 'DRAFT') RETURNING id`, [id]);
      for (const [parameter, value, at] of results)
        await db().query(
          `INSERT INTO industrial_result (report_id, permit_id, parameter, sample_type, sampled_at, value, unit, lab, method, status, message, created_by_id)
           VALUES ($1, $2, $3, 'COMPOSITE', $4, $5, 'mg/L', 'Lab', 'SM 5210', 'NO_LIMIT', 'no limit', $6)`,
          [reportId, id, parameter, at, value, userId],
        );
      await db().query(`UPDATE industrial_report SET status = 'SIGNED', signed_at = '2026-12-01T15:00:00Z', signer_id = $2 WHERE id = $1`, [reportId, userId]);
    };
    await permit("LKV-IU-SUR-1", [["BOD", 400, "2026-11-03T14:00:00Z"], ["BOD", 424, "2026-11-17T14:00:00Z"], ["TSS", 301, "2026-11-17T14:00:00Z"], ["BOD", 9000, "2026-10-20T14:00:00Z"]]);
    await permit("LKV-IU-SUR-2", [["BOD (5-day)", 250, "2026-11-10T14:00:00Z"], ["Suspended solids", 300, "2026-11-10T14:00:00Z"]]);
    const strong = await metered(clerk, lakeview.id, { homes: 1, reads: [["2026-10-30", 5000], ["2026-11-27", 120_000]] });
    const normal = await metered(clerk, lakeview.id, { homes: 1, reads: [["2026-10-30", 5000], ["2026-11-27", 120_000]] });
    await db().query(`UPDATE service_account SET class = 'INDUSTRIAL' WHERE id = ANY($1::uuid[])`, [[strong.accounts[0].id, normal.accounts[0].id]]);

    // The Clerk links each account to its permit; an unknown number is refused at its field; only the district's Clerk may.
    const refused = await clerk.gql(LINK, { i: { accountId: strong.accounts[0].id, permitNumber: "LKV-IU-NONE" } });
    expect(refused.errors![0].extensions!.fields).toEqual({ permitNumber: "No issued industrial discharge permit of this district is numbered LKV-IU-NONE." });
    expect(errorCode(await operator.gql(LINK, { i: { accountId: strong.accounts[0].id, permitNumber: "LKV-IU-SUR-1" } }))).toBe("FORBIDDEN");
    expect(errorCode(await huronClerk.gql(LINK, { i: { accountId: strong.accounts[0].id, permitNumber: "LKV-IU-SUR-1" } }))).toBe("NOT_FOUND");
    expect(errorCode(await new Client(srv.url).gql(LINK, { i: { accountId: strong.accounts[0].id, permitNumber: "LKV-IU-SUR-1" } }))).toBe("UNAUTHENTICATED");
    await clerk.ok(LINK, { i: { accountId: strong.accounts[0].id, permitNumber: "lkv-iu-sur-1" } });
    await clerk.ok(LINK, { i: { accountId: normal.accounts[0].id, permitNumber: "LKV-IU-SUR-2" } });

    const run = (await clerk.ok(PREVIEW, { i: { districtId: lakeview.id, cycle: "INDUSTRIAL", periodStart: "2026-11-01" } })).previewBillRun;
    expect(run.tasks.map((t: any) => t.key)).not.toContain("surcharge");
    const items = (await clerk.ok(BILLS, { r: run.id, n: 200 })).billRunBills.items;
    const s = billOf(items, strong.accounts[0].id).lines.filter((l: any) => l.kind === "SURCHARGE");
    // BOD: (412 − 250) × 8.34 × 0.12 = 162.1 lb × $0.30 = $48.63 (the October result is another period's); TSS 1 mg/L above: 1.0 lb × $0.25.
    expect(s.map((l: any) => [l.amountCents, l.rate, l.section])).toEqual([
      [4863, "$0.30 per pound", "Sewer Use Law 1202"],
      [25, "$0.25 per pound", "Sewer Use Law 1202"],
    ]);
    expect(s[0].description).toBe("Surcharge for abnormal sewage, BOD (5-day): average 412 mg/L in 2 results for the period, normal sewage 250 mg/L (Sewer Use Law 201 (Sewage, Normal))");
    expect(s[0].quantity).toBe("(412 − 250) mg/L × 8.34 lb per million gallons per mg/L × 0.12 million gallons = 162.1 lb");
    expect(s[0].kindLabel).toBe("Surcharge");
    expect(billOf(items, normal.accounts[0].id).lines.map((l: any) => l.kind)).not.toContain("SURCHARGE");
  });
});

describe("Huron VI-5: a residence reinstated within twelve months pays the minimums of the time it was discontinued", () => {
  const CLOSE = `mutation($i: CloseServiceAccountInput!) { closeServiceAccount(input: $i) { id } }`;
  const discontinuedThenReopened = async (reopenedOn: string) => {
    const m = await metered(huronClerk, huron.id, { openedOn: "2024-01-01" });
    await huronClerk.ok(CLOSE, { i: { accountId: m.accounts[0].id, lastDay: "2025-06-30", reason: "DISCONTINUED" } });
    const again = (await huronClerk.ok(OPEN, { i: { propertyId: m.propertyId, class: "RESIDENTIAL", occupantName: "Back again", openedOn: reopenedOn } })).openServiceAccount;
    return again.id as string;
  };
  const billFor = async (periodStart: string, accountId: string) => {
    const run = (await huronClerk.ok(PREVIEW, { i: { districtId: huron.id, cycle: "ALL", periodStart } })).previewBillRun;
    let after: string | null = null;
    do {
      const page: any = (await huronClerk.ok(BILLS, { r: run.id, n: 200, a: after })).billRunBills;
      const b = billOf(page.items, accountId);
      if (b) return b;
      after = page.nextCursor;
    } while (after);
    throw new Error("no bill");
  };
  it("reinstated twelve months to the day after the filing: its first bill carries three quarters and 90 of 91 days of minimums ($179.51); a day later, none", async () => {
    const atTwelve = await discontinuedThenReopened("2026-06-30");
    const b = await billFor("2026-04-01", atTwelve);
    const gap = b.lines.find((l: any) => l.kind === "REINSTATEMENT_MINIMUMS");
    expect(gap).toMatchObject({ amountCents: 17_951, section: "Huron VI-5", rate: "$45.00 per period of 3 months, for its days discontinued" });
    expect(gap.description).toContain("filed June 30, 2025 was reinstated June 30, 2026, within 12 months");
    expect(gap.quantity).toBe("364 days discontinued, July 1, 2025 to June 29, 2026, over 4 billing periods");
    const past = await discontinuedThenReopened("2026-07-01");
    expect((await billFor("2026-07-01", past)).lines.map((l: any) => l.kind)).not.toContain("REINSTATEMENT_MINIMUMS");
  });
});
