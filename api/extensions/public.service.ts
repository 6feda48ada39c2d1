import type { DataSource } from "typeorm";
import { dateIn } from "../common/dates.js";
import { notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { CHARGE_LABELS, type ChargeKind } from "./charges.service.js";
import { num } from "./rules.js";

/**
 * What the public sees of sewer extensions (SUL Article 13). 1301: "It shall be the policy of the
 * Town Board to conduct all business with full disclosure to the public." 1302: "The nature and
 * requirements of all formal procedures for applying for a permit ... shall be ... made available to
 * any resident of the Town upon request." 1303: "such orders, statements of policy, and
 * interpretations used by the Town in administration of this Law" are available for public
 * inspection, and no rule, regulation or civil order is valid until it has been. So: the procedure
 * with the law's figures in force, and the Town Board's resolutions on extensions (capacity
 * committed and released, charges set, sewers accepted). Not the applications under review, the
 * developers' documents or the staff's ledger figures: they are neither procedures nor orders
 * (docs/decisions/extension-public-record.md). Signed out; Huron's law has no such article.
 */

export type ProcedureStep = { text: string; section: string };
export type PublicCommitment = { lineName: string; lineKind: string; committedTo: string; flowGpd: number; resolutionNumber: string; resolutionAdoptedOn: string; expiresOn: string | null; releasedOn: string | null; releaseResolutionNumber: string | null; inForce: boolean };
export type PublicCharge = { extensionName: string; kind: string; label: string; amountCents: number; amount: string; resolutionNumber: string; resolutionAdoptedOn: string };
export type PublicAcceptance = { name: string; location: string; developer: string; acceptedOn: string; resolutionNumber: string; guaranteeEndsOn: string };
export type PublicRecord = {
  districtId: string;
  districtName: string;
  provided: boolean;
  section: string;
  procedure: ProcedureStep[];
  committedByLine: { lineName: string; lineKind: string; committedGpd: number }[];
  commitments: PublicCommitment[];
  charges: PublicCharge[];
  accepted: PublicAcceptance[];
};

function procedure(rb: Rulebook, prefix: string): ProcedureStep[] {
  const s = (n: string) => `${prefix} ${n}`;
  const v = (k: Parameters<Rulebook["entry"]>[0]) => rb.entry(k);
  const notice = v("extension.constructionNoticeDays");
  const gravity = v("extension.minGravityDiameterInches");
  const lowPressure = v("extension.minLowPressureDiameterInches");
  const leak = v("extension.maxLeakageGallonsPerInchMile");
  const sectionFeet = v("extension.maxTestSectionFeet");
  const period = v("extension.minTestPeriodHours");
  const copies = v("extension.asBuiltCopies");
  const years = v("extension.guaranteeYears");
  return [
    { text: "A developer applies in the portal as a developer organization: the project, lots, design flow, the receiving sewer and the plant, the pipe, the licensed design professional, the plans and specifications.", section: s("501, 502 A, 502 C") },
    { text: "The design is by a professional licensed in the State, to the Ten State Standards and NYSDEC's requirements, and allows for future flows in the immediate drainage area; the State's written approval is filed as well.", section: s("501") },
    { text: `Gravity sewers are at least ${num(Number(gravity.value))} inches across inside, low-pressure sewers ${num(Number(lowPressure.value))}; PVC to the listed specifications, other materials with the District Operator's written approval.`, section: gravity.section },
    { text: "The District Operator approves or denies. An application is denied when the receiving sewer or the plant lacks capacity: current use is present use plus capacity the Town Board has committed by resolution.", section: s("501") },
    { text: "The developer pays the entire installation and the proportionate share and inspection fees the Town Board sets by resolution; inspection fees before construction starts.", section: s("502 A") },
    { text: `The District Operator is told ${num(Number(notice.value))} days before construction starts; construction is inspected periodically without prior notice, and the findings are reported to the Town Board.`, section: notice.section },
    { text: `Each section is tested: leakage at most ${num(Number(leak.value))} gallons per 24 hours per mile per inch of nominal diameter, sections of at most ${num(Number(sectionFeet.value))} feet, tested at least ${num(Number(period.value))} hours; or by deflection, air or vacuum tests. No building lateral is connected until the sewer has passed.`, section: s("502 A, 505 A-G") },
    { text: `${num(Number(copies.value))} copies of the as-built drawings are filed and approved; the District Operator accepts the sewer and the Town Board concurs; it is then the Town's.`, section: copies.section },
    { text: `The developer guarantees the sewer against defects in materials or workmanship for ${num(Number(years.value))} year${Number(years.value) === 1 ? "" : "s"} after the Town's acceptance, secured by a surety bond or other security the Town Board approves.`, section: years.section },
  ];
}

/** The public record of a district's sewer extensions (anyone, signed out): four queries whatever the rows. */
export async function publicRecord(ds: DataSource, slug: string): Promise<PublicRecord> {
  const district = await ds.getRepository(District).findOneBy({ slug: String(slug ?? "").slice(0, 100) });
  if (!district) throw notFound("That district");
  const rb = await rulebookOn(ds, district);
  const provided = rb.enabled("extension.provided");
  const base = { districtId: district.id, districtName: district.name, provided, section: rb.entry("extension.provided").section };
  if (!provided) return { ...base, procedure: [], committedByLine: [], commitments: [], charges: [], accepted: [] };
  const today = dateIn(district.timeZone);
  const commitments: PublicCommitment[] = await ds.query(
    `SELECT s.name AS "lineName", s.kind AS "lineKind", c.committed_to AS "committedTo", c.flow_gpd AS "flowGpd", c.resolution_number AS "resolutionNumber",
            to_char(c.resolution_adopted_on, 'YYYY-MM-DD') AS "resolutionAdoptedOn", to_char(c.expires_on, 'YYYY-MM-DD') AS "expiresOn",
            to_char(c.released_on, 'YYYY-MM-DD') AS "releasedOn", c.release_resolution_number AS "releaseResolutionNumber",
            (c.resolution_adopted_on <= $2 AND (c.released_on IS NULL OR c.released_on > $2) AND (c.expires_on IS NULL OR c.expires_on > $2)) AS "inForce"
       FROM capacity_commitment c JOIN sewer_capacity s ON s.id = c.capacity_id
      WHERE s.district_id = $1 AND c.resolution_adopted_on <= $2 ORDER BY s.kind DESC, s.name, c.resolution_adopted_on, c.recorded_at`,
    [district.id, today],
  );
  const charges: { extensionName: string; kind: ChargeKind; amountCents: number; resolutionNumber: string; resolutionAdoptedOn: string }[] = await ds.query(
    `SELECT e.name AS "extensionName", c.kind, c.amount_cents::float8 AS "amountCents", c.resolution_number AS "resolutionNumber", to_char(c.resolution_adopted_on, 'YYYY-MM-DD') AS "resolutionAdoptedOn"
       FROM extension_charge c JOIN sewer_extension e ON e.id = c.extension_id WHERE e.district_id = $1 ORDER BY c.resolution_adopted_on DESC, c.set_at DESC`,
    [district.id],
  );
  const accepted: PublicAcceptance[] = await ds.query(
    `SELECT e.name, e.location, o.name AS developer, to_char(e.accepted_on, 'YYYY-MM-DD') AS "acceptedOn", e.acceptance_resolution_number AS "resolutionNumber",
            to_char(e.guarantee_ends_on, 'YYYY-MM-DD') AS "guaranteeEndsOn"
       FROM sewer_extension e JOIN organization o ON o.id = e.organization_id WHERE e.district_id = $1 AND e.accepted_on IS NOT NULL ORDER BY e.accepted_on DESC, e.id DESC`,
    [district.id],
  );
  const byLine = new Map<string, { lineName: string; lineKind: string; committedGpd: number }>();
  for (const c of commitments) {
    const key = `${c.lineKind}\u0000${c.lineName}`;
    const line = byLine.get(key) ?? byLine.set(key, { lineName: c.lineName, lineKind: c.lineKind, committedGpd: 0 }).get(key)!;
    if (c.inForce) line.committedGpd += c.flowGpd;
  }
  return {
    ...base,
    procedure: procedure(rb, district.citationPrefix),
    committedByLine: [...byLine.values()],
    commitments,
    charges: charges.map((c) => ({ ...c, label: CHARGE_LABELS[c.kind], amount: formatCents(c.amountCents) })),
    accepted,
  };
}
