import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, DEMO, errorCode, startTestServer, type GqlResponse, type TestServer } from "../harness.js";

/**
 * Every list that takes `first` checks it: a page size out of range is BAD_USER_INPUT naming
 * `first` (never a 500 from a negative LIMIT, nor every row for 0). The lists are found in the
 * schema, so a new one is checked too.
 */

let srv: TestServer;
const callers: Record<string, Client> = {};
let lakeview: string;
let meterId: string;
let billRunId: string;
let haulerOrg: string;

beforeAll(async () => {
  srv = await startTestServer();
  for (const [name, email] of Object.entries({
    applicant: DEMO.applicant,
    admin: DEMO.lakeviewAdmin,
    clerk: DEMO.lakeviewClerk,
    operator: DEMO.lakeviewOperator,
    board: DEMO.lakeviewBoard,
  })) {
    callers[name] = new Client(srv.url);
    await callers[name].signIn(email);
  }
  lakeview = (await callers.admin.ok(`{ districts { id slug } }`)).districts.find((d: any) => d.slug === "lakeview").id;
  // A meter on a property of the register, for the list of its reads.
  const property = (await callers.clerk.ok(`mutation($i: SewerPropertyInput!) { addSewerProperty(input: $i) { id } }`, { i: { districtId: lakeview, taxParcel: "90.1-1-1", streetNumber: "1", street: "Page Lane", zip: "13600", ownerName: "Page Owner", ownerSince: "2020-01-01" } })).addSewerProperty;
  const account = (await callers.clerk.ok(`mutation($i: OpenServiceAccountInput!) { openServiceAccount(input: $i) { id } }`, { i: { propertyId: property.id, class: "RESIDENTIAL", occupantName: "Page Occupant", openedOn: "2024-01-01" } })).openServiceAccount;
  meterId = (await callers.clerk.ok(`mutation($i: AddServiceMeterInput!) { addServiceMeter(input: $i) { meters { id } } }`, { i: { accountId: account.id, meterNumber: "PAGE-1", installedOn: "2020-01-01" } })).addServiceMeter.meters[0].id;
  // A bill run's preview, for the list of its bills (SUL 1203: the Board's figures first).
  await callers.admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
    i: { districtId: lakeview, effectiveDate: "2026-01-01", reason: "Sewer rent schedule 2026", resolutionNumber: "2025-88", resolutionAdoptedOn: "2025-12-15", changes: [{ key: "billing.fixedCostsPerYear", value: 12_000_000 }, { key: "billing.volumeChargePer1000Gallons", value: 650 }] },
  });
  billRunId = (await callers.clerk.ok(`mutation($i: PreviewBillRunInput!) { previewBillRun(input: $i) { id } }`, { i: { districtId: lakeview, cycle: "OTHER", periodStart: "2026-01-01" } })).previewBillRun.id;
  haulerOrg = (await callers.applicant.ok(`mutation { createOrganization(input: { name: "Page Size Hauling", kind: "HAULER" }) { id } }`)).createOrganization.id;
});
afterAll(() => srv?.close());

/** The largest page of the lists that allow fewer than 200 rows. */
// districtStripePayouts: a page of Stripe's payouts.list, whose limit is 100.
const MAX: Record<string, number> = { lateralPermitQueue: 100, stationDaySheet: 100, myEmails: 100, districtSewerExtensions: 100, meterReadingImports: 100, districtInflowInspections: 100, districtSepticSystems: 100, districtStripePayouts: 100 };

type List = { field: string; call: (c: Client, first: number) => Promise<GqlResponse> };

