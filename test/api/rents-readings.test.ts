import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyPeriods, periodConsumption } from "../../api/rents/consumption.js";
import { Client, DEMO, countStatements, errorCode, startTestServer, type TestServer, signedInAs } from "../harness.js";

/**
 * Meter readings (issue 14): what the bill runs read (periodConsumption, SUL 1205; Huron VI-2's
 * shared meter), the CSV import with its report, and who may see and do what.
 */

let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let clerk: Client;
let huronClerk: Client;
let operator: Client;
let applicant: Client;
const db = () => srv.running.ds;

beforeAll(async () => {
  srv = await startTestServer({ portal: "vite" });
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [clerk, huronClerk, operator, applicant] = await Promise.all([DEMO.lakeviewClerk, DEMO.huronClerk, DEMO.lakeviewOperator, DEMO.applicant].map((e) => signedInAs(srv.url, e)));
}, 120_000);
afterAll(() => srv?.close());

const ADD = `mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`;
const OPEN = `mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id accountNumber } }`;
const METER = `mutation($i: AddServiceMeterInput!) { addServiceMeter(input: $i) { id meters { id meterNumber } } }`;

let parcel = 0;
/** A property with `accounts` accounts all behind one new meter (Huron VI-2 when more than one). */
async function metered(c: Client, districtId: string, opts: { accounts?: number; openedOn?: string; meterNumber?: string } = {}) {
  const n = ++parcel;
  const p = (await c.ok(ADD, { i: { districtId, taxParcel: `77.${n}-2-${n}`, streetNumber: String(n), street: "Meter Lane", zip: "13600", ownerName: `Owner ${n}`, ownerSince: "2020-01-01" } })).addSewerProperty;
  const accounts: { id: string; accountNumber: string }[] = [];
  const meterNumber = opts.meterNumber ?? `M-${n}`;
  let meterId = "";
  for (let i = 0; i < (opts.accounts ?? 1); i++) {
    const a = (await c.ok(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: `Occupant ${n}.${i}`, openedOn: opts.openedOn ?? "2024-01-01" } })).openServiceAccount;
    const m = (await c.ok(METER, { i: { accountId: a.id, meterNumber, installedOn: "2020-01-01" } })).addServiceMeter;
    meterId = m.meters[0].id;
    accounts.push(a);
  }
  return { propertyId: p.id, accounts, meterId, meterNumber };
}

