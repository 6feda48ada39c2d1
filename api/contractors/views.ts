import { In } from "typeorm";
import { dateIn, type CalendarDate } from "../common/dates.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { COVERAGES, coverageLabel, type ContractorStatus, type Coverage, type Db } from "./common.js";
import { checkAgainstMinimums, contractorStanding, renewedFiling, type ContractorStanding, type FiledApplication, type Finding } from "./rules.js";

/** A contractor as its readers see it: the filing, its findings against the rulebook in force today, its standing and its latest renewal. */

export type InsuranceView = {
  coverage: Coverage;
  label: string;
  insurer: string;
  policyNumber: string;
  limitCents: number | null;
  expiresOn: CalendarDate;
  certificateDocumentId: string;
  certificateFilename: string;
};

export const RENEWAL_STATUSES = ["PENDING", "ACCEPTED", "REJECTED"] as const;
export type RenewalStatus = (typeof RENEWAL_STATUSES)[number];

/** A renewed bond and/or renewed certificates filed by an approved contractor. */
export type RenewalView = {
  id: string;
  status: RenewalStatus;
  bond: { amountCents: number; expiresOn: CalendarDate; documentId: string; documentFilename: string } | null;
  insurance: InsuranceView[];
  /** Shortfalls of the filing as it would be once accepted (the renewed items over the ones on file), against the rulebook in force today. */
  findings: Finding[];
  decisionReason: string | null;
  decidedAt: Date | null;
  filedAt: Date;
};

export type ContractorView = {
  id: string;
  organizationId: string;
  districtId: string;
  status: ContractorStatus;
  bondAmountCents: number;
  bondExpiresOn: CalendarDate;
  bondDocumentId: string;
  bondDocumentFilename: string;
  rulebookVersionId: string;
  decidedById: string | null;
  decidedAt: Date | null;
  decisionReason: string | null;
  suspendedReason: string | null;
  createdAt: Date;
  updatedAt: Date;
  insurance: InsuranceView[];
  /** Shortfalls against the rulebook in force today in the district. */
  findings: Finding[];
  standing: ContractorStanding;
  /** The latest renewal filed while approved (waiting, or the last decided), if any. */
  renewal: RenewalView | null;
  /** The calendar date in the district's zone the findings and standing were worked out for. */
  today: CalendarDate;
};

export const SELECT_CONTRACTORS = `
  SELECT c.id, c.organization_id AS "organizationId", c.district_id AS "districtId", c.status,
         c.bond_amount_cents::text AS "bondAmountCents", c.bond_expires_on::text AS "bondExpiresOn",
         c.bond_document_id AS "bondDocumentId", bd.filename AS "bondDocumentFilename",
         c.rulebook_version_id AS "rulebookVersionId", c.decided_by_id AS "decidedById", c.decided_at AS "decidedAt",
         c.decision_reason AS "decisionReason", c.suspended_reason AS "suspendedReason",
         c.created_at AS "createdAt", c.updated_at AS "updatedAt",
         coalesce((SELECT json_agg(json_build_object(
                     'coverage', i.coverage, 'insurer', i.insurer, 'policyNumber', i.policy_number,
                     'limitCents', i.limit_cents::text, 'expiresOn', i.expires_on::text,
                     'certificateDocumentId', i.certificate_document_id, 'certificateFilename', cd.filename))
                     FROM contractor_insurance i JOIN document cd ON cd.id = i.certificate_document_id
                    WHERE i.contractor_id = c.id), '[]'::json) AS insurance,
         (SELECT json_build_object(
                   'id', r.id, 'status', r.status, 'bondAmountCents', r.bond_amount_cents::text, 'bondExpiresOn', r.bond_expires_on::text,
                   'bondDocumentId', r.bond_document_id, 'bondDocumentFilename', rd.filename, 'insurance', r.insurance,
                   'filenames', (SELECT json_object_agg(d.id, d.filename) FROM document d
                                  WHERE d.id IN (SELECT (e->>'certificateDocumentId')::uuid FROM jsonb_array_elements(r.insurance) e)),
                   'decisionReason', r.decision_reason, 'decidedAt', r.decided_at, 'filedAt', r.created_at)
            FROM contractor_renewal r LEFT JOIN document rd ON rd.id = r.bond_document_id
           WHERE r.contractor_id = c.id ORDER BY r.created_at DESC, r.id DESC LIMIT 1) AS renewal
    FROM contractor c JOIN document bd ON bd.id = c.bond_document_id`;