/** Every Query field with a `first` argument, or an input argument with a `first` field, with its other required arguments filled. */
async function lists(): Promise<List[]> {
  const T = `name kind ofType { name kind ofType { name kind } }`;
  const schema = (
    await callers.admin.ok(`{ __schema { queryType { fields { name args { name type { ${T} } } } } types { name kind inputFields { name type { ${T} } } } } }`)
  ).__schema;
  const inputs = new Map<string, { name: string; type: any }[]>(schema.types.filter((t: any) => t.kind === "INPUT_OBJECT").map((t: any) => [t.name, t.inputFields]));
  const named = (t: any): string => (t.name ?? named(t.ofType));
  const required = (t: any) => t.kind === "NON_NULL";
  const value = (name: string): unknown => {
    if (name === "districtId") return lakeview;
    if (name === "organizationId") return haulerOrg;
    if (name === "view") return "RECEIVED";
    if (name === "meterId") return meterId;
    if (name === "runId") return billRunId;
    throw new Error(`list-page-size.test: no value for the required argument ${name}`);
  };
  const out: List[] = [];
  for (const f of schema.queryType.fields) {
    const direct = f.args.find((a: any) => a.name === "first");
    const viaInput = f.args.find((a: any) => inputs.get(named(a.type))?.some((x) => x.name === "first"));
    if (!direct && !viaInput) continue;
    const others = f.args.filter((a: any) => a !== direct && a !== viaInput && required(a.type));
    const decl = others.map((a: any) => `$${a.name}: ${named(a.type)}!`);
    const pass = others.map((a: any) => `${a.name}: $${a.name}`);
    const vars = () => Object.fromEntries(others.map((a: any) => [a.name, value(a.name)]));
    if (direct) {
      const q = `query(${["$first: Int", ...decl].join(", ")}) { ${f.name}(${["first: $first", ...pass].join(", ")}) { __typename } }`;
      out.push({ field: f.name, call: (c, first) => c.gql(q, { ...vars(), first }) });
    } else {
      const input = inputs.get(named(viaInput.type))!;
      const inner = input.filter((x) => required(x.type));
      const q = `query($input: ${named(viaInput.type)}!) { ${f.name}(${viaInput.name}: $input) { __typename } }`;
      out.push({ field: f.name, call: (c, first) => c.gql(q, { input: { ...Object.fromEntries(inner.map((x) => [x.name, value(x.name)])), first } }) });
    }
  }
  return out;
}

/** Someone allowed to read the list: the first caller whose `first: 1` is answered. */
async function reader(list: List): Promise<Client> {
  for (const c of Object.values(callers)) {
    const r = await list.call(c, 1);
    if (!r.errors?.length) return c;
    expect(errorCode(r), `${list.field}(first: 1): ${r.errors[0].message}`).toMatch(/^(FORBIDDEN|NOT_FOUND|UNAUTHENTICATED)$/);
  }
  throw new Error(`no demo account may read ${list.field}`);
}

describe("a list's page size (first)", () => {
  it("is BAD_USER_INPUT naming first when out of range, on every list", async () => {
    const all = await lists();
    expect(all.map((l) => l.field)).toEqual(expect.arrayContaining(["districtOutbox", "myEmails", "auditLog", "districtPayments", "lateralPermitQueue", "haulerLoads"]));
    const wrong: string[] = [];
    for (const list of all) {
      const c = await reader(list);
      const max = MAX[list.field] ?? 200;
      expect((await list.call(c, max)).errors, `${list.field}(first: ${max})`).toBeUndefined();
      for (const first of [-5, 0, max + 1, 2_000_000_000]) {
        const r = await list.call(c, first);
        const fields = Object.keys(r.errors?.[0]?.extensions?.fields ?? {});
        if (r.status >= 500 || errorCode(r) !== "BAD_USER_INPUT" || !fields.some((f) => f === "first" || f.endsWith(".first")))
          wrong.push(`${list.field}(first: ${first}) → ${r.status} ${errorCode(r)} ${JSON.stringify(r.errors?.[0]?.extensions?.fields ?? r.errors?.[0]?.message)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("districtOutbox(first: -5) says what to ask for", async () => {
    const r = await callers.clerk.gql(`query($d: ID!) { districtOutbox(districtId: $d, first: -5) { id } }`, { d: lakeview });
    expect(r.status).toBe(200);
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(r.errors![0].message).toBe("first must be a whole number from 1 to 200.");
    expect(r.errors![0].extensions!.fields).toEqual({ first: "Ask for 1 to 200 at a time." });
  });
});