/** Reads written as an import would leave them (the gallons since the previous read already worked out). */
async function reads(districtId: string, meterId: string, rows: [string, number, "ACTUAL" | "ESTIMATED", number | null, string[]?][]) {
  for (const [readOn, reading, kind, gallons, flags] of rows) {
    await db().query(
      `INSERT INTO meter_reading (district_id, meter_id, read_on, reading, kind, consumption_gallons, flags) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [districtId, meterId, readOn, reading, kind, gallons, flags ?? (gallons === null ? ["BASELINE"] : [])],
    );
  }
}

describe("periodConsumption: what the bill runs read", () => {
  it("history periods are the earlier periods of the same length over two years", () => {
    const q = historyPeriods("2026-10-01", "2026-12-31");
    expect(q).toHaveLength(8);
    expect(q[0]).toEqual({ from: "2024-10-01", to: "2024-12-31" });
    expect(q[7]).toEqual({ from: "2026-07-01", to: "2026-09-30" });
    const m = historyPeriods("2026-03-01", "2026-03-31");
    expect(m).toHaveLength(24);
    expect(m[23]).toEqual({ from: "2026-02-01", to: "2026-02-28" });
    expect(historyPeriods("2026-01-10", "2026-04-09")).toHaveLength(8); // 90 days, not whole months
  });

  it("sums the period's reads, marks estimates, baselines and no reads, and gives each quarter of the two years before", async () => {
    const one = await metered(clerk, lakeview.id);
    await reads(lakeview.id, one.meterId, [
      ["2025-12-28", 1000, "ACTUAL", null],
      ["2026-03-30", 13_000, "ACTUAL", 12_000],
      ["2026-06-29", 26_000, "ESTIMATED", 13_000, ["FROM_AVERAGE"]],
      ["2026-09-28", 37_500, "ACTUAL", 11_500, ["TRUE_UP"]],
      ["2026-11-02", 41_000, "ESTIMATED", 3_500, ["FROM_AVERAGE"]],
      ["2026-12-30", 45_000, "ACTUAL", 4_000, ["TRUE_UP"]],
    ]);
    const unread = await metered(clerk, lakeview.id);
    const baselineOnly = await metered(clerk, lakeview.id);
    await reads(lakeview.id, baselineOnly.meterId, [["2026-12-01", 500, "ACTUAL", null]]);

    const ids = [one.accounts[0].id, unread.accounts[0].id, baselineOnly.accounts[0].id];
    const map = await periodConsumption(db(), ids, "2026-10-01", "2026-12-31");
    const c = map.get(one.accounts[0].id)!;
    expect(c).toMatchObject({ gallons: 7_500, estimated: true, noRead: false, shared: false });
    expect(c.reads.map((r) => [r.readOn, r.reading, r.kind, r.gallons, r.meterNumber])).toEqual([
      ["2026-11-02", 41_000, "ESTIMATED", 3_500, one.meterNumber],
      ["2026-12-30", 45_000, "ACTUAL", 4_000, one.meterNumber],
    ]);
    expect(c.history).toEqual([
      { from: "2026-01-01", to: "2026-03-31", gallons: 12_000 },
      { from: "2026-04-01", to: "2026-06-30", gallons: 13_000 },
      { from: "2026-07-01", to: "2026-09-30", gallons: 11_500 },
    ]);
    expect(map.get(unread.accounts[0].id)).toMatchObject({ gallons: 0, noRead: true, estimated: false, reads: [], history: [] });
    const b = map.get(baselineOnly.accounts[0].id)!;
    expect(b).toMatchObject({ gallons: 0, noRead: true });
    expect(b.reads.map((r) => r.flags)).toEqual([["BASELINE"]]);
    // Asked for the quarter before, the estimate of June is the period's and marked.
    expect((await periodConsumption(db(), [one.accounts[0].id], "2026-04-01", "2026-06-30")).get(one.accounts[0].id)).toMatchObject({ gallons: 13_000, estimated: true });
  });

  it("a meter behind several users (Huron VI-2) is reported for each account, flagged, and only within each account's own days", async () => {
    const shared = await metered(huronClerk, huron.id, { accounts: 3 });
    await reads(huron.id, shared.meterId, [
      ["2026-09-30", 100_000, "ACTUAL", null],
      ["2026-12-31", 160_000, "ACTUAL", 60_000],
    ]);
    const map = await periodConsumption(db(), shared.accounts.map((a) => a.id), "2026-10-01", "2026-12-31");
    for (const a of shared.accounts) {
      expect(map.get(a.id)).toMatchObject({ gallons: 60_000, shared: true, noRead: false });
      expect(map.get(a.id)!.reads[0].sharedWith).toBe(3);
    }
    // An account opened after the read does not get it.
    const late = await metered(clerk, lakeview.id, { openedOn: "2026-12-15" });
    await reads(lakeview.id, late.meterId, [["2026-12-01", 9_000, "ACTUAL", 2_000]]);
    expect((await periodConsumption(db(), [late.accounts[0].id], "2026-10-01", "2026-12-31")).get(late.accounts[0].id)).toMatchObject({ gallons: 0, noRead: true });
  });

  it("answers in the same number of SQL statements for one account and for many", async () => {
    const many = await metered(clerk, lakeview.id, { accounts: 12 });
    await reads(lakeview.id, many.meterId, [["2026-12-20", 300, "ACTUAL", 300]]);
    const ids = many.accounts.map((a) => a.id);
    const forOne = await countStatements(db(), () => periodConsumption(db(), ids.slice(0, 1), "2026-10-01", "2026-12-31"));
    const forMany = await countStatements(db(), () => periodConsumption(db(), [...ids, "00000000-0000-4000-8000-000000000000"], "2026-10-01", "2026-12-31"));
    expect(forOne).toBe(1);
    expect(forMany).toBe(forOne);
    const map = await periodConsumption(db(), [...ids, "00000000-0000-4000-8000-000000000000"], "2026-10-01", "2026-12-31");
    expect(map.get("00000000-0000-4000-8000-000000000000")).toMatchObject({ noRead: true, gallons: 0 });
    expect(map.get(ids[11])).toMatchObject({ gallons: 300, shared: true });
  });
});

const IMPORT = `mutation($i: ImportMeterReadingsInput!) { importMeterReadings(input: $i) { id fileName rowsRead rowsImported rowsEstimated rowsRejected errors { line reason } enteredByName } }`;
const IMPORTS = `query($d: ID!, $f: Int, $a: String) { meterReadingImports(districtId: $d, first: $f, after: $a) { nextCursor items { id fileName rowsImported rowsRejected } } }`;
const REPORT = `query($id: ID!) { meterReadingImport(id: $id) { id fileName rowsRead rowsImported rowsRejected errors { line reason } } }`;
const READS = `query($m: ID!) { meterReadings(meterId: $m) { readOn reading kind kindLabel gallons flags flagLabels line truedUpById } }`;

const importFile = async (c: Client, districtId: string, csv: string, fileName = "route-7.csv") => (await c.ok(IMPORT, { i: { districtId, fileName, csv } })).importMeterReadings;

describe("importing a reading file", () => {
  it("reports each bad row with its line and why, and imports the rest in one transaction with its audit entry", async () => {
    const [a, b, c] = [await metered(clerk, lakeview.id), await metered(clerk, lakeview.id), await metered(clerk, lakeview.id)];
    const first = await importFile(
      clerk,
      lakeview.id,
      `Meter Number,Read Date,Reading\n${a.meterNumber},2026-06-30,001000\n${b.meterNumber},06/30/2026,500\naccount,date,reading\n`,
      "june.csv",
    );
    // The third data line repeats the header: no meter of that number.
    expect(first).toMatchObject({ fileName: "june.csv", rowsRead: 3, rowsImported: 2, rowsRejected: 1 });
    expect(first.errors).toEqual([{ line: 4, reason: 'The read date "date" is not a date (use 2026-12-31 or 12/31/2026).' }]);

    const csv = [
      "account,meter,date,reading,kind",
      `,${a.meterNumber},2026-09-30,19400,A`,
      `${b.accounts[0].accountNumber},,2026-09-30,400,`,
      `,NO-SUCH-METER,2026-09-30,100,`,
      `,${c.meterNumber},2099-01-01,100,`,
      `,${c.meterNumber},2026-09-30,12.5,`,
      `,${c.meterNumber},2026-09-30,700,A`,
      `,${c.meterNumber},2026-09-30,705,A`,
    ].join("\n");
    const before = (await db().query(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'rents.readings_imported'`))[0].n;
    const r = await importFile(clerk, lakeview.id, csv, "september.csv");
    expect(r).toMatchObject({ rowsRead: 7, rowsImported: 2, rowsRejected: 5, rowsEstimated: 0, enteredByName: expect.any(String) });
    expect(r.errors.map((e: { line: number }) => e.line)).toEqual([3, 4, 5, 6, 8]);
    const reason = (line: number) => r.errors.find((e: { line: number }) => e.line === line).reason;
    expect(reason(3)).toBe("The reading 400 is lower than the last one (500, 2026-06-30) and is not a rollover of its register.");
    expect(reason(4)).toBe('Unknown meter "NO-SUCH-METER": no meter of that number is in this district\'s register.');
    expect(reason(5)).toBe("The read date 2099-01-01 is in the future.");
    expect(reason(6)).toBe('The reading "12.5" is not a whole number.');
    expect(reason(8)).toMatch(/^Duplicate: meter .* already has a read on 2026-09-30 \(line 7\)\.$/);
    expect((await db().query(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'rents.readings_imported'`))[0].n).toBe(before + 1);

    // The Clerk reads the report again, and the import is in the history.
    expect((await clerk.ok(REPORT, { id: r.id })).meterReadingImport).toMatchObject({ fileName: "september.csv", rowsImported: 2, errors: r.errors });
    const list = (await operator.ok(IMPORTS, { d: lakeview.id, f: 1 })).meterReadingImports;
    expect(list.items.map((i: { id: string }) => i.id)).toEqual([r.id]);
    const next = (await operator.ok(IMPORTS, { d: lakeview.id, f: 1, a: list.nextCursor })).meterReadingImports;
    expect(next.items[0].fileName).not.toBe("september.csv");

    const reads = (await clerk.ok(READS, { m: a.meterId })).meterReadings;
    expect(reads.map((x: any) => [x.readOn, x.reading, x.kind, x.gallons, x.flags, x.line])).toEqual([
      ["2026-09-30", 19_400, "ACTUAL", 18_400, [], 2],
      ["2026-06-30", 1_000, "ACTUAL", null, ["BASELINE"], 2],
    ]);
    // The duplicate's first row (line 7) is the meter's first read: its baseline.
    expect((await clerk.ok(READS, { m: c.meterId })).meterReadings.map((x: any) => [x.reading, x.line])).toEqual([[700, 7]]);

    // A missing read (blank reading) is estimated from the account's own use and trued up by the next actual read; a rollover; lower still refused.
    await db().query(`UPDATE service_meter SET register_digits = 5 WHERE id = $1`, [b.meterId]);
    await importFile(clerk, lakeview.id, `meter,date,reading\n${b.meterNumber},2026-09-30,99000\n`);
    const est = await importFile(clerk, lakeview.id, `meter,date,reading,kind\n${a.meterNumber},2026-10-31,,\n${b.meterNumber},2026-10-31,000500,A\n`);
    expect(est).toMatchObject({ rowsImported: 2, rowsEstimated: 1, rowsRejected: 0 });
    const aReads = (await clerk.ok(READS, { m: a.meterId })).meterReadings;
    // 18,400 gallons over 92 days: 200 a day, 31 days.
    expect(aReads[0]).toMatchObject({ readOn: "2026-10-31", reading: 25_600, kind: "ESTIMATED", kindLabel: "Estimated", gallons: 6_200, flags: ["FROM_AVERAGE"], truedUpById: null });
    expect((await clerk.ok(READS, { m: b.meterId })).meterReadings[0]).toMatchObject({ reading: 500, gallons: 1_500, flags: ["ROLLOVER"], flagLabels: ["Register rolled over"] });
    const trueUp = await importFile(clerk, lakeview.id, `meter,date,reading\n${a.meterNumber},2026-11-20,24000\n`);
    expect(trueUp).toMatchObject({ rowsImported: 1, rowsRejected: 0 });
    const aAfter = (await clerk.ok(READS, { m: a.meterId })).meterReadings;
    expect(aAfter[0]).toMatchObject({ readOn: "2026-11-20", reading: 24_000, kind: "ACTUAL", gallons: 4_600 - 6_200, flags: ["TRUE_UP"] });
    expect(aAfter[1].truedUpById).not.toBeNull();
    const q4 = (await periodConsumption(db(), [a.accounts[0].id], "2026-10-01", "2026-12-31")).get(a.accounts[0].id)!;
    expect(q4).toMatchObject({ gallons: 4_600, estimated: true });
  });

  it("a meter change: the old meter's final read, the new meter in service from that day serving the same accounts, its first read from its start reading", async () => {
    const m = await metered(clerk, lakeview.id);
    await importFile(clerk, lakeview.id, `meter,date,reading\n${m.meterNumber},2026-06-30,1000\n`);
    const change = await importFile(clerk, lakeview.id, `meter,date,reading,new meter,new reading\n${m.meterNumber},2026-08-15,4000,NEW-${m.meterNumber},0\n`);
    expect(change).toMatchObject({ rowsImported: 1, rowsRejected: 0 });
    expect((await clerk.ok(READS, { m: m.meterId })).meterReadings[0]).toMatchObject({ gallons: 3_000, flags: ["FINAL"] });
    const after = await importFile(clerk, lakeview.id, `account,date,reading\n${m.accounts[0].accountNumber},2026-09-30,2500\n${m.accounts[0].accountNumber},2026-06-30,1\n`);
    expect(after.rowsImported).toBe(1);
    // On 2026-06-30 the account's meter was the old one, which has a later read.
    expect(after.errors).toEqual([{ line: 3, reason: `Meter ${m.meterNumber} already has a later read (2026-08-15); a read cannot be added before it.` }]);
    const q3 = (await periodConsumption(db(), [m.accounts[0].id], "2026-07-01", "2026-09-30")).get(m.accounts[0].id)!;
    expect(q3.gallons).toBe(5_500);
    expect(q3.reads.map((r) => [r.meterNumber, r.gallons, r.flags])).toEqual([
      [m.meterNumber, 3_000, ["FINAL"]],
      [`NEW-${m.meterNumber}`, 2_500, ["FIRST_READ"]],
    ]);
    const [{ removed_on }] = await db().query(`SELECT removed_on::text FROM service_meter WHERE id = $1`, [m.meterId]);
    expect(removed_on).toBe("2026-08-15");
  });

  it("a missing read is estimated from the current occupant's year of use, with the estimates since the last actual read trued up first", async () => {
    // A new occupant since 2025-08-01: the previous one's heavy quarter (49,000 gallons to 2025-09-30) is not theirs.
    const m = await metered(clerk, lakeview.id, { openedOn: "2025-08-01" });
    await reads(lakeview.id, m.meterId, [
      ["2025-06-30", 1_000, "ACTUAL", null],
      ["2025-09-30", 50_000, "ACTUAL", 49_000],
      ["2025-12-31", 59_200, "ACTUAL", 9_200],
      ["2026-03-31", 68_200, "ESTIMATED", 9_000, ["FROM_AVERAGE"]],
    ]);
    // The meter named by its number with a reading, then by its account with none.
    const r = await importFile(clerk, lakeview.id, `account,meter,date,reading\n,${m.meterNumber},2026-05-15,65000\n${m.accounts[0].accountNumber},,2026-06-30,\n`);
    expect(r).toMatchObject({ rowsImported: 2, rowsEstimated: 1, rowsRejected: 0 });
    const after = (await clerk.ok(READS, { m: m.meterId })).meterReadings;
    // 5,800 gallons since 2025-12-31 less the 9,000 estimated; then the use since 2025-09-30
    // (9,200 + 5,800 gallons over 92 + 135 days) times the 46 days to 2026-06-30.
    expect(after.slice(0, 3).map((x: any) => [x.readOn, x.reading, x.kind, x.gallons, x.flags, x.truedUpById === null])).toEqual([
      ["2026-06-30", 68_040, "ESTIMATED", 3_040, ["FROM_AVERAGE"], true],
      ["2026-05-15", 65_000, "ACTUAL", -3_200, ["TRUE_UP"], true],
      ["2026-03-31", 68_200, "ESTIMATED", 9_000, ["FROM_AVERAGE"], false],
    ]);
    // The import names who entered it; its reads do not repeat it.
    const [{ n }] = await db().query(`SELECT count(*)::int AS n FROM meter_reading WHERE import_id = $1 AND entered_by_id IS NOT NULL`, [r.id]);
    expect(n).toBe(0);
  });

  it("a file's lines are numbered alike whether its lines end in LF or CRLF, with a BOM, or its cells are quoted", async () => {
    const unknown = (n: number) => `Unknown meter "NOPE-${n}": no meter of that number is in this district's register.`;
    const files = [
      "meter,date,reading\nNOPE-1,2026-09-30,5\n\nNOPE-2,2026-09-30,5\n",
      "\uFEFFmeter,date,reading\r\nNOPE-1,2026-09-30,5\r\n\r\nNOPE-2,2026-09-30,5",
      'meter,date,reading\n"NOPE-1","2026-09-30","5"\n\nNOPE-2,2026-09-30,"5"\n',
    ];
    for (const csv of files)
      expect((await importFile(clerk, lakeview.id, csv)).errors).toEqual([
        { line: 2, reason: unknown(1) },
        { line: 4, reason: unknown(2) },
      ]);
  });

  it("a read is in its meter's district", async () => {
    const m = await metered(clerk, lakeview.id);
    await expect(reads(huron.id, m.meterId, [["2026-06-30", 1_000, "ACTUAL", null]])).rejects.toThrow(/meter_reading_meter_in_district/);
  });

  it("a file that is not a reading file is refused whole; statements are fixed whatever the number of rows", async () => {
    const r = await clerk.gql(IMPORT, { i: { districtId: lakeview.id, fileName: "x.csv", csv: "name,amount\nA,1\n" } });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(r.errors?.[0]?.extensions?.fields).toEqual({ file: expect.stringMatching(/^The first line must name the columns/) });
    const few = await Promise.all([1, 2].map(() => metered(clerk, lakeview.id)));
    const many = await Promise.all(Array.from({ length: 12 }, () => metered(clerk, lakeview.id)));
    const file = (ms: { meterNumber: string }[]) => `meter,date,reading\n${ms.map((m) => `${m.meterNumber},2026-11-01,10`).join("\n")}\n`;
    const forFew = await countStatements(db(), () => importFile(clerk, lakeview.id, file(few)));
    const forMany = await countStatements(db(), () => importFile(clerk, lakeview.id, file(many)));
    expect(forMany).toBe(forFew);
  });
});