export type RenewedInsurance = { coverage: Coverage; insurer: string; policyNumber: string; limitCents: number | null; expiresOn: CalendarDate; certificateDocumentId: string };
type RenewalRow = {
  id: string;
  status: RenewalStatus;
  bondAmountCents: string | null;
  bondExpiresOn: CalendarDate | null;
  bondDocumentId: string | null;
  bondDocumentFilename: string | null;
  insurance: RenewedInsurance[];
  filenames: Record<string, string> | null;
  decisionReason: string | null;
  decidedAt: string | null;
  filedAt: string;
};
type Row = Omit<ContractorView, "bondAmountCents" | "insurance" | "findings" | "standing" | "today" | "renewal"> & {
  bondAmountCents: string;
  renewal: RenewalRow | null;
  insurance: (Omit<InsuranceView, "limitCents" | "label"> & { limitCents: string | null })[];
};

/** Rows to views, with findings and standing against each district's rulebook in force today: one rulebook lookup per district. */
export async function present(db: Db, rows: Row[]): Promise<ContractorView[]> {
  if (!rows.length) return [];
  const districtIds = [...new Set(rows.map((r) => r.districtId))];
  const districts = await db.getRepository(District).findBy({ id: In(districtIds) });
  const context = new Map<string, { today: CalendarDate; rulebook: Rulebook }>();
  for (const d of districts) {
    const today = dateIn(d.timeZone);
    context.set(d.id, { today, rulebook: await rulebookOn(db, d, today) });
  }
  return rows.map((r) => {
    const { today, rulebook } = context.get(r.districtId)!;
    const insurance: InsuranceView[] = r.insurance
      .map((i) => ({ ...i, label: coverageLabel(i.coverage), limitCents: i.limitCents === null ? null : Number(i.limitCents) }))
      .sort((a, b) => COVERAGES.indexOf(a.coverage) - COVERAGES.indexOf(b.coverage));
    const view = { ...r, bondAmountCents: Number(r.bondAmountCents), insurance, today, renewal: null };
    return { ...view, findings: checkAgainstMinimums(rulebook, view, today), standing: contractorStanding(view, today), renewal: presentRenewal(r.renewal, view, rulebook, today) };
  });
}

export function presentRenewal(r: RenewalRow | null, current: FiledApplication, rulebook: Rulebook, today: CalendarDate): RenewalView | null {
  if (!r) return null;
  const bondAmountCents = r.bondAmountCents === null ? null : Number(r.bondAmountCents);
  const insurance: InsuranceView[] = r.insurance
    .map((i) => ({ ...i, label: coverageLabel(i.coverage), certificateFilename: r.filenames?.[i.certificateDocumentId] ?? "" }))
    .sort((a, b) => COVERAGES.indexOf(a.coverage) - COVERAGES.indexOf(b.coverage));
  return {
    id: r.id,
    status: r.status,
    bond:
      bondAmountCents === null
        ? null
        : { amountCents: bondAmountCents, expiresOn: r.bondExpiresOn!, documentId: r.bondDocumentId!, documentFilename: r.bondDocumentFilename ?? "" },
    insurance,
    findings: checkAgainstMinimums(rulebook, renewedFiling(current, { bondAmountCents, bondExpiresOn: r.bondExpiresOn, insurance }), today),
    decisionReason: r.decisionReason,
    decidedAt: r.decidedAt === null ? null : new Date(r.decidedAt),
    filedAt: new Date(r.filedAt),
  };
}

export async function loadViews(db: Db, where: string, params: unknown[], order = `c.created_at DESC, c.id`): Promise<ContractorView[]> {
  return present(db, await db.query(`${SELECT_CONTRACTORS} WHERE ${where} ORDER BY ${order}`, params));
}

