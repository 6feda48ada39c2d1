import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { Client, DEMO, errorCode, signedInAs, startTestServer, type TestServer } from "../harness.js";
import { pageText, portal } from "../portal.js";

// SUL 705: a determination of inflow withdrawn before it is billed, and the right one recorded for
// the same days (docs/decisions/inflow-determination-withdrawn.md).

const TZ = "America/New_York";
const NONE = "00000000-0000-0000-0000-000000000000";
const today = () => dateIn(TZ);

const ADD = `mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`;
const OPEN = `mutation($i: OpenInflowInspectionInput!) { openInflowInspection(input: $i) { id propertyId } }`;
const VISIT = `mutation($i: RecordInflowVisitInput!) { recordInflowVisit(input: $i) { id status } }`;
const DETERMINATION = `id periodFrom periodTo gallons billId billNumber withdrawnAt withdrawnOn withdrawnBy withdrawnReason`;
const DETERMINE = `mutation($i: RecordInflowDeterminationInput!) { recordInflowDetermination(input: $i) { determinations { ${DETERMINATION} } } }`;
const WITHDRAW = `mutation($i: WithdrawInflowDeterminationInput!) { withdrawInflowDetermination(input: $i) { determinations { ${DETERMINATION} } } }`;
const DETERMINATIONS = `query($id: ID!) { inflowInspection(id: $id) { determinations { ${DETERMINATION} } } }`;
const CHANGE = `mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`;
const OPEN_ACCOUNT = `mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id } }`;
const PREVIEW = `mutation($i: PreviewBillRunInput!) { previewBillRun(input: $i) { id } }`;
const ISSUE = `mutation($i: IssueBillRunInput!) { issueBillRun(input: $i) { id status } }`;
const BILLS = `query($r: ID!) { billRunBills(runId: $r, first: 50) { items { id accountId lines { kind quantity amountCents } } } }`;
const board = (changes: { key: string; value: number }[], districtId: string) => ({
  i: { districtId, effectiveDate: "2026-01-01", reason: "Sewer rent schedule 2026", resolutionNumber: "2025-88", resolutionAdoptedOn: "2025-12-15", changes },
});

let srv: TestServer;
let lakeview: string;
let huron: string;
let operator: Client;
let clerk: Client;
let boardMember: Client;
let admin: Client;
let huronOperator: Client;
let owner: Client;
let stranger: Client;
let inspection: string;
let account: string;
const note = "Sump pump ran 40 hours at 5 gallons a minute (hour meter)";
const q2 = { i: { districtId: "", cycle: "OTHER", periodStart: "2026-04-01" } };

beforeAll(async () => {
  srv = await startTestServer({ portal: "vite" });
  const d = await new Client(srv.url).ok(`{ l: district(slug: "lakeview") { id } h: district(slug: "huron") { id } }`);
  [lakeview, huron] = [d.l.id, d.h.id];
  q2.i.districtId = lakeview;
  [operator, clerk, boardMember, admin, huronOperator] = await Promise.all(
    [DEMO.lakeviewOperator, DEMO.lakeviewClerk, DEMO.lakeviewBoard, DEMO.lakeviewAdmin, DEMO.huronOperator].map((e) => signedInAs(srv.url, e)),
  );
  owner = new Client(srv.url);
  await owner.signUp("owner@willow.example.com", "Olive Owner");
  stranger = new Client(srv.url);
  await stranger.signUp("stranger@elsewhere.example.com", "Sam Stranger");
  await clerk.ok(ADD, { i: { districtId: lakeview, taxParcel: "201.1-1-1", streetNumber: "12", street: "Willow Way", zip: "13600", ownerName: "Olive Owner", ownerEmail: "owner@willow.example.com" } });
  const i = (await operator.ok(OPEN, { i: { districtId: lakeview, taxParcel: "201.1-1-1" } })).openInflowInspection;
  inspection = i.id;
  const v = await operator.ok(VISIT, {
    i: { inspectionId: i.id, visitedOn: today(), stormSewerFeet: 50, naturalDrainageAdequate: false, sources: [{ kind: "SUMP_PUMP", state: "CONNECTED" }], orderDeadline: addCalendarDays(today(), 30) },
  });
  expect(v.recordInflowVisit.status).toBe("ORDERED");
  await admin.ok(CHANGE, board([{ key: "billing.volumeChargePer1000Gallons", value: 650 }, { key: "billing.inflowSurchargeFactor", value: 5 }], lakeview));
  account = (await clerk.ok(OPEN_ACCOUNT, { i: { propertyId: i.propertyId, class: "RESIDENTIAL", occupantName: "Olive Owner", occupantEmail: "owner@willow.example.com", openedOn: "2024-01-01" } }))
    .openServiceAccount.id;
});
afterAll(() => srv?.close());