describe("a meter's start reading and an account's final reading are meter reads (SUL 1205)", () => {
  const CLOSE = `mutation($i: CloseServiceAccountInput!) { closeServiceAccount(input: $i) { id closedOn } }`;
  const READS = `query($m: ID!) { meterReadings(meterId: $m) { readOn reading kind gallons flags importId } }`;
  it("a new meter's start reading measures its first read; the final reading on closing is written as the meter's read and the final bill's period uses it", async () => {
    const n = ++parcel;
    const p = (await clerk.ok(ADD, { i: { districtId: lakeview.id, taxParcel: `77.${n}-9-${n}`, streetNumber: String(n), street: "Final Lane", zip: "13600", ownerName: `Owner ${n}`, ownerSince: "2020-01-01" } }))
      .addSewerProperty;
    const a = (await clerk.ok(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: "Leaving Occupant", openedOn: "2026-01-01" } })).openServiceAccount;
    const bad = await clerk.gql(METER, { i: { accountId: a.id, meterNumber: `F-${n}`, installedOn: "2026-01-01", startReading: 1_000_000 } });
    expect(errorCode(bad)).toBe("BAD_USER_INPUT");
    expect(bad.errors![0].extensions!.fields).toEqual({ startReading: "The reading has more digits than the meter's register (6)." });
    const meterId = (await clerk.ok(METER, { i: { accountId: a.id, meterNumber: `F-${n}`, installedOn: "2026-01-01", startReading: 500 } })).addServiceMeter.meters[0].id;
    // A meter already in service keeps its own start: a second account sharing it cannot set one.
    const b = (await clerk.ok(OPEN, { i: { propertyId: p.id, class: "RESIDENTIAL", occupantName: "Roommate", openedOn: "2026-01-01" } })).openServiceAccount;
    expect((await clerk.gql(METER, { i: { accountId: b.id, meterNumber: `F-${n}`, installedOn: "2026-01-01", startReading: 7 } })).errors![0].extensions!.fields).toHaveProperty("startReading");

    // The final reading must be one the register can give after its last read, and taken by the last day.
    const close = (reading: number, readOn: string) => ({ i: { accountId: a.id, lastDay: "2026-02-14", reason: "MOVE_OUT", finalReading: reading, finalReadOn: readOn } });
    expect((await clerk.gql(CLOSE, close(2_500, "2026-02-15"))).errors![0].extensions!.fields).toHaveProperty("finalReadOn");
    expect((await clerk.gql(CLOSE, close(400, "2026-02-14"))).errors![0].extensions!.fields).toEqual({
      finalReading: "The reading 400 is lower than the last one (500, the meter's start reading) and is not a rollover of its register.",
    });
    expect((await clerk.ok(CLOSE, close(2_500, "2026-02-14"))).closeServiceAccount.closedOn).toBe("2026-02-14");
    expect((await clerk.ok(READS, { m: meterId })).meterReadings).toEqual([{ readOn: "2026-02-14", reading: 2500, kind: "ACTUAL", gallons: 2000, flags: ["FIRST_READ", "FINAL"], importId: null }]);
    const [{ n: audited }] = await db().query(`SELECT count(*)::int AS n FROM audit_entry WHERE entity_id = $1 AND action = 'rents.account_closed'`, [a.id]);
    expect(audited).toBe(1);
    // The final bill's consumption: the quarter's reads within the account's days.
    expect((await periodConsumption(db(), [a.id], "2026-01-01", "2026-03-31")).get(a.id)).toMatchObject({ gallons: 2000, noRead: false, shared: false });
  });
});

