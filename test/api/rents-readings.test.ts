import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyPeriods, periodConsumption } from "../../api/rents/consumption.js";
import { Client, DEMO, countStatements, startTestServer, type TestServer, signedInAs } from "../harness.js";

/**
 * Meter readings (issue 14): what the bill runs read (periodConsumption, SUL 1205; Huron VI-2's
 * shared meter), the CSV import with its report, and who may see and do what.
 */

let srv: TestServer;
let lakeview: { id: string };
let huron: { id: string };
let clerk: Client;
let huronClerk: Client;
const db = () => srv.running.ds;

beforeAll(async () => {
  srv = await startTestServer();
  ({ lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`));
  [clerk, huronClerk] = await Promise.all([DEMO.lakeviewClerk, DEMO.huronClerk].map((e) => signedInAs(srv.url, e)));
});
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
    expect(forOne).toBe(2);
    expect(forMany).toBe(forOne);
    const map = await periodConsumption(db(), [...ids, "00000000-0000-4000-8000-000000000000"], "2026-10-01", "2026-12-31");
    expect(map.get("00000000-0000-4000-8000-000000000000")).toMatchObject({ noRead: true, gallons: 0 });
    expect(map.get(ids[11])).toMatchObject({ gallons: 300, shared: true });
  });
});