const record = (periodFrom: string, periodTo: string, gallons: number) => operator.gql(DETERMINE, { i: { inspectionId: inspection, periodFrom, periodTo, gallons, method: "PUMP_RUN_TIME", note } });
const determinations = async () => (await operator.ok(DETERMINATIONS, { id: inspection })).inflowInspection.determinations as any[];
const inflowLines = async (runId: string) => {
  const bill = (await clerk.ok(BILLS, { r: runId })).billRunBills.items.find((b: any) => b.accountId === account);
  return bill.lines.filter((l: any) => l.kind.startsWith("INFLOW"));
};

let typo: string; // 120,000 gallons typed for 12,000
let corrected: string;

describe("SUL 705: a determination withdrawn before it is billed", () => {
  it("withdrawn with its reason, it stays on the record and frees its days: the corrected figure is recorded for the same days; owner and parties are told", async () => {
    expect((await record("2026-04-01", "2026-06-20", 120_000)).errors).toBeUndefined();
    typo = (await determinations())[0].id;
    // The same days cannot be determined twice while it stands.
    expect((await record("2026-04-01", "2026-06-20", 12_000)).errors![0].extensions!.fields).toEqual({ periodFrom: expect.stringMatching(/already determined/) });

    const reason = "Typed 120,000 for 12,000 gallons (hour meter read 40 hours)";
    const w = (await operator.ok(WITHDRAW, { i: { determinationId: typo, reason } })).withdrawInflowDetermination.determinations;
    expect(w).toEqual([
      {
        id: typo,
        periodFrom: "2026-04-01",
        periodTo: "2026-06-20",
        gallons: 120_000,
        billId: null,
        billNumber: null,
        withdrawnAt: expect.any(String),
        withdrawnOn: today(),
        withdrawnBy: expect.stringMatching(/\S/),
        withdrawnReason: reason,
      },
    ]);
    // Once.
    const again = await operator.gql(WITHDRAW, { i: { determinationId: typo, reason } });
    expect(errorCode(again)).toBe("CONFLICT");
    expect(again.errors![0].message).toMatch(/was withdrawn on .* by /);

    expect((await record("2026-04-01", "2026-06-20", 12_000)).errors).toBeUndefined();
    const both = await determinations();
    expect(both.map((x) => [x.gallons, !!x.withdrawnAt])).toEqual([
      [120_000, true],
      [12_000, false],
    ]);
    corrected = both[1].id;
    // The owner reads who withdrew it, when and why.
    expect((await owner.ok(DETERMINATIONS, { id: inspection })).inflowInspection.determinations[0]).toMatchObject({ withdrawnReason: reason, withdrawnOn: today() });

    const mail = (await owner.ok(`{ myEmails { subject bodyText } }`)).myEmails.find((m: any) => m.subject === "Inflow determination withdrawn: 12 Willow Way");
    expect(mail.bodyText).toMatch(/withdrew the determination of 120,000 gallons of inflow .* April 1, 2026 to June 20, 2026: Typed 120,000 for 12,000 gallons .*It will not be billed/s);
    const [entry] = await srv.running.ds.query(`SELECT reason, details FROM audit_entry WHERE action = 'inflow.determination_withdrawn'`);
    expect(entry).toMatchObject({ reason, details: expect.objectContaining({ determinationId: typo, gallons: 120_000, previewRunId: null }) });
  });

  it("the bill run bills only the corrected one: 12,000 gallons × $6.50 = $78.00 and five times that", async () => {
    const run = (await clerk.ok(PREVIEW, q2)).previewBillRun;
    expect((await inflowLines(run.id)).map((l: any) => [l.kind, l.amountCents])).toEqual([
      ["INFLOW", 7800],
      ["INFLOW_SURCHARGE", 39_000],
    ]);
    const [{ n }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM bill_line WHERE inflow_determination_id = $1`, [typo]);
    expect(n).toBe(0);
  });

  it("carried only by a preview, it is withdrawn; issuing that preview is refused until it is previewed again, which drops it", async () => {
    expect((await record("2026-06-21", "2026-06-30", 5_000)).errors).toBeUndefined();
    const late = (await determinations()).find((x) => x.periodFrom === "2026-06-21").id;
    const run = (await clerk.ok(PREVIEW, q2)).previewBillRun;
    expect((await inflowLines(run.id)).filter((l: any) => l.kind === "INFLOW").map((l: any) => l.amountCents)).toEqual([7800, 3250]);

    expect((await operator.gql(WITHDRAW, { i: { determinationId: late, reason: "Counted June 21 to 30 twice" } })).errors).toBeUndefined();
    const [entry] = await srv.running.ds.query(`SELECT details FROM audit_entry WHERE action = 'inflow.determination_withdrawn' AND details->>'determinationId' = $1`, [late]);
    expect(entry.details.previewRunId).toBe(run.id);
    const tasksOf = async () => (await srv.running.ds.query(`SELECT tasks FROM bill_run WHERE id = $1`, [run.id]))[0].tasks.map((t: any) => t.text);
    expect(await tasksOf()).toContainEqual(expect.stringMatching(/withdrew the determination of inflow from .* \(June 21, 2026 to June 30, 2026\) that this preview bills: preview the run again/));
    const refused = await clerk.gql(ISSUE, { i: { runId: run.id, mailedOn: today(), confirm: true } });
    expect(errorCode(refused)).toBe("CONFLICT");
    expect(refused.errors![0].message).toMatch(/withdrew a determination of inflow this preview bills; preview the run again/);

    await clerk.ok(PREVIEW, q2);
    expect(await tasksOf()).not.toContainEqual(expect.stringContaining("withdrew the determination"));
    expect((await inflowLines(run.id)).filter((l: any) => l.kind === "INFLOW").map((l: any) => l.amountCents)).toEqual([7800]);
    expect((await clerk.ok(ISSUE, { i: { runId: run.id, mailedOn: today(), confirm: true } })).issueBillRun.status).toBe("ISSUED");
  });

  it("refused once an issued bill carries it, naming the bill", async () => {
    const d = (await determinations()).find((x) => x.id === corrected);
    expect(d.billNumber).toMatch(/^LKV-202604-\d{7}$/);
    const r = await operator.gql(WITHDRAW, { i: { determinationId: corrected, reason: "Too late" } });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toContain(`It is billed on sewer bill ${d.billNumber}, issued`);
    expect(r.errors![0].message).toMatch(/adjustment on the account's next bill/);
    expect((await determinations()).find((x) => x.id === corrected).withdrawnAt).toBeNull();
  });

  it("access, operation by operation: the district's District Operator only", async () => {
    expect((await record("2026-07-01", "2026-07-31", 2_000)).errors).toBeUndefined();
    const july = (await determinations()).find((x) => x.periodFrom === "2026-07-01").id;
    const input = { i: { determinationId: july, reason: "Wrong days" } };
    expect(errorCode(await new Client(srv.url).gql(WITHDRAW, input))).toBe("UNAUTHENTICATED");
    // Not staff (the owner of record, a stranger) and the district's other staff: FORBIDDEN; another district's Superintendent does not find it.
    for (const c of [clerk, boardMember, admin, owner, stranger]) expect(errorCode(await c.gql(WITHDRAW, input))).toBe("FORBIDDEN");
    expect(errorCode(await huronOperator.gql(WITHDRAW, input))).toBe("NOT_FOUND");
    expect(errorCode(await operator.gql(WITHDRAW, { i: { determinationId: NONE, reason: "x" } }))).toBe("NOT_FOUND");
    expect(errorCode(await operator.gql(WITHDRAW, { i: { determinationId: "nope", reason: "x" } }))).toBe("NOT_FOUND");
    expect((await determinations()).find((x) => x.id === july).withdrawnAt).toBeNull();
  });

  it("a reason is required, at most 1,000 characters (1,001 refused, 1,000 kept)", async () => {
    const july = (await determinations()).find((x) => x.periodFrom === "2026-07-01").id;
    const empty = await operator.gql(WITHDRAW, { i: { determinationId: july, reason: "   " } });
    expect(empty.errors![0].extensions).toMatchObject({ code: "BAD_USER_INPUT", fields: { reason: expect.stringMatching(/Say why/) } });
    const long = await operator.gql(WITHDRAW, { i: { determinationId: july, reason: "x".repeat(1001) } });
    expect(long.errors![0].extensions).toMatchObject({ code: "BAD_USER_INPUT", fields: { reason: "Keep the reason to 1,000 characters." } });
    expect((await determinations()).find((x) => x.id === july).withdrawnAt).toBeNull();
    const ok = (await operator.ok(WITHDRAW, { i: { determinationId: july, reason: "x".repeat(1000) } })).withdrawInflowDetermination.determinations;
    expect(ok.find((x: any) => x.id === july).withdrawnReason).toHaveLength(1000);
  });

  it("Huron (no inflow charge): no inflow line on its bills, and its Superintendent is told its law has no determination", async () => {
    const hclerk = await signedInAs(srv.url, DEMO.huronClerk);
    const huronAdmin = await signedInAs(srv.url, DEMO.huronAdmin);
    await hclerk.ok(ADD, { i: { districtId: huron, taxParcel: "7.2-3-9", streetNumber: "4", street: "Bay Shore Road", zip: "13600", ownerName: "Hal Huron" } });
    const hi = (await huronOperator.ok(OPEN, { i: { districtId: huron, taxParcel: "7.2-3-9" } })).openInflowInspection;
    await huronAdmin.ok(CHANGE, board([{ key: "billing.minimumCharge", value: 4500 }, { key: "billing.volumeChargePer1000Gallons", value: 500 }], huron));
    const hAccount = (await hclerk.ok(OPEN_ACCOUNT, { i: { propertyId: hi.propertyId, class: "RESIDENTIAL", occupantName: "Hal Huron", openedOn: "2024-01-01" } })).openServiceAccount.id;
    const ds = srv.running.ds;
    const [{ id: userId }] = await ds.query(`SELECT id FROM app_user WHERE email = $1`, [DEMO.huronOperator]);
    const [{ id: versionId }] = await ds.query(`SELECT id FROM rulebook_version WHERE district_id = $1 ORDER BY version DESC LIMIT 1`, [huron]);
    const [{ id }] = await ds.query(
      `INSERT INTO inflow_determination (district_id, property_id, inspection_id, period_from, period_to, gallons, method, note, determined_by_id, rulebook_version_id)
       VALUES ($1, $2, $3, '2026-04-01', '2026-06-20', 12000, 'ESTIMATE', 'written by the test', $4, $5) RETURNING id`,
      [huron, hi.propertyId, hi.id, userId, versionId],
    );
    const r = await huronOperator.gql(WITHDRAW, { i: { determinationId: id, reason: "x" } });
    expect(errorCode(r)).toBe("CONFLICT");
    expect(r.errors![0].message).toMatch(/no determination of inflow and no charge for it \(Huron III-8\)/);
    const run = (await hclerk.ok(PREVIEW, { i: { districtId: huron, cycle: "ALL", periodStart: "2026-04-01" } })).previewBillRun;
    const b = (await hclerk.ok(BILLS, { r: run.id })).billRunBills.items.find((x: any) => x.accountId === hAccount);
    expect(b.lines.map((l: any) => l.kind)).toEqual(["MINIMUM"]);
  });

  it("the pages, without JavaScript: the staff's Withdraw form keeps what was typed beside its error, then the notice; the owner reads who, when and why", async () => {
    const { get, post } = portal(() => srv.url);
    expect((await record("2026-08-01", "2026-08-31", 3_000)).errors).toBeUndefined();
    const august = (await determinations()).find((x) => x.periodFrom === "2026-08-01" && !x.withdrawnAt).id;
    const page = (await get(operator, `/staff/inflow/${inspection}`)).html;
    // A form under each determination not billed nor withdrawn: August's; not the billed one's, not the withdrawn ones'.
    expect(page.match(/name="determinationId" value="[^"]+"/g)).toEqual([`name="determinationId" value="${august}"`]);

    const typed = `Wrong month ${"y".repeat(1000)}`;
    const bad = await post(operator, `/staff/inflow/${inspection}`, { form: "withdraw", determinationId: august, reason: typed });
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(new RegExp(`id="reason-${august}-error"[^>]*>Keep the reason to 1,000 characters.<`));
    expect(bad.html).toContain(`>${typed}</textarea>`);
    expect(pageText(bad.html)).toContain("Why it is withdrawn: Keep the reason to 1,000 characters.");

    const r = await post(operator, `/staff/inflow/${inspection}`, { form: "withdraw", determinationId: august, reason: "Recorded on the wrong property's inspection" });
    expect([r.status, r.location]).toEqual([302, `/staff/inflow/${inspection}?done=withdrawn`]);
    const staff = pageText((await get(operator, `/staff/inflow/${inspection}?done=withdrawn`)).html);
    expect(staff).toContain("The determination is withdrawn: it will not be billed, and its days can be determined again.");
    expect(staff).not.toContain('name="determinationId"');

    const mine = pageText((await get(owner, `/inflow/${inspection}`)).html);
    const [{ display_name: by }] = await srv.running.ds.query(`SELECT display_name FROM app_user WHERE email = $1`, [DEMO.lakeviewOperator]);
    const on = new Intl.DateTimeFormat("en-US", { timeZone: TZ, year: "numeric", month: "long", day: "numeric" }).format(new Date(`${today()}T12:00:00Z`));
    expect(mine).toContain(`August 1, 2026 to August 31, 2026 3,000 Measured sump pump run time: ${note}`);
    expect(mine).toContain(`Withdrawn ${on} by ${by}: Recorded on the wrong property's inspection. Not billed.`);
    expect(mine).toMatch(/April 1, 2026 to June 20, 2026 12,000 .* LKV-202604-\d{7}/);
    expect((await get(owner, `/inflow/${inspection}`)).html).not.toContain(`name="determinationId"`);
  }, 120_000); // the file's first portal pages: Vite compiles them

  it("refused while the bill run carrying it is being issued (stopped halfway)", async () => {
    expect((await record("2026-09-01", "2026-09-30", 1_000)).errors).toBeUndefined();
    const september = (await determinations()).find((x) => x.periodFrom === "2026-09-01").id;
    const run = (await clerk.ok(PREVIEW, { i: { districtId: lakeview, cycle: "OTHER", periodStart: "2026-07-01" } })).previewBillRun;
    const ds = srv.running.ds;
    await ds.query(`UPDATE bill_run SET status = 'ISSUING', mailed_on = $2 WHERE id = $1`, [run.id, today()]);
    try {
      const r = await operator.gql(WITHDRAW, { i: { determinationId: september, reason: "Wrong month" } });
      expect(errorCode(r)).toBe("CONFLICT");
      expect(r.errors![0].message).toBe(
        "The sewer bills for July 1, 2026 to September 30, 2026 carrying it are being issued; once issued, the Town Clerk corrects it with an adjustment on the account's next bill.",
      );
    } finally {
      await ds.query(`UPDATE bill_run SET status = 'PREVIEW', mailed_on = NULL WHERE id = $1`, [run.id]);
    }
  });
});