describe("who may import and read meter readings, operation by operation", () => {
  it("only the district's Town Clerk imports; its staff read; others are refused or find nothing", async () => {
    const h = await metered(huronClerk, huron.id, { accounts: 2 });
    const imp = await importFile(huronClerk, huron.id, `meter,date,reading\n${h.meterNumber},2026-09-30,100\n`, "huron.csv");
    expect(imp).toMatchObject({ rowsImported: 1, rowsRejected: 0 });
    const anon = new Client(srv.url);
    const file = { districtId: huron.id, fileName: "x.csv", csv: `meter,date,reading\n${h.meterNumber},2026-10-30,200\n` };
    expect(errorCode(await anon.gql(IMPORT, { i: file }))).toBe("UNAUTHENTICATED");
    expect(errorCode(await applicant.gql(IMPORT, { i: file }))).toBe("FORBIDDEN");
    expect(errorCode(await clerk.gql(IMPORT, { i: file }))).toBe("FORBIDDEN");
    expect(errorCode(await operator.gql(IMPORT, { i: { ...file, districtId: lakeview.id } }))).toBe("FORBIDDEN");
    // Lakeview's Clerk naming Huron's meter in Lakeview's file: an unknown meter, nothing read across districts.
    const across = await importFile(clerk, lakeview.id, file.csv);
    expect(across).toMatchObject({ rowsImported: 0, rowsRejected: 1 });

    expect(errorCode(await anon.gql(IMPORTS, { d: huron.id }))).toBe("UNAUTHENTICATED");
    expect(errorCode(await applicant.gql(IMPORTS, { d: huron.id }))).toBe("FORBIDDEN");
    expect(errorCode(await clerk.gql(IMPORTS, { d: huron.id }))).toBe("FORBIDDEN");
    expect((await huronClerk.ok(IMPORTS, { d: huron.id })).meterReadingImports.items[0].id).toBe(imp.id);

    expect(errorCode(await anon.gql(REPORT, { id: imp.id }))).toBe("UNAUTHENTICATED");
    expect(errorCode(await applicant.gql(REPORT, { id: imp.id }))).toBe("FORBIDDEN");
    expect(errorCode(await clerk.gql(REPORT, { id: imp.id }))).toBe("NOT_FOUND");
    expect(errorCode(await operator.gql(REPORT, { id: imp.id }))).toBe("NOT_FOUND");
    expect((await huronClerk.ok(REPORT, { id: imp.id })).meterReadingImport.fileName).toBe("huron.csv");

    expect(errorCode(await anon.gql(READS, { m: h.meterId }))).toBe("UNAUTHENTICATED");
    expect(errorCode(await applicant.gql(READS, { m: h.meterId }))).toBe("FORBIDDEN");
    expect(errorCode(await clerk.gql(READS, { m: h.meterId }))).toBe("NOT_FOUND");
    expect((await huronClerk.ok(READS, { m: h.meterId })).meterReadings).toHaveLength(1);
  });
});

