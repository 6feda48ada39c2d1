import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn, formatDate } from "../../api/common/dates.js";
import { loadShippedDistricts, shippedDistrictFiles } from "../../api/districts/districts.service.js";
import { RULEBOOK_KEYS } from "../../api/districts/rulebook-keys.js";
import { districtFile, type DistrictFile, type RuleEntry } from "../../api/districts/rulebook-schema.js";
import { Client, DEMO, errorCode, startTestServer, type GqlResponse, type TestServer } from "../harness.js";

// Issue 13: figures the law fixes are not the Board's to change (docs/decisions/statute-or-board-figures.md,
// docs/decisions/law-amendments-keep-board-figures.md).

const TZ = "America/New_York";
let srv: TestServer;
let ids: Record<string, string>;
const admins: Record<string, Client> = {};

beforeAll(async () => {
  srv = await startTestServer();
  const d = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`);
  ids = { lakeview: d.lakeview.id, huron: d.huron.id };
  for (const [slug, email] of [["lakeview", DEMO.lakeviewAdmin], ["huron", DEMO.huronAdmin]]) {
    admins[slug] = new Client(srv.url);
    await admins[slug].signIn(email);
  }
});
afterAll(() => srv?.close());

const ENTRY = `key label kind section source value amountCents number display sourceText boundsText resolution { number adoptedOn }
  min { value display section key } max { value display section key }`;
const RULEBOOK = `query($slug: String!, $on: String) { district(slug: $slug) { rulebook(on: $on) { version entries { ${ENTRY} } } } }`;
const CHANGE = `mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version effectiveDate } }`;

type Entry = {
  key: string;
  label: string;
  kind: string;
  section: string;
  source: "STATUTE" | "BOARD";
  value: unknown;
  display: string;
  sourceText: string;
  boundsText: string | null;
  resolution: { number: string; adoptedOn: string } | null;
  min: { value: number | null; display: string | null; section: string; key: string | null } | null;
  max: { value: number | null; display: string | null; section: string; key: string | null } | null;
};

async function entries(slug: string, on?: string): Promise<Entry[]> {
  return (await new Client(srv.url).ok(RULEBOOK, { slug, on })).district.rulebook.entries;
}
const entryIn = (list: Entry[], key: string) => {
  const e = list.find((x) => x.key === key);
  if (!e) throw new Error(`no entry ${key}`);
  return e;
};
const fields = (r: GqlResponse) => (r.errors?.[0]?.extensions?.fields ?? {}) as Record<string, string>;
const today = () => dateIn(TZ);
const resolution = (n: string) => ({ resolutionNumber: n, resolutionAdoptedOn: today() });

/** What the district has written: versions and audit entries. */
async function written(slug: string): Promise<{ versions: number; audits: number }> {
  const [{ versions }] = await srv.running.ds.query(`SELECT count(*)::int AS versions FROM rulebook_version WHERE district_id = $1`, [ids[slug]]);
  const [{ audits }] = await srv.running.ds.query(`SELECT count(*)::int AS audits FROM audit_entry WHERE district_id = $1`, [ids[slug]]);
  return { versions, audits };
}

/** Another value of the entry's kind, so that the change is a change. */
function otherValue(e: Entry): unknown {
  switch (e.kind) {
    case "boolean":
      return !e.value;
    case "text":
      return `${e.value ?? ""} (changed)`;
    case "table":
      return [];
    default:
      return typeof e.value === "number" ? e.value + 1 : 1;
  }
}

describe("every entry says where its figure comes from", () => {
  it("in both shipped files: a source for each of the rulebook's keys, and loading refuses an entry without one", () => {
    const files = shippedDistrictFiles();
    expect(files.map((f) => f.district.slug).sort()).toEqual(["huron", "lakeview"]);
    for (const f of files) {
      expect(f.rulebook.entries.map((e) => e.key).sort()).toEqual(Object.keys(RULEBOOK_KEYS).sort());
      for (const e of f.rulebook.entries) expect([f.district.slug, e.key, ["statute", "board"].includes(e.source)]).toEqual([f.district.slug, e.key, true]);
      const missing = structuredClone(f) as { rulebook: { entries: Partial<RuleEntry>[] } };
      delete missing.rulebook.entries[0].source;
      expect(districtFile.safeParse(missing).success).toBe(false);
    }
  });

  it("the figures the issue names: the law's are statute, the Town Board's are board", () => {
    const sources = Object.fromEntries(shippedDistrictFiles().map((f) => [f.district.slug, Object.fromEntries(f.rulebook.entries.map((e) => [e.key, e.source]))]));
    for (const k of ["hauler.applicationFeeMax", "lateral.fee.residential", "enforcement.petitionDays", "enforcement.fineMaxPerDay", "billing.penaltyPercent", "billing.monthlyInterestPercent"])
      expect([k, sources.lakeview[k]]).toEqual([k, "statute"]);
    for (const k of ["enforcement.fineMaxPerDay", "billing.penaltyPercent", "lateral.impactFee"]) expect([k, sources.huron[k]]).toEqual([k, "statute"]);
    for (const k of ["hauler.applicationFee", "hauler.dumpingFeePer1000Gallons", "hauler.sampleCost", "lateral.impactFee", "billing.volumeChargePer1000Gallons"])
      expect([k, sources.lakeview[k]]).toEqual([k, "board"]);
    for (const k of ["lateral.fee.residential", "lateral.fee.commercialPerSquareFoot", "billing.minimumCharge"]) expect([k, sources.huron[k]]).toEqual([k, "board"]);
  });

  it("the public rules page says which is which", async () => {
    const lv = await entries("lakeview");
    expect(entryIn(lv, "hauler.applicationFeeMax")).toMatchObject({ source: "STATUTE", sourceText: "Set by the law, Sewer Use Law 801", resolution: null, max: null });
    expect(entryIn(lv, "hauler.applicationFee")).toMatchObject({
      source: "BOARD",
      sourceText: "Set by the Town Board, within the law's cap of $100.00 (Sewer Use Law 801)",
      max: { value: 10000, display: "$100.00", section: "Sewer Use Law 801", key: "hauler.applicationFeeMax" },
    });
    // A Board figure the law leaves to the Board and the Board has not set.
    expect(entryIn(await entries("huron"), "lateral.fee.residential")).toMatchObject({ source: "BOARD", value: null, display: "Not set by the Town Board" });
  });
});

describe.each(["lakeview", "huron"])("%s: the ADMIN's editor", (slug) => {
  it("refuses a change to each figure the law sets, naming it, and writes nothing", async () => {
    const statute = (await entries(slug)).filter((e) => e.source === "STATUTE");
    expect(statute.length).toBeGreaterThan(100);
    const before = await written(slug);
    const r = await admins[slug].gql(CHANGE, {
      i: { districtId: ids[slug], effectiveDate: today(), reason: "Try the law's figures", ...resolution("2026-90"), changes: statute.map((e) => ({ key: e.key, value: otherValue(e) })) },
    });
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    const f = fields(r);
    for (const e of statute) expect([e.key, f[e.key]]).toEqual([e.key, `${e.label} is set by the law (${e.section}); it changes only when the law is amended, not here.`]);
    expect(Object.keys(f).sort()).toEqual(statute.map((e) => e.key).sort());
    expect(await written(slug)).toEqual(before);
    // One at a time too, beside an allowed Board change: the whole change is refused.
    const board = (await entries(slug)).find((e) => e.source === "BOARD" && e.kind === "money" && !e.min && !e.max)!;
    const one = await admins[slug].gql(CHANGE, {
      i: {
        districtId: ids[slug],
        effectiveDate: today(),
        reason: "Mixed",
        ...resolution("2026-91"),
        changes: [
          { key: statute[0].key, value: otherValue(statute[0]) },
          { key: board.key, value: 1234 },
        ],
      },
    });
    expect(Object.keys(fields(one))).toEqual([statute[0].key]);
    expect(await written(slug)).toEqual(before);
  });

  it("holds each bounded Board figure to the law's bound: at the limit accepted, just past it refused", async () => {
    const bounded = (await entries(slug)).filter((e) => e.source === "BOARD" && (e.min || e.max));
    expect(bounded.length).toBeGreaterThan(0);
    const step = (e: Entry) => (e.kind === "number" || e.kind === "percent" ? 0.01 : 1);
    let n = 0;
    for (const e of bounded)
      for (const [b, sign] of [
        [e.max, 1],
        [e.min, -1],
      ] as const) {
        if (!b || b.value === null) continue;
        const change = (value: number) =>
          admins[slug].gql(CHANGE, { i: { districtId: ids[slug], effectiveDate: today(), reason: `Bound of ${e.key}`, ...resolution(`2026-B${++n}`), changes: [{ key: e.key, value }] } });
        const past = await change(Math.round((b.value + sign * step(e)) * 100) / 100);
        expect([e.key, errorCode(past)]).toEqual([e.key, "BAD_USER_INPUT"]);
        expect(fields(past)[e.key]).toBe(`${e.label} may not be ${sign > 0 ? "over" : "under"} ${b.display} (${b.section}).`);
        // At the limit (or, when the figure is there already, the other side of it first).
        if (e.value === b.value) expect(errorCode(await change(b.value - sign * step(e)))).toBeUndefined();
        const at = await change(b.value);
        expect([e.key, errorCode(at)]).toEqual([e.key, undefined]);
        expect(entryIn(await entries(slug), e.key).value).toBe(b.value);
      }
  });
});

describe("a Board change cites its resolution", () => {
  const change = (extra: Record<string, unknown>) =>
    admins.lakeview.gql(CHANGE, { i: { districtId: ids.lakeview, effectiveDate: today(), reason: "Sample cost", changes: [{ key: "hauler.sampleCost", value: 7500 }], ...extra } });

  it("is refused without the resolution's number and adoption date, before its adoption, or with a resolution not yet adopted", async () => {
    const before = await written("lakeview");
    expect(Object.keys(fields(await change({}))).sort()).toEqual(["resolutionAdoptedOn", "resolutionNumber"]);
    expect(fields(await change({ resolutionNumber: "2026-14" }))).toEqual({ resolutionAdoptedOn: "Give the day the Town Board adopted the resolution." });
    const early = await change({ resolutionNumber: "2026-14", resolutionAdoptedOn: addCalendarDays(today(), -3), effectiveDate: addCalendarDays(today(), -4) });
    expect(fields(early)).toEqual({ effectiveDate: `The change cannot come into force before the resolution was adopted (${formatDate(addCalendarDays(today(), -3))}).` });
    const future = await change({ resolutionNumber: "2026-14", resolutionAdoptedOn: addCalendarDays(today(), 1), effectiveDate: addCalendarDays(today(), 5) });
    expect(Object.keys(fields(future))).toEqual(["resolutionAdoptedOn"]);
    expect(await written("lakeview")).toEqual(before);
  });

  it("with them, the rules page shows the resolution", async () => {
    const adopted = addCalendarDays(today(), -28);
    await admins.lakeview.ok(CHANGE, {
      i: { districtId: ids.lakeview, effectiveDate: today(), reason: "Sample cost", resolutionNumber: "2026-14", resolutionAdoptedOn: adopted, changes: [{ key: "hauler.sampleCost", value: 7500 }] },
    });
    const e = entryIn(await entries("lakeview"), "hauler.sampleCost");
    expect(e).toMatchObject({ value: 7500, source: "BOARD", resolution: { number: "2026-14", adoptedOn: adopted } });
    expect(e.sourceText).toBe(`Set by the Town Board, resolution 2026-14 of ${formatDate(adopted)}`);
  });
});

describe("the Board's Uni-Bell tables (SUL 505 F, G: cited by the law, not stated)", () => {
  const T = "extension.sewerVacuumTestTable";
  const change = (value: unknown, extra: Record<string, unknown> = resolution("2026-95")) =>
    admins.lakeview.gql(CHANGE, { i: { districtId: ids.lakeview, effectiveDate: today(), reason: "Uni-Bell vacuum table", changes: [{ key: T, value }], ...extra } });
  const label = "Vacuum test of sewers: time for a 0.5 psig drop (Uni-Bell table)";

  it("the ADMIN enters rows of diameter, minimum time and seconds per foot with the resolution; a row it cannot read is refused, naming it, and nothing is written", async () => {
    const before = await written("lakeview");
    expect(fields(await change([{ parameter: "8", minimum: 113.5, average: 0.38 }], {}))).toMatchObject({ resolutionNumber: expect.any(String), resolutionAdoptedOn: expect.any(String) });
    const problems: [unknown, string][] = [
      [[{ parameter: "8", minimum: 113.5, average: 0.38 }, { parameter: "8.0", minimum: 120, average: 0.4 }], "Row 2: the 8-inch diameter is in the table twice; give each diameter once."],
      [[{ parameter: "0", minimum: 113.5, average: 0.38 }], "Row 1: give the nominal pipe diameter in inches, a number greater than 0 (for example 8)."],
      [[{ parameter: "eight", minimum: 113.5, average: 0.38 }], "Row 1: give the nominal pipe diameter in inches, a number greater than 0 (for example 8)."],
      [[{ parameter: "8", minimum: 0, average: 0.38 }], "Row 1: give the minimum time in seconds, a number greater than 0 (for example 227)."],
      [[{ parameter: "8", minimum: 113.5 }], "Row 1: give the time for a longer length in seconds per foot, a number greater than 0 (for example 0.76)."],
      ["8, 113.5, 0.38", "Give the table as a list of rows."],
    ];
    for (const [value, message] of problems) expect(fields(await change(value))).toEqual({ [T]: `${label}: ${message}` });
    expect(await written("lakeview")).toEqual(before);

    await admins.lakeview.ok(CHANGE, {
      i: { districtId: ids.lakeview, effectiveDate: today(), reason: "Uni-Bell vacuum table", ...resolution("2026-95"), changes: [{ key: T, value: [{ parameter: "10", minimum: 142, average: 0.59 }, { parameter: "8", minimum: 113.5, average: 0.38 }] }] },
    });
    const e = entryIn(await entries("lakeview"), T);
    expect(e).toMatchObject({ source: "BOARD", resolution: { number: "2026-95", adoptedOn: today() } });
    // Stored by diameter, with the unit.
    expect(e.value).toEqual([
      { parameter: "8", unit: "seconds", average: 0.38, maximum: null, minimum: 113.5 },
      { parameter: "10", unit: "seconds", average: 0.59, maximum: null, minimum: 142 },
    ]);
    // The editor's columns come with the entry; the law's tables have none (read-only), nor Huron's (its law has no Article 5).
    const COLS = `query($s: String!) { district(slug: $s) { rulebook { entries { key tableColumns { field label } } } } }`;
    const cols = async (s: string) => Object.fromEntries((await new Client(srv.url).ok(COLS, { s })).district.rulebook.entries.map((x: { key: string; tableColumns: unknown }) => [x.key, x.tableColumns]));
    const lv = await cols("lakeview");
    expect(lv[T].map((c: { field: string }) => c.field)).toEqual(["parameter", "minimum", "average"]);
    expect(lv["limits.table"]).toBeNull();
    expect((await cols("huron"))[T]).toBeNull();
  });
});

describe("a new version of the law keeps the Board's figures", () => {
  it("an amendment loaded after Board changes: the Board's figures stay in force, the law's new figures apply from its date and after", async () => {
    const admin = admins.lakeview;
    const t = today();
    // The Board sets the dumping fee from today, and (adopted today too) the minimum per load from 30 days on.
    await admin.ok(CHANGE, { i: { districtId: ids.lakeview, effectiveDate: t, reason: "Dumping fee", ...resolution("2026-60"), changes: [{ key: "hauler.dumpingFeePer1000Gallons", value: 6000 }] } });
    await admin.ok(CHANGE, {
      i: { districtId: ids.lakeview, effectiveDate: addCalendarDays(t, 30), reason: "Minimum per load", ...resolution("2026-61"), changes: [{ key: "hauler.dumpingFeeMinimumPerLoad", value: 5000 }] },
    });
    // The law is amended from 10 days on: a longer petition window and a higher cap. The shipped file (as the loader reads it) is not edited: the loader gets the amended list.
    const [sul, huron] = ["lakeview", "huron"].map((s) => shippedDistrictFiles().find((f) => f.district.slug === s)!);
    const amended: DistrictFile = structuredClone(sul);
    amended.rulebook.label = "Local Law #2 of 2000, amended 2005 and 2026";
    amended.rulebook.effectiveDate = addCalendarDays(t, 10);
    for (const e of amended.rulebook.entries) {
      if (e.key === "enforcement.petitionDays") (e as { value: unknown }).value = 20;
      if (e.key === "hauler.applicationFeeMax") (e as { value: unknown }).value = 15000;
    }
    await loadShippedDistricts(srv.running.ds, [amended, huron]);

    const onLaw = await entries("lakeview", addCalendarDays(t, 10));
    expect(entryIn(onLaw, "enforcement.petitionDays").value).toBe(20);
    expect(entryIn(onLaw, "hauler.dumpingFeePer1000Gallons")).toMatchObject({ value: 6000, resolution: { number: "2026-60", adoptedOn: t } });
    expect(entryIn(onLaw, "hauler.applicationFee")).toMatchObject({ value: 10000, boundsText: "within the law's cap of $150.00 (Sewer Use Law 801)" });
    // The Board's later version now has the amendment too, and keeps its own figure.
    const later = await entries("lakeview", addCalendarDays(t, 30));
    expect([entryIn(later, "enforcement.petitionDays").value, entryIn(later, "hauler.applicationFeeMax").value]).toEqual([20, 15000]);
    expect([entryIn(later, "hauler.dumpingFeeMinimumPerLoad").value, entryIn(later, "hauler.dumpingFeePer1000Gallons").value]).toEqual([5000, 6000]);
    // Before the amendment, the law as it was.
    expect(entryIn(await entries("lakeview", t), "enforcement.petitionDays").value).toBe(15);
    // Loading the same files again writes nothing.
    const before = await written("lakeview");
    await loadShippedDistricts(srv.running.ds, [amended, huron]);
    expect(await written("lakeview")).toEqual(before);
    // The raised cap: the Board may now go to $150.00, not past it.
    const over = await admin.gql(CHANGE, {
      i: { districtId: ids.lakeview, effectiveDate: addCalendarDays(t, 10), reason: "Fee", ...resolution("2026-62"), changes: [{ key: "hauler.applicationFee", value: 15001 }] },
    });
    expect(fields(over)["hauler.applicationFee"]).toBe(`${entryIn(onLaw, "hauler.applicationFee").label} may not be over $150.00 (Sewer Use Law 801).`);
  });

  it("a key the shipped file adds reaches the ADMIN versions effective after the law's date (as lateral.plansRequired did)", async () => {
    // A database loaded before the key existed: no version has it, and the stored law is an older file.
    await srv.running.ds.query(
      `UPDATE rulebook_version SET entries = (SELECT jsonb_agg(e ORDER BY n) FROM jsonb_array_elements(entries) WITH ORDINALITY AS x(e, n) WHERE e->>'key' <> 'lateral.plansRequired'),
              source_hash = CASE WHEN source_hash IS NULL THEN NULL ELSE 'an older file' END
        WHERE district_id = $1`,
      [ids.huron],
    );
    const t = today();
    await admins.huron.ok(CHANGE, {
      i: { districtId: ids.huron, effectiveDate: addCalendarDays(t, 5), reason: "Rent schedule", ...resolution("2026-70"), changes: [{ key: "billing.minimumCharge", value: 4500 }] },
    });
    const { versions } = await written("huron");
    await loadShippedDistricts(srv.running.ds, shippedDistrictFiles().filter((f) => f.district.slug === "huron"));
    // The law, and the law carried into the Board's versions effective after it (today's, from the tests above, and the one in 5 days).
    expect((await written("huron")).versions).toBe(versions + 3);
    for (const on of [t, addCalendarDays(t, 5)]) expect(entryIn(await entries("huron", on), "lateral.plansRequired")).toMatchObject({ value: false, source: "BOARD" });
    expect(entryIn(await entries("huron", addCalendarDays(t, 5)), "billing.minimumCharge")).toMatchObject({ value: 4500, resolution: { number: "2026-70" } });
    expect(entryIn(await entries("huron", t), "billing.minimumCharge").value).toBe(null);
  });
});
