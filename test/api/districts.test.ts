import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, DEMO, errorCode, startTestServer, type TestServer } from "../harness.js";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const RULEBOOK = `query($slug: String!, $on: String) { district(slug: $slug) { id name timeZone citationPrefix rulebook(on: $on) { version effectiveDate entries { key label section display amountCents applies rows { parameter average maximum } } } } }`;

function entry(d: any, key: string) {
  const e = d.district.rulebook.entries.find((x: any) => x.key === key);
  if (!e) throw new Error(`no entry ${key}`);
  return e;
}

describe("districts and rulebooks (public)", () => {
  it("lists both shipped districts to anyone, signed out", async () => {
    const c = new Client(srv.url);
    const d = await c.ok(`{ districts { slug name lawName timeZone } }`);
    expect(d.districts.map((x: any) => x.slug).sort()).toEqual(["huron", "lakeview"]);
    expect(d.districts.every((x: any) => x.timeZone === "America/New_York")).toBe(true);
  });

  it("gives the Sewer Use Law district its figures with their sections", async () => {
    const d = await new Client(srv.url).ok(RULEBOOK, { slug: "lakeview" });
    expect(entry(d, "lateral.fee.residential")).toMatchObject({ amountCents: 15000, display: "$150.00", section: "Sewer Use Law 1212" });
    expect(entry(d, "lateral.fee.commercialPerSquareFoot").amountCents).toBe(50);
    expect(entry(d, "lateral.asBuiltDepositPerSheet").amountCents).toBe(10000);
    expect(entry(d, "contractor.bondAmount").amountCents).toBe(500000);
    expect(entry(d, "enforcement.fineMinPerDay").amountCents).toBe(25000);
    expect(entry(d, "enforcement.fineMaxPerDay").amountCents).toBe(100000);
    expect(entry(d, "enforcement.petitionDays").display).toMatch(/^15 /);
    expect(entry(d, "billing.penaltyPercent").display).toBe("20%");
    const limits = entry(d, "limits.table").rows;
    expect(limits.find((r: any) => r.parameter.startsWith("Cadmium"))).toMatchObject({ average: 0.04, maximum: 0.05 });
    expect(limits.find((r: any) => r.parameter.startsWith("Zinc"))).toMatchObject({ average: 1.2, maximum: 1.6 });
  });

  it("gives Huron its own rulebook, side by side", async () => {
    const d = await new Client(srv.url).ok(RULEBOOK, { slug: "huron" });
    expect(d.district.citationPrefix).toBe("Huron");
    expect(entry(d, "enforcement.fineMaxPerDay").amountCents).toBe(20000);
    expect(entry(d, "billing.penaltyPercent").display).toBe("10%");
    expect(entry(d, "billing.lateAfterDays").display).toMatch(/^30 /);
    expect(entry(d, "hauler.licensingEnabled").applies).toBe(false);
    expect(entry(d, "hauler.specialPermissionEnabled").applies).toBe(true);
    const zinc = entry(d, "limits.table").rows.find((r: any) => /zinc/i.test(r.parameter));
    expect(zinc).toMatchObject({ average: 2, maximum: 6 });
  });

  it("refuses a date that is not a calendar date, and a rulebook before the first version", async () => {
    const c = new Client(srv.url);
    expect(errorCode(await c.gql(RULEBOOK, { slug: "lakeview", on: "2026-02-30" }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await c.gql(RULEBOOK, { slug: "lakeview", on: "1990-01-01" }))).toBe("NOT_FOUND");
    expect(errorCode(await c.gql(RULEBOOK, { slug: "nowhere" }))).toBe("NOT_FOUND");
  });
});

describe("ADMIN changes a district's settings", () => {
  const CHANGE = `mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version effectiveDate entries { key amountCents } } }`;

  it("makes a new version in force from its date, keeps the old one for earlier dates, and audits it", async () => {
    const admin = new Client(srv.url);
    await admin.signIn(DEMO.lakeviewAdmin);
    const { district } = await admin.ok(`{ district(slug: "lakeview") { id } }`);
    const r = await admin.ok(CHANGE, {
      i: {
        districtId: district.id,
        effectiveDate: "2027-01-01",
        reason: "Board resolution 2026-41 sets an impact fee",
        resolutionNumber: "2026-41",
        resolutionAdoptedOn: "2026-11-03",
        changes: [{ key: "lateral.impactFee", value: 17500 }],
      },
    });
    expect(r.changeRulebook.version).toBe(2);
    const pub = new Client(srv.url);
    expect(entry(await pub.ok(RULEBOOK, { slug: "lakeview", on: "2027-01-01" }), "lateral.impactFee").amountCents).toBe(17500);
    expect(entry(await pub.ok(RULEBOOK, { slug: "lakeview", on: "2026-12-31" }), "lateral.impactFee").amountCents).toBe(null);

    const log = await admin.ok(`query($f: AuditFilter!) { auditLog(filter: $f) { entries { action reason actorName details } } }`, {
      f: { districtId: district.id, action: "rulebook.changed" },
    });
    expect(log.auditLog.entries[0]).toMatchObject({ action: "rulebook.changed", reason: "Board resolution 2026-41 sets an impact fee", actorName: "Ada Admin (Lakeview)" });
    expect(log.auditLog.entries[0].details.changes).toEqual([{ key: "lateral.impactFee", from: null, to: 17500 }]);
    expect(log.auditLog.entries[0].details.resolution).toEqual({ number: "2026-41", adoptedOn: "2026-11-03" });
  });

  it("rejects bad values per field and changes nothing", async () => {
    const admin = new Client(srv.url);
    await admin.signIn(DEMO.lakeviewAdmin);
    const { district } = await admin.ok(`{ district(slug: "lakeview") { id rulebookVersions { version } } }`);
    const before = district.rulebookVersions.length;
    const r = await admin.gql(CHANGE, {
      i: {
        districtId: district.id,
        effectiveDate: "2027-02-01",
        reason: "typo test",
        resolutionNumber: "2026-42",
        resolutionAdoptedOn: "2026-11-03",
        changes: [{ key: "lateral.impactFee", value: -5 }, { key: "no.such.key", value: 1 }],
      },
    });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(Object.keys(r.errors![0].extensions!.fields!).sort()).toEqual(["lateral.impactFee", "no.such.key"]);
    const after = await admin.ok(`{ district(slug: "lakeview") { rulebookVersions { version } } }`);
    expect(after.district.rulebookVersions.length).toBe(before);
  });

  it("lets only that district's ADMIN change it", async () => {
    const { district } = await new Client(srv.url).ok(`{ district(slug: "lakeview") { id } }`);
    const input = {
      i: { districtId: district.id, effectiveDate: "2027-03-01", reason: "x", resolutionNumber: "2026-43", resolutionAdoptedOn: "2026-11-03", changes: [{ key: "lateral.impactFee", value: 1 }] },
    };
    const huronAdmin = new Client(srv.url);
    await huronAdmin.signIn(DEMO.huronAdmin);
    expect(errorCode(await huronAdmin.gql(CHANGE, input))).toBe("FORBIDDEN");
    const clerk = new Client(srv.url);
    await clerk.signIn(DEMO.lakeviewClerk);
    expect(errorCode(await clerk.gql(CHANGE, input))).toBe("FORBIDDEN");
    expect(errorCode(await new Client(srv.url).gql(CHANGE, input))).toBe("UNAUTHENTICATED");
  });
});