describe("the Clerk's readings page, without JavaScript", () => {
  const get = async (c: Client, path: string) => {
    const res = await fetch(`${srv.url}${path}`, { headers: { cookie: c.cookieHeader }, redirect: "manual" });
    return { status: res.status, html: await res.text(), cookies: res.headers.getSetCookie().map((x) => x.split(";")[0]) };
  };
  const text = (html: string) => html.replace(/<!-- -->/g, "").replace(/<[^>]+>/g, " ").replace(/&#x27;|&#39;/g, "'").replace(/&quot;/g, '"').replace(/\s+/g, " ");

  it("uploads a file, shows each bad row's line and what was wrong, and lists the import; the register links to it", async () => {
    const m = await metered(clerk, lakeview.id);
    const path = `/staff/readings?districtId=${lakeview.id}`;
    const page = await get(clerk, path);
    expect(page.status).toBe(200);
    expect(text(page.html)).toContain("Import a reading file");
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)![1];
    const body = new FormData();
    body.append("csrf", csrf);
    body.append("districtId", lakeview.id);
    body.append("file", new Blob([`meter,date,reading\n${m.meterNumber},2026-09-30,100\nNOPE-1,2026-09-30,5\n`], { type: "text/csv" }), "route-9.csv");
    const res = await fetch(`${srv.url}${path}`, { method: "POST", redirect: "manual", headers: { cookie: [clerk.cookieHeader, ...page.cookies].join("; "), origin: srv.url }, body });
    expect(res.status).toBe(302);
    const report = text((await get(clerk, res.headers.get("location")!)).html);
    expect(report).toContain("Import of route-9.csv");
    expect(report).toContain("1 row of 2 imported");
    expect(report).toContain('3 Unknown meter "NOPE-1": no meter of that number is in this district\'s register.');
    expect(report).toContain("route-9.csv");

    const empty = new FormData();
    empty.append("csrf", csrf);
    empty.append("districtId", lakeview.id);
    const refused = await fetch(`${srv.url}${path}`, { method: "POST", redirect: "manual", headers: { cookie: [clerk.cookieHeader, ...page.cookies].join("; "), origin: srv.url }, body: empty });
    expect(refused.status).toBe(400);
    expect(text(await refused.text())).toContain("Choose the reading file (CSV) to import.");

    // Staff who are not the Clerk read the history without the form; the register links here.
    const op = text((await get(operator, path)).html);
    expect(op).toContain("route-9.csv");
    expect(op).not.toContain("Import a reading file");
    expect((await get(clerk, `/staff/properties?districtId=${lakeview.id}`)).html).toContain(`href="/staff/readings?districtId=${lakeview.id}"`);
  });
});
