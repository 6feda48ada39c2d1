import { In, type DataSource, type EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit, type Actor } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, daysBetween, daysLeft, formatDate, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { getDistrict, rulebookOn, type Rulebook } from "../districts/districts.service.js";
import type { RulebookKey } from "../districts/rulebook-keys.js";
import { isUuid, registerDocumentAccess } from "../documents/documents.service.js";
import { registerJobHandler } from "../jobs/queue.js";
import { membershipOf } from "../organizations/organizations.service.js";
import { enqueueEmail } from "../outbox/outbox.service.js";

/**
 * Approved contractors. A district that keeps a list of approved contractors for new users
 * (SUL 601 A) lists contracting firms whose bond and insurance certificates (SUL 508) its Clerk has
 * checked against the minimums of the district's rulebook. Every figure comes from the rulebook
 * (`contractor.*` keys); nothing here is a constant of the law.
 */

type Db = DataSource | EntityManager;

export const CONTRACTOR_STATUSES = ["APPLIED", "APPROVED", "REJECTED", "SUSPENDED"] as const;
export type ContractorStatus = (typeof CONTRACTOR_STATUSES)[number];

export const COVERAGES = [
  "WORKERS_COMPENSATION",
  "PERSONAL_INJURY_PER_OCCURRENCE",
  "PERSONAL_INJURY_AGGREGATE",
  "PROPERTY_DAMAGE",
  "AUTO_BODILY_INJURY_PER_PERSON",
  "AUTO_BODILY_INJURY_PER_OCCURRENCE",
  "AUTO_PROPERTY_DAMAGE",
  "EXCESS_LIABILITY",
] as const;
export type Coverage = (typeof COVERAGES)[number];

/** The rulebook entry that sets each coverage (SUL 508(2)): a boolean (required) or a minimum in cents. */
export const COVERAGE_RULES: Record<Coverage, { key: RulebookKey; label: string }> = {
  WORKERS_COMPENSATION: { key: "contractor.insurance.workersCompensationRequired", label: "Workers' compensation and employer's liability" },
  PERSONAL_INJURY_PER_OCCURRENCE: { key: "contractor.insurance.personalInjuryPerOccurrence", label: "Personal injury liability, each occurrence" },
  PERSONAL_INJURY_AGGREGATE: { key: "contractor.insurance.personalInjuryAggregate", label: "Personal injury liability, aggregate" },
  PROPERTY_DAMAGE: { key: "contractor.insurance.propertyDamage", label: "Property damage liability" },
  AUTO_BODILY_INJURY_PER_PERSON: { key: "contractor.insurance.autoBodilyInjuryPerPerson", label: "Automobile bodily injury, each person" },
  AUTO_BODILY_INJURY_PER_OCCURRENCE: { key: "contractor.insurance.autoBodilyInjuryPerOccurrence", label: "Automobile bodily injury, each occurrence" },
  AUTO_PROPERTY_DAMAGE: { key: "contractor.insurance.autoPropertyDamagePerOccurrence", label: "Automobile property damage, each occurrence" },
  EXCESS_LIABILITY: { key: "contractor.insurance.excessLiability", label: "Business excess liability" },
};

export const coverageLabel = (c: string): string => COVERAGE_RULES[c as Coverage]?.label ?? c;
const isCoverage = (c: string): c is Coverage => (COVERAGES as readonly string[]).includes(c);

// ---------------------------------------------------------------------------------------------
// Checking a filing against the rulebook, and whether a contractor can be chosen

/** The parts of an application the minimums are checked against. */
export type FiledApplication = {
  bondAmountCents: number;
  bondExpiresOn: CalendarDate;
  insurance: { coverage: string; limitCents: number | null; expiresOn: CalendarDate }[];
};
/** One shortfall against the law, naming the section that sets the requirement. */
export type Finding = { item: string; message: string; section: string };

/**
 * What keeps an application from approval: a bond below `contractor.bondAmount`, a coverage below
 * its minimum, a required coverage missing, or anything expired on `today` (a calendar date in the
 * district's zone). An empty list means the filing meets every minimum of this rulebook.
 */
export function checkAgainstMinimums(rulebook: Rulebook, application: FiledApplication, today: CalendarDate): Finding[] {
  const findings: Finding[] = [];
  const bond = rulebook.entry("contractor.bondAmount");
  if (typeof bond.value === "number" && application.bondAmountCents < bond.value)
    findings.push({
      item: "bond",
      section: bond.section,
      message: `The bond is ${formatCents(application.bondAmountCents)}; ${bond.section} requires at least ${formatCents(bond.value)}.`,
    });
  if (application.bondExpiresOn < today)
    findings.push({ item: "bond", section: bond.section, message: `The bond expired on ${formatDate(application.bondExpiresOn)}; file a bond in force (${bond.section}).` });

  for (const coverage of COVERAGES) {
    const rule = COVERAGE_RULES[coverage];
    const e = rulebook.entry(rule.key);
    const minimum = e.kind === "money" && typeof e.value === "number" ? e.value : null;
    const required = e.kind === "boolean" ? e.value === true : minimum !== null;
    const filed = application.insurance.find((i) => i.coverage === coverage);
    if (!filed) {
      if (required)
        findings.push({
          item: coverage,
          section: e.section,
          message: `${rule.label}: no certificate is on file; ${e.section} requires this insurance${minimum !== null ? ` with a limit of at least ${formatCents(minimum)}` : ""}.`,
        });
      continue;
    }
    if (minimum !== null && (filed.limitCents === null || filed.limitCents < minimum))
      findings.push({
        item: coverage,
        section: e.section,
        message:
          filed.limitCents === null
            ? `${rule.label}: the certificate states no limit; ${e.section} requires at least ${formatCents(minimum)}.`
            : `${rule.label}: the limit is ${formatCents(filed.limitCents)}; ${e.section} requires at least ${formatCents(minimum)}.`,
      });
    if (filed.expiresOn < today)
      findings.push({ item: coverage, section: e.section, message: `${rule.label}: the certificate expired on ${formatDate(filed.expiresOn)}; file one in force (${e.section}).` });
  }
  return findings;
}

export type ContractorStanding = { choosable: boolean; reasons: string[] };

/**
 * Whether an applicant may choose this contractor on `today` (a calendar date in the district's
 * zone): only an APPROVED contractor whose bond and every certificate on file are in force (an
 * expiry date is the last day of cover, so it is expired once it is before today).
 */
export function contractorStanding(
  contractor: { status: string; bondExpiresOn: CalendarDate; suspendedReason?: string | null; insurance: { coverage: string; expiresOn: CalendarDate }[] },
  today: CalendarDate,
): ContractorStanding {
  const reasons: string[] = [];
  if (contractor.status === "APPLIED") reasons.push("The application is waiting for the Clerk's decision.");
  else if (contractor.status === "REJECTED") reasons.push("The application was rejected.");
  else if (contractor.status === "SUSPENDED") reasons.push(`The contractor is suspended${contractor.suspendedReason ? `: ${contractor.suspendedReason}` : "."}`);
  else if (contractor.status !== "APPROVED") reasons.push("The contractor is not approved.");
  if (contractor.bondExpiresOn < today) reasons.push(`The bond expired on ${formatDate(contractor.bondExpiresOn)}.`);
  for (const i of contractor.insurance)
    if (i.expiresOn < today) reasons.push(`${coverageLabel(i.coverage)}: the certificate expired on ${formatDate(i.expiresOn)}.`);
  return { choosable: reasons.length === 0, reasons };
}

// ---------------------------------------------------------------------------------------------
// Reading contractors

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

const SELECT_CONTRACTORS = `
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

type RenewedInsurance = { coverage: Coverage; insurer: string; policyNumber: string; limitCents: number | null; expiresOn: CalendarDate; certificateDocumentId: string };
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

/** The filing as it stands once a renewal is accepted: its bond, if renewed, and its certificates over those on file, coverage by coverage. */
export function renewedFiling(current: FiledApplication, renewal: Pick<FiledApplication, "insurance"> & { bondAmountCents: number | null; bondExpiresOn: CalendarDate | null }): FiledApplication {
  return {
    bondAmountCents: renewal.bondAmountCents ?? current.bondAmountCents,
    bondExpiresOn: renewal.bondExpiresOn ?? current.bondExpiresOn,
    insurance: [...current.insurance.filter((i) => !renewal.insurance.some((n) => n.coverage === i.coverage)), ...renewal.insurance],
  };
}

type Row = Omit<ContractorView, "bondAmountCents" | "insurance" | "findings" | "standing" | "today" | "renewal"> & {
  bondAmountCents: string;
  renewal: RenewalRow | null;
  insurance: (Omit<InsuranceView, "limitCents" | "label"> & { limitCents: string | null })[];
};

/** Rows to views, with findings and standing against each district's rulebook in force today: one rulebook lookup per district. */
async function present(db: Db, rows: Row[]): Promise<ContractorView[]> {
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

function presentRenewal(r: RenewalRow | null, current: FiledApplication, rulebook: Rulebook, today: CalendarDate): RenewalView | null {
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

async function loadViews(db: Db, where: string, params: unknown[], order = `c.created_at DESC, c.id`): Promise<ContractorView[]> {
  return present(db, await db.query(`${SELECT_CONTRACTORS} WHERE ${where} ORDER BY ${order}`, params));
}

/** The applications of every contracting firm the viewer belongs to, newest first. */
export async function myContractorApplications(ds: DataSource, viewer: Viewer): Promise<ContractorView[]> {
  return loadViews(ds, `c.organization_id IN (SELECT organization_id FROM membership WHERE user_id = $1)`, [viewer.userId]);
}

/** One application, for the firm's members and the staff of its district; NOT_FOUND for anyone else. */
export async function getContractor(ds: DataSource, viewer: Viewer, id: string): Promise<ContractorView> {
  const [c] = isUuid(id) ? await loadViews(ds, `c.id = $1`, [id]) : [];
  if (!c) throw notFound("That contractor");
  if (isStaff(viewer, c.districtId)) return c;
  if (await membershipOf(ds, viewer.userId, c.organizationId)) return c;
  throw notFound("That contractor");
}

/** Staff: the district's contractors, optionally of one status; the oldest application first (a queue). */
export async function districtContractors(ds: DataSource, viewer: Viewer, districtId: string, status?: string | null): Promise<ContractorView[]> {
  if (!(["CLERK", "OPERATOR", "ADMIN"] as const).some((r) => hasRole(viewer, r, districtId)))
    throw forbidden("Only the Clerk, the Operator or an ADMIN of that district sees its contractors.");
  if (status && !(CONTRACTOR_STATUSES as readonly string[]).includes(status)) throw badInput({ status: "Choose APPLIED, APPROVED, REJECTED or SUSPENDED." });
  return status
    ? loadViews(ds, `c.district_id = $1 AND c.status = $2`, [districtId, status], `c.updated_at ASC, c.id`)
    : loadViews(ds, `c.district_id = $1`, [districtId], `c.updated_at ASC, c.id`);
}

export type PublicContractor = { id: string; name: string; approvedSince: CalendarDate };

/**
 * The public list (SUL 601 A): approved contractors whose bond and certificates are in force today
 * in the district's zone, by name. Nothing private: the firm's name and the date it was approved.
 */
export async function publicContractorList(ds: DataSource, districtSlug: string): Promise<PublicContractor[]> {
  const district = await getDistrict(ds, { slug: districtSlug });
  return choosableContractors(ds, district);
}

/** The contractors an applicant may choose in a district today (for the lateral permit form, say). */
export async function choosableContractors(db: Db, district: Pick<District, "id" | "timeZone">, today?: CalendarDate): Promise<PublicContractor[]> {
  const day = today ?? dateIn(district.timeZone);
  const rows: { id: string; name: string; decidedAt: Date }[] = await db.query(
    `SELECT c.id, o.name, c.decided_at AS "decidedAt"
       FROM contractor c JOIN organization o ON o.id = c.organization_id
      WHERE c.district_id = $1 AND c.status = 'APPROVED' AND c.bond_expires_on >= $2
        AND NOT EXISTS (SELECT 1 FROM contractor_insurance i WHERE i.contractor_id = c.id AND i.expires_on < $2)
      ORDER BY lower(o.name), c.id`,
    [district.id, day],
  );
  return rows.map((r) => ({ id: r.id, name: r.name, approvedSince: dateIn(district.timeZone, r.decidedAt) }));
}

/**
 * Whether a contractor can be chosen for work in a district (for the lateral permits feature: refuse
 * a contractor that cannot be chosen; warn on open permits). Not choosable, with the reasons, when
 * it is not on that district's list, not approved, suspended, or its bond or a certificate has
 * expired before `today` (a calendar date in the district's zone; today there by default). Pass
 * the caller's transaction manager when inside one.
 */
export async function isChoosable(db: Db, contractorId: string, districtId: string, today?: CalendarDate): Promise<ContractorStanding> {
  const standing = (await contractorStandings(db, [contractorId], today)).get(contractorId);
  if (!standing || standing.districtId !== districtId)
    return { choosable: false, reasons: ["This contractor is not on the district's list of approved contractors."] };
  return { choosable: standing.choosable, reasons: standing.reasons };
}

/** The standing of several contractors in one query (e.g. a warning on every open permit); unknown ids are absent. */
export async function contractorStandings(
  db: Db,
  contractorIds: string[],
  today?: CalendarDate,
): Promise<Map<string, ContractorStanding & { districtId: string; today: CalendarDate }>> {
  const ids = [...new Set(contractorIds)].filter(isUuid);
  const out = new Map<string, ContractorStanding & { districtId: string; today: CalendarDate }>();
  if (!ids.length) return out;
  const rows: { id: string; districtId: string; timeZone: string; status: string; bondExpiresOn: string; suspendedReason: string | null; insurance: { coverage: string; expiresOn: string }[] }[] =
    await db.query(
      `SELECT c.id, c.district_id AS "districtId", d.time_zone AS "timeZone", c.status, c.bond_expires_on::text AS "bondExpiresOn",
              c.suspended_reason AS "suspendedReason",
              coalesce((SELECT json_agg(json_build_object('coverage', i.coverage, 'expiresOn', i.expires_on::text) ORDER BY i.coverage)
                          FROM contractor_insurance i WHERE i.contractor_id = c.id), '[]'::json) AS insurance
         FROM contractor c JOIN district d ON d.id = c.district_id
        WHERE c.id = ANY($1::uuid[])`,
      [ids],
    );
  for (const r of rows) {
    const day = today ?? dateIn(r.timeZone);
    out.set(r.id, { ...contractorStanding(r, day), districtId: r.districtId, today: day });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// What a district requires (for the public page and the application form)

export type Requirement = { label: string; section: string; note: string | null; required: boolean; minimumCents: number | null };
export type ContractorRequirements = {
  approvedListEnabled: boolean;
  list: Requirement;
  bond: Requirement;
  coverages: (Requirement & { coverage: Coverage })[];
  cancellationNoticeBusinessDays: number | null;
  cancellationNotice: Requirement;
  expiryReminderDays: number | null;
  rulebookVersion: number;
};

/** The contractor rules of a district's rulebook in force today, with their sections. */
export async function contractorRequirements(ds: DataSource, districtSlug: string): Promise<ContractorRequirements> {
  const district = await getDistrict(ds, { slug: districtSlug });
  const rulebook = await rulebookOn(ds, district);
  const req = (key: RulebookKey, label?: string): Requirement => {
    const e = rulebook.entry(key);
    const minimumCents = e.kind === "money" && typeof e.value === "number" ? e.value : null;
    return {
      label: label ?? e.label,
      section: e.section,
      note: e.note ?? null,
      required: e.kind === "boolean" ? e.value === true : e.value !== null,
      minimumCents,
    };
  };
  const days = (key: RulebookKey) => {
    const v = rulebook.entry(key).value;
    return typeof v === "number" ? v : null;
  };
  return {
    approvedListEnabled: rulebook.enabled("contractor.approvedListEnabled"),
    list: req("contractor.approvedListEnabled"),
    bond: req("contractor.bondAmount"),
    coverages: COVERAGES.map((coverage) => ({ coverage, ...req(COVERAGE_RULES[coverage].key, COVERAGE_RULES[coverage].label) })),
    cancellationNoticeBusinessDays: days("contractor.insuranceCancellationNoticeBusinessDays"),
    cancellationNotice: req("contractor.insuranceCancellationNoticeBusinessDays"),
    expiryReminderDays: days("contractor.expiryReminderDays"),
    rulebookVersion: rulebook.version.version,
  };
}

// ---------------------------------------------------------------------------------------------
// Applying, deciding, suspending

export type InsuranceInput = {
  coverage: string;
  insurer: string;
  policyNumber: string;
  limitCents?: number | null;
  expiresOn: string;
  certificateDocumentId: string;
};
export type ApplyInput = {
  organizationId: string;
  districtId: string;
  bondAmountCents: number;
  bondExpiresOn: string;
  bondDocumentId: string;
  insurance: InsuranceInput[];
};

const actor = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });
const DATE_HINT = "Enter a date like 2027-06-30.";

/** Field checks that need no database; keys name the input (insurance fields by coverage). */
function validateApplication(input: ApplyInput): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!isUuid(input.organizationId ?? "")) fields.organizationId = "Choose your contracting firm.";
  if (!isUuid(input.districtId ?? "")) fields.districtId = "Choose a district.";
  if (!Number.isSafeInteger(input.bondAmountCents) || input.bondAmountCents < 0) fields.bondAmountCents = "Enter the bond amount in dollars and cents, like 5000.00.";
  if (!isCalendarDate(input.bondExpiresOn ?? "")) fields.bondExpiresOn = DATE_HINT;
  if (!isUuid(input.bondDocumentId ?? "")) fields.bondDocumentId = "Upload or choose the bond.";
  return { ...fields, ...validateInsurance(input.insurance ?? []) };
}

/** Field checks of certificates, keyed by coverage (`insurance.<coverage>.<field>`). */
function validateInsurance(insurance: InsuranceInput[]): Record<string, string> {
  const fields: Record<string, string> = {};
  const seen = new Set<string>();
  insurance.forEach((i, n) => {
    if (!isCoverage(i.coverage)) {
      fields[`insurance.${n}.coverage`] = `Choose one of ${COVERAGES.join(", ")}.`;
      return;
    }
    const at = (f: string) => `insurance.${i.coverage}.${f}`;
    if (seen.has(i.coverage)) fields[at("coverage")] = "This coverage is listed twice; file each coverage once.";
    seen.add(i.coverage);
    const insurer = (i.insurer ?? "").trim();
    const policy = (i.policyNumber ?? "").trim();
    if (!insurer || insurer.length > 200) fields[at("insurer")] = "Enter the insurance company's name (up to 200 characters).";
    if (!policy || policy.length > 100) fields[at("policyNumber")] = "Enter the policy number (up to 100 characters).";
    const limit = i.limitCents ?? null;
    if (limit === null) {
      if (i.coverage !== "WORKERS_COMPENSATION") fields[at("limitCents")] = "Enter the policy's limit in dollars, like 500000.00.";
    } else if (!Number.isSafeInteger(limit) || limit < 0) fields[at("limitCents")] = "Enter the policy's limit in dollars and cents, like 500000.00.";
    if (!isCalendarDate(i.expiresOn ?? "")) fields[at("expiresOn")] = DATE_HINT;
    if (!isUuid(i.certificateDocumentId ?? "")) fields[at("certificateDocumentId")] = "Upload or choose the certificate of insurance.";
  });
  return fields;
}

/** BAD_USER_INPUT unless every document filed is the viewer's or the firm's. */
async function requireUsableDocuments(tx: EntityManager, viewer: Viewer, organizationId: string, bondDocumentId: string | null, insurance: InsuranceInput[]) {
  const docIds = [...(bondDocumentId ? [bondDocumentId] : []), ...insurance.map((i) => i.certificateDocumentId)];
  const usable = new Set<string>(
    (await tx.query(`SELECT id FROM document WHERE id = ANY($1::uuid[]) AND (owner_id = $2 OR organization_id = $3)`, [docIds, viewer.userId, organizationId])).map(
      (r: { id: string }) => r.id,
    ),
  );
  const docFields: Record<string, string> = {};
  const notYours = "Choose a document you or your firm uploaded.";
  if (bondDocumentId && !usable.has(bondDocumentId)) docFields.bondDocumentId = notYours;
  for (const i of insurance) if (!usable.has(i.certificateDocumentId)) docFields[`insurance.${i.coverage}.certificateDocumentId`] = notYours;
  if (Object.keys(docFields).length) throw badInput(docFields);
}

async function ownersOf(tx: EntityManager, organizationId: string): Promise<{ id: string; email: string; displayName: string }[]> {
  return tx.query(
    `SELECT u.id, u.email, u.display_name AS "displayName" FROM membership m JOIN app_user u ON u.id = m.user_id
      WHERE m.organization_id = $1 AND m.role = 'OWNER' ORDER BY u.email`,
    [organizationId],
  );
}

/**
 * The owner of a contracting firm applies to be on a district's list, with the bond and insurance
 * certificates (SUL 508). The application can be changed and submitted again while it waits for a
 * decision or after a rejection. Shortfalls do not stop the filing: they are findings the Clerk sees.
 */
export async function applyAsContractor(ds: DataSource, viewer: Viewer, input: ApplyInput, requestId?: string): Promise<ContractorView> {
  const fields = validateApplication(input);
  if (Object.keys(fields).length) throw badInput(fields);

  const member = await membershipOf(ds, viewer.userId, input.organizationId);
  if (!member) throw notFound("That organization");
  if (member.role !== "OWNER") throw forbidden("Only an owner of the firm can apply for it to be an approved contractor.");
  const district = await getDistrict(ds, { id: input.districtId });
  const today = dateIn(district.timeZone);
  const rulebook = await rulebookOn(ds, district, today);
  if (!rulebook.enabled("contractor.approvedListEnabled")) {
    const e = rulebook.entry("contractor.approvedListEnabled");
    const message = `${district.name} keeps no list of approved contractors: ${e.note ?? "its law does not provide one."} (${e.section})`;
    throw badInput({ districtId: message }, message);
  }

  const id = await ds.transaction(async (tx) => {
    const [org] = await tx.query(`SELECT id, name, kind FROM organization WHERE id = $1`, [input.organizationId]);
    if (org.kind !== "CONTRACTOR") throw badInput({ organizationId: `${org.name} is not a contracting firm. Choose a firm registered as a contractor.` });

    await requireUsableDocuments(tx, viewer, org.id, input.bondDocumentId, input.insurance);

    const values = [input.bondAmountCents, input.bondExpiresOn, input.bondDocumentId, rulebook.version.id, viewer.userId];
    const inserted: { id: string }[] = await tx.query(
      `INSERT INTO contractor (organization_id, district_id, bond_amount_cents, bond_expires_on, bond_document_id, rulebook_version_id, applied_by_id)
       VALUES ($6, $7, $1, $2, $3, $4, $5) ON CONFLICT (organization_id, district_id) DO NOTHING RETURNING id`,
      [...values, org.id, district.id],
    );
    let contractorId = inserted[0]?.id;
    const resubmitted = !contractorId;
    if (!contractorId) {
      const [existing] = await tx.query(`SELECT id, status FROM contractor WHERE organization_id = $1 AND district_id = $2 FOR UPDATE`, [org.id, district.id]);
      if (existing.status !== "APPLIED" && existing.status !== "REJECTED")
        throw conflict(
          `${org.name} is already ${existing.status === "APPROVED" ? "an approved contractor" : "suspended from the list"} in ${district.name}; an application can only be changed while it waits for a decision or after a rejection.`,
        );
      contractorId = existing.id as string;
      await tx.query(
        `UPDATE contractor SET status = 'APPLIED', bond_amount_cents = $1, bond_expires_on = $2, bond_document_id = $3, rulebook_version_id = $4,
                applied_by_id = $5, decided_by_id = NULL, decided_at = NULL, decision_reason = NULL, bond_reminder_sent_for = NULL, updated_at = now()
          WHERE id = $6`,
        [...values, contractorId],
      );
      await tx.query(`DELETE FROM contractor_insurance WHERE contractor_id = $1`, [contractorId]);
    }
    for (const i of input.insurance)
      await tx.query(
        `INSERT INTO contractor_insurance (contractor_id, coverage, insurer, policy_number, limit_cents, expires_on, certificate_document_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [contractorId, i.coverage, i.insurer.trim(), i.policyNumber.trim(), i.limitCents ?? null, i.expiresOn, i.certificateDocumentId],
      );
    const findings = checkAgainstMinimums(rulebook, { ...input, insurance: input.insurance.map((i) => ({ ...i, limitCents: i.limitCents ?? null })) }, today);
    await audit(tx, actor(viewer, requestId), {
      action: resubmitted ? "contractor.resubmitted" : "contractor.applied",
      entityType: "Contractor",
      entityId: contractorId,
      districtId: district.id,
      details: {
        organizationId: org.id,
        bondAmountCents: input.bondAmountCents,
        bondExpiresOn: input.bondExpiresOn,
        coverages: input.insurance.map((i) => i.coverage),
        rulebookVersion: rulebook.version.version,
        findings: findings.length,
      },
    });
    return contractorId;
  });
  return (await loadViews(ds, `c.id = $1`, [id]))[0];
}

type Locked = { id: string; organizationId: string; districtId: string; status: ContractorStatus; orgName: string };

async function lockContractor(tx: EntityManager, id: string): Promise<Locked> {
  const [row] = isUuid(id)
    ? await tx.query(
        `SELECT c.id, c.organization_id AS "organizationId", c.district_id AS "districtId", c.status, o.name AS "orgName"
           FROM contractor c JOIN organization o ON o.id = c.organization_id WHERE c.id = $1 FOR UPDATE OF c`,
        [id],
      )
    : [];
  if (!row) throw notFound("That contractor");
  return row;
}

async function notifyOwners(tx: EntityManager, c: Locked, district: District, kind: string, subject: string, body: (name: string) => string) {
  for (const o of await ownersOf(tx, c.organizationId))
    await enqueueEmail(tx, { to: o.email, recipientId: o.id, districtId: district.id, kind, subject, body: body(o.displayName) });
}

/**
 * The Clerk of the contractor's district approves or rejects an application. Approval is refused
 * while any finding remains against the rulebook in force today; the version used is stored.
 */
export async function decideContractor(
  ds: DataSource,
  clerk: Viewer,
  contractorId: string,
  input: { decision: string; reason?: string | null },
  requestId?: string,
): Promise<ContractorView> {
  const reason = (input.reason ?? "").trim();
  const fields: Record<string, string> = {};
  if (input.decision !== "APPROVE" && input.decision !== "REJECT") fields.decision = "Choose APPROVE or REJECT.";
  if (input.decision === "REJECT" && !reason) fields.reason = "Say why the application is rejected; the firm reads it.";
  if (reason.length > 2000) fields.reason = "Keep the reason under 2,000 characters.";
  if (Object.keys(fields).length) throw badInput(fields);
  const approve = input.decision === "APPROVE";

  await ds.transaction(async (tx) => {
    const c = await lockContractor(tx, contractorId);
    const district = await tx.findOneOrFail(District, { where: { id: c.districtId } });
    if (!hasRole(clerk, "CLERK", c.districtId)) throw forbidden(`Only the Clerk of ${district.name} decides its contractor applications.`);
    if (c.status !== "APPLIED") throw conflict(`This application is ${c.status.toLowerCase()}; only an application waiting for a decision can be decided.`);
    const today = dateIn(district.timeZone);
    const rulebook = await rulebookOn(tx, district, today);
    if (approve && !rulebook.enabled("contractor.approvedListEnabled")) {
      const e = rulebook.entry("contractor.approvedListEnabled");
      throw conflict(`${district.name} keeps no list of approved contractors under the rulebook in force today (${e.section}).`);
    }
    if (approve) {
      const [view] = await present(tx, await tx.query(`${SELECT_CONTRACTORS} WHERE c.id = $1`, [c.id]));
      const findings = checkAgainstMinimums(rulebook, view, today);
      if (findings.length)
        throw conflict(`${c.orgName} cannot be approved while its filing falls short of the law: ${findings.map((f) => f.message).join(" ")}`);
    }
    await tx.query(
      `UPDATE contractor SET status = $2, decided_by_id = $3, decided_at = now(), decision_reason = $4, rulebook_version_id = $5, updated_at = now() WHERE id = $1`,
      [c.id, approve ? "APPROVED" : "REJECTED", clerk.userId, reason || null, rulebook.version.id],
    );
    await audit(tx, actor(clerk, requestId), {
      action: approve ? "contractor.approved" : "contractor.rejected",
      entityType: "Contractor",
      entityId: c.id,
      districtId: district.id,
      reason: reason || null,
      details: { organizationId: c.organizationId, rulebookVersion: rulebook.version.version },
    });
    await notifyOwners(
      tx,
      c,
      district,
      "contractor.decided",
      approve ? `${c.orgName} is an approved contractor in ${district.name}` : `${district.name} rejected ${c.orgName}'s contractor application`,
      (name) =>
        `Hello ${name},\n\n` +
        (approve
          ? `The Clerk of ${district.name} approved ${c.orgName} as a contractor. It now appears on the district's public list of approved contractors while its bond and insurance certificates are in force.\n`
          : `The Clerk of ${district.name} rejected the application of ${c.orgName} to be an approved contractor.\n`) +
        (reason ? `\nReason: ${reason}\n` : "") +
        (approve ? "" : `\nYou can correct the application and submit it again in the portal (Contractors, My applications).\n`),
    );
  });
  return (await loadViews(ds, `c.id = $1`, [contractorId]))[0];
}

async function changeListing(
  ds: DataSource,
  viewer: Viewer,
  contractorId: string,
  reasonInput: string,
  to: "SUSPENDED" | "APPROVED",
  requestId?: string,
): Promise<ContractorView> {
  const reason = (reasonInput ?? "").trim();
  if (!reason) throw badInput({ reason: "Say why (the firm reads it and the audit log keeps it)." });
  if (reason.length > 2000) throw badInput({ reason: "Keep the reason under 2,000 characters." });
  const suspend = to === "SUSPENDED";
  await ds.transaction(async (tx) => {
    const c = await lockContractor(tx, contractorId);
    const district = await tx.findOneOrFail(District, { where: { id: c.districtId } });
    if (!hasRole(viewer, "CLERK", c.districtId) && !hasRole(viewer, "OPERATOR", c.districtId))
      throw forbidden(`Only the Clerk or the Operator of ${district.name} suspends or reinstates its contractors.`);
    if (suspend && c.status !== "APPROVED") throw conflict(`Only an approved contractor can be suspended; this one is ${c.status.toLowerCase()}.`);
    if (!suspend && c.status !== "SUSPENDED") throw conflict(`Only a suspended contractor can be reinstated; this one is ${c.status.toLowerCase()}.`);
    await tx.query(`UPDATE contractor SET status = $2, suspended_reason = $3, updated_at = now() WHERE id = $1`, [c.id, to, suspend ? reason : null]);
    await audit(tx, actor(viewer, requestId), {
      action: suspend ? "contractor.suspended" : "contractor.reinstated",
      entityType: "Contractor",
      entityId: c.id,
      districtId: district.id,
      reason,
      details: { organizationId: c.organizationId },
    });
    await notifyOwners(
      tx,
      c,
      district,
      suspend ? "contractor.suspended" : "contractor.reinstated",
      suspend ? `${c.orgName} is suspended from ${district.name}'s approved contractors` : `${c.orgName} is reinstated as an approved contractor in ${district.name}`,
      (name) =>
        `Hello ${name},\n\n` +
        (suspend
          ? `${district.name} suspended ${c.orgName} from its list of approved contractors. While suspended, applicants cannot choose the firm.\n`
          : `${district.name} reinstated ${c.orgName} on its list of approved contractors.\n`) +
        `\nReason: ${reason}\n`,
    );
  });
  return (await loadViews(ds, `c.id = $1`, [contractorId]))[0];
}

/** The Clerk or the Operator of the district takes an approved contractor off the list, with a reason. */
export function suspendContractor(ds: DataSource, viewer: Viewer, contractorId: string, input: { reason: string }, requestId?: string) {
  return changeListing(ds, viewer, contractorId, input.reason, "SUSPENDED", requestId);
}

/** The Clerk or the Operator of the district puts a suspended contractor back on the list, with a reason. */
export function reinstateContractor(ds: DataSource, viewer: Viewer, contractorId: string, input: { reason: string }, requestId?: string) {
  return changeListing(ds, viewer, contractorId, input.reason, "APPROVED", requestId);
}

// ---------------------------------------------------------------------------------------------
// Renewals: an approved contractor files a renewed bond and/or renewed certificates

export type RenewInput = {
  contractorId: string;
  bondAmountCents?: number | null;
  bondExpiresOn?: string | null;
  bondDocumentId?: string | null;
  insurance?: InsuranceInput[] | null;
};

/**
 * The owner of an approved contractor files a renewed bond and/or renewed certificates (SUL 508),
 * say after the expiry reminder. The filing on record stays in force, and the firm choosable until
 * it actually expires, until the Clerk accepts the renewal. Filing again while one waits replaces
 * it. Shortfalls do not stop the filing: they are findings the Clerk sees.
 */
export async function renewContractor(ds: DataSource, viewer: Viewer, input: RenewInput, requestId?: string): Promise<ContractorView> {
  const insurance = input.insurance ?? [];
  const bondGiven = [input.bondAmountCents, input.bondExpiresOn, input.bondDocumentId].some((x) => x !== null && x !== undefined && x !== "");
  const fields: Record<string, string> = validateInsurance(insurance);
  if (!isUuid(input.contractorId ?? "")) fields.contractorId = "Choose the approved contractor to renew.";
  if (bondGiven) {
    const b = input.bondAmountCents;
    if (typeof b !== "number" || !Number.isSafeInteger(b) || b < 0) fields.bondAmountCents = "Enter the bond amount in dollars and cents, like 5000.00.";
    if (!isCalendarDate(input.bondExpiresOn ?? "")) fields.bondExpiresOn = DATE_HINT;
    if (!isUuid(input.bondDocumentId ?? "")) fields.bondDocumentId = "Upload or choose the renewed bond.";
  }
  if (!bondGiven && !insurance.length && !fields.contractorId) fields.bondDocumentId = "File a renewed bond or at least one renewed certificate.";
  if (Object.keys(fields).length) throw badInput(fields);
  const bond = bondGiven ? { amountCents: input.bondAmountCents!, expiresOn: input.bondExpiresOn!, documentId: input.bondDocumentId! } : null;

  await ds.transaction(async (tx) => {
    const c = await lockContractor(tx, input.contractorId);
    const [member]: { role: string }[] = await tx.query(`SELECT role FROM membership WHERE user_id = $1 AND organization_id = $2`, [viewer.userId, c.organizationId]);
    if (!member) throw notFound("That contractor");
    if (member.role !== "OWNER") throw forbidden("Only an owner of the firm can file a renewal of its bond or certificates.");
    const district = await tx.findOneOrFail(District, { where: { id: c.districtId } });
    if (c.status !== "APPROVED")
      throw conflict(`${c.orgName} is ${c.status.toLowerCase()} in ${district.name}; only an approved contractor files a renewal (change the application instead).`);
    await requireUsableDocuments(tx, viewer, c.organizationId, bond?.documentId ?? null, insurance);
    const today = dateIn(district.timeZone);
    const rulebook = await rulebookOn(tx, district, today);
    const renewed: RenewedInsurance[] = insurance.map((i) => ({
      coverage: i.coverage as Coverage,
      insurer: i.insurer.trim(),
      policyNumber: i.policyNumber.trim(),
      limitCents: i.limitCents ?? null,
      expiresOn: i.expiresOn,
      certificateDocumentId: i.certificateDocumentId,
    }));
    const replaced = await returning<{ id: string }>(tx, `DELETE FROM contractor_renewal WHERE contractor_id = $1 AND status = 'PENDING' RETURNING id`, [c.id]);
    const [{ id: renewalId }] = await tx.query(
      `INSERT INTO contractor_renewal (contractor_id, bond_amount_cents, bond_expires_on, bond_document_id, insurance, rulebook_version_id, filed_by_id)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7) RETURNING id`,
      [c.id, bond?.amountCents ?? null, bond?.expiresOn ?? null, bond?.documentId ?? null, JSON.stringify(renewed), rulebook.version.id, viewer.userId],
    );
    const [current] = await present(tx, await tx.query(`${SELECT_CONTRACTORS} WHERE c.id = $1`, [c.id]));
    await audit(tx, actor(viewer, requestId), {
      action: "contractor.renewal_filed",
      entityType: "Contractor",
      entityId: c.id,
      districtId: district.id,
      details: {
        renewalId,
        replacedRenewalId: replaced[0]?.id ?? null,
        organizationId: c.organizationId,
        bondAmountCents: bond?.amountCents ?? null,
        bondExpiresOn: bond?.expiresOn ?? null,
        coverages: renewed.map((i) => i.coverage),
        rulebookVersion: rulebook.version.version,
        findings: current.renewal?.findings.length ?? 0,
      },
    });
  });
  return (await loadViews(ds, `c.id = $1`, [input.contractorId]))[0];
}

/**
 * The Clerk of the contractor's district accepts a waiting renewal (refused while the renewed filing
 * falls short of the rulebook in force today; the renewed figures then replace those on file) or
 * rejects it with a reason (the filing on record is unchanged). The firm's owners are told by email.
 */
export async function decideContractorRenewal(
  ds: DataSource,
  clerk: Viewer,
  input: { renewalId: string; decision: string; reason?: string | null },
  requestId?: string,
): Promise<ContractorView> {
  const reason = (input.reason ?? "").trim();
  const fields: Record<string, string> = {};
  if (input.decision !== "ACCEPT" && input.decision !== "REJECT") fields.decision = "Choose ACCEPT or REJECT.";
  if (input.decision === "REJECT" && !reason) fields.reason = "Say why the renewal is rejected; the firm reads it.";
  if (reason.length > 2000) fields.reason = "Keep the reason under 2,000 characters.";
  if (Object.keys(fields).length) throw badInput(fields);
  const accept = input.decision === "ACCEPT";

  const [found] = isUuid(input.renewalId ?? "") ? await ds.query(`SELECT contractor_id AS "contractorId" FROM contractor_renewal WHERE id = $1`, [input.renewalId]) : [];
  if (!found) throw notFound("That renewal");
  const contractorId: string = found.contractorId;
  await ds.transaction(async (tx) => {
    const c = await lockContractor(tx, contractorId);
    const district = await tx.findOneOrFail(District, { where: { id: c.districtId } });
    if (!hasRole(clerk, "CLERK", c.districtId)) throw forbidden(`Only the Clerk of ${district.name} decides its contractors' renewals.`);
    const [r] = await tx.query(`SELECT status FROM contractor_renewal WHERE id = $1`, [input.renewalId]);
    if (!r) throw conflict("The firm has replaced this renewal with a newer one; decide that one.");
    if (r.status !== "PENDING") throw conflict(`This renewal is already ${r.status.toLowerCase()}.`);
    if (c.status !== "APPROVED" && c.status !== "SUSPENDED") throw conflict(`${c.orgName} is ${c.status.toLowerCase()}; only an approved or suspended contractor's renewal can be decided.`);
    const today = dateIn(district.timeZone);
    const rulebook = await rulebookOn(tx, district, today);
    const [view] = await present(tx, await tx.query(`${SELECT_CONTRACTORS} WHERE c.id = $1`, [c.id]));
    const renewal = view.renewal!;
    if (accept) {
      const findings = checkAgainstMinimums(rulebook, renewedFiling(view, { bondAmountCents: renewal.bond?.amountCents ?? null, bondExpiresOn: renewal.bond?.expiresOn ?? null, insurance: renewal.insurance }), today);
      if (findings.length)
        throw conflict(`The renewal of ${c.orgName} cannot be accepted while it falls short of the law: ${findings.map((f) => f.message).join(" ")}`);
      if (renewal.bond)
        await tx.query(`UPDATE contractor SET bond_amount_cents = $2, bond_expires_on = $3, bond_document_id = $4 WHERE id = $1`, [
          c.id,
          renewal.bond.amountCents,
          renewal.bond.expiresOn,
          renewal.bond.documentId,
        ]);
      for (const i of renewal.insurance)
        await tx.query(
          `INSERT INTO contractor_insurance (contractor_id, coverage, insurer, policy_number, limit_cents, expires_on, certificate_document_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (contractor_id, coverage) DO UPDATE SET insurer = EXCLUDED.insurer, policy_number = EXCLUDED.policy_number,
             limit_cents = EXCLUDED.limit_cents, expires_on = EXCLUDED.expires_on, certificate_document_id = EXCLUDED.certificate_document_id`,
          [c.id, i.coverage, i.insurer, i.policyNumber, i.limitCents, i.expiresOn, i.certificateDocumentId],
        );
      await tx.query(`UPDATE contractor SET rulebook_version_id = $2, updated_at = now() WHERE id = $1`, [c.id, rulebook.version.id]);
    }
    await tx.query(
      `UPDATE contractor_renewal SET status = $2, decided_by_id = $3, decided_at = now(), decision_reason = $4, rulebook_version_id = $5, updated_at = now() WHERE id = $1`,
      [input.renewalId, accept ? "ACCEPTED" : "REJECTED", clerk.userId, reason || null, rulebook.version.id],
    );
    await audit(tx, actor(clerk, requestId), {
      action: accept ? "contractor.renewal_accepted" : "contractor.renewal_rejected",
      entityType: "Contractor",
      entityId: c.id,
      districtId: district.id,
      reason: reason || null,
      details: {
        renewalId: input.renewalId,
        organizationId: c.organizationId,
        rulebookVersion: rulebook.version.version,
        ...(accept
          ? {
              bond: renewal.bond ? { from: { amountCents: view.bondAmountCents, expiresOn: view.bondExpiresOn }, to: { amountCents: renewal.bond.amountCents, expiresOn: renewal.bond.expiresOn } } : null,
              coverages: renewal.insurance.map((i) => ({ coverage: i.coverage, from: view.insurance.find((o) => o.coverage === i.coverage)?.expiresOn ?? null, to: i.expiresOn })),
            }
          : {}),
      },
    });
    await notifyOwners(
      tx,
      c,
      district,
      "contractor.renewal_decided",
      accept ? `${district.name} accepted ${c.orgName}'s renewed bond and certificates` : `${district.name} rejected ${c.orgName}'s renewal`,
      (name) =>
        `Hello ${name},\n\n` +
        (accept
          ? `The Clerk of ${district.name} accepted the renewal that ${c.orgName} filed. The renewed bond and certificates are now on record in place of the ones they renew.\n`
          : `The Clerk of ${district.name} rejected the renewal that ${c.orgName} filed. The bond and certificates on record are unchanged; once any of them expires, applicants can no longer choose ${c.orgName} until a renewal is accepted.\n`) +
        (reason ? `\nReason: ${reason}\n` : "") +
        (accept ? "" : `\nYou can file a corrected renewal in the portal (Contractors, My applications).\n`),
    );
  });
  return (await loadViews(ds, `c.id = $1`, [contractorId]))[0];
}

// ---------------------------------------------------------------------------------------------
// Reminders before a bond or a certificate expires

export const EXPIRY_REMINDER_JOB = "contractors.expiry-reminders";

/** The rows of an UPDATE ... RETURNING (TypeORM answers [rows, count] for an UPDATE). */
async function returning<T>(tx: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const r = await tx.query(sql, params);
  return Array.isArray(r[0]) ? r[0] : r;
}

/**
 * For each approved contractor, one email to the firm's owners per filed item (the bond, each
 * certificate) that is still in force and expires within `contractor.expiryReminderDays` of `today`
 * (a countdown), and one more once the item has expired (an expiry date is the last day of cover, so
 * expired once before `today`): a notice that the firm can no longer be chosen until a renewal is
 * filed and accepted. Idempotent: the expiry date each email was sent for is recorded (apart for the
 * reminder and the notice) in the same transaction as the email, so running twice sends nothing more.
 * `today` defaults to today in each district's zone. Returns how many items were emailed about.
 */
export async function sendExpiryReminders(ds: DataSource, today?: CalendarDate): Promise<number> {
  const districts = await ds
    .getRepository(District)
    .createQueryBuilder("d")
    .where(`EXISTS (SELECT 1 FROM contractor c WHERE c.district_id = d.id AND c.status = 'APPROVED')`)
    .getMany();
  let reminded = 0;
  for (const district of districts) {
    const day = today ?? dateIn(district.timeZone);
    const rulebook = await rulebookOn(ds, district, day);
    const entry = rulebook.entry("contractor.expiryReminderDays");
    if (typeof entry.value !== "number") continue;
    const until = addCalendarDays(day, entry.value);
    reminded += await ds.transaction(async (tx) => {
      type Item = { contractorId: string; organizationId: string; orgName: string; expiresOn: CalendarDate; coverage: string | null; expired: boolean };
      // Countdown: in force on `day` and expiring by `until`. Expired: before `day`, notified once per expiry date.
      const bond = (expired: boolean) =>
        returning<Item>(tx,
          `UPDATE contractor c SET ${expired ? "bond_expired_notice_sent_for" : "bond_reminder_sent_for"} = c.bond_expires_on
             FROM organization o
            WHERE o.id = c.organization_id AND c.district_id = $1 AND c.status = 'APPROVED'
              AND ${expired ? "c.bond_expires_on < $2" : "c.bond_expires_on >= $2 AND c.bond_expires_on <= $3"}
              AND c.${expired ? "bond_expired_notice_sent_for" : "bond_reminder_sent_for"} IS DISTINCT FROM c.bond_expires_on
            RETURNING c.id AS "contractorId", c.organization_id AS "organizationId", o.name AS "orgName",
                      c.bond_expires_on::text AS "expiresOn", NULL::text AS coverage, ${expired} AS expired`,
          expired ? [district.id, day] : [district.id, day, until],
        );
      const certificates = (expired: boolean) =>
        returning<Item>(tx,
          `UPDATE contractor_insurance i SET ${expired ? "expired_notice_sent_for" : "reminder_sent_for"} = i.expires_on
             FROM contractor c JOIN organization o ON o.id = c.organization_id
            WHERE c.id = i.contractor_id AND c.district_id = $1 AND c.status = 'APPROVED'
              AND ${expired ? "i.expires_on < $2" : "i.expires_on >= $2 AND i.expires_on <= $3"}
              AND i.${expired ? "expired_notice_sent_for" : "reminder_sent_for"} IS DISTINCT FROM i.expires_on
            RETURNING c.id AS "contractorId", c.organization_id AS "organizationId", o.name AS "orgName",
                      i.expires_on::text AS "expiresOn", i.coverage, ${expired} AS expired`,
          expired ? [district.id, day] : [district.id, day, until],
        );
      const items = [...(await bond(false)), ...(await certificates(false)), ...(await bond(true)), ...(await certificates(true))];
      const owners = new Map<string, { id: string; email: string; displayName: string }[]>();
      for (const orgId of new Set(items.map((i) => i.organizationId))) owners.set(orgId, await ownersOf(tx, orgId));
      const bondSection = rulebook.entry("contractor.bondAmount").section;
      for (const item of items) {
        const name = item.coverage ? `certificate of ${coverageLabel(item.coverage).toLowerCase()} insurance` : "bond";
        const section = item.coverage ? rulebook.entry(COVERAGE_RULES[item.coverage as Coverage].key).section : bondSection;
        const renewed = item.coverage ? "certificate" : "bond";
        const left = daysBetween(day, item.expiresOn);
        const when = left === 0 ? `expires today, ${formatDate(item.expiresOn)}` : `expires on ${formatDate(item.expiresOn)}, in ${left} day${left === 1 ? "" : "s"}`;
        for (const o of owners.get(item.organizationId) ?? [])
          await enqueueEmail(tx, {
            to: o.email,
            recipientId: o.id,
            districtId: district.id,
            kind: item.expired ? "contractor.expired_notice" : "contractor.expiry_reminder",
            subject: `${item.orgName}: the ${name} filed with ${district.name} ${item.expired ? "has expired" : "expires soon"}`,
            body: item.expired
              ? `Hello ${o.displayName},\n\nThe ${name} that ${item.orgName} filed with ${district.name} has expired: its last day of cover was ${formatDate(item.expiresOn)}.\n\n` +
                `An approved contractor keeps its bond and insurance certificates in force (${section}). Applicants can no longer choose ${item.orgName} ` +
                `until it files a renewed ${renewed} and the Town Clerk accepts it (Contractors, My applications, in the portal).\n`
              : `Hello ${o.displayName},\n\nThe ${name} that ${item.orgName} filed with ${district.name} ${when}.\n\n` +
                `An approved contractor keeps its bond and insurance certificates in force (${section}). Once it has expired, ` +
                `applicants can no longer choose ${item.orgName} until a renewed ${renewed} is filed with the Town Clerk.\n`,
          });
        await audit(tx, { userId: null }, {
          action: item.expired ? "contractor.expired_notice_sent" : "contractor.expiry_reminder_sent",
          entityType: "Contractor",
          entityId: item.contractorId,
          districtId: district.id,
          details: { item: item.coverage ?? "BOND", expiresOn: item.expiresOn, ...(item.expired ? {} : { reminderDays: entry.value }) },
        });
      }
      return items.length;
    });
  }
  return reminded;
}

registerJobHandler(EXPIRY_REMINDER_JOB, async (ds, _payload, log) => {
  const n = await sendExpiryReminders(ds);
  if (n) log.info({ reminded: n }, "contractor expiry reminders queued");
});

// ---------------------------------------------------------------------------------------------
// Documents: the district's Clerk, Operator and ADMINs read the bond and certificates filed with it,
// renewals included (the staff contractors page links them)

registerDocumentAccess(async (ds, viewer, doc) => {
  const districtIds = viewer.staffRoles.filter((r) => r.role === "CLERK" || r.role === "OPERATOR" || r.role === "ADMIN").map((r) => r.districtId);
  if (!districtIds.length) return false;
  const rows = await ds.query(
    `SELECT 1 FROM contractor c WHERE c.bond_document_id = $1 AND c.district_id = ANY($2::uuid[])
     UNION ALL
     SELECT 1 FROM contractor_insurance i JOIN contractor c ON c.id = i.contractor_id
      WHERE i.certificate_document_id = $1 AND c.district_id = ANY($2::uuid[])
     UNION ALL
     SELECT 1 FROM contractor_renewal r JOIN contractor c ON c.id = r.contractor_id
      WHERE c.district_id = ANY($2::uuid[])
        AND (r.bond_document_id = $1 OR r.insurance @> jsonb_build_array(jsonb_build_object('certificateDocumentId', $1::text)))
     LIMIT 1`,
    [doc.id, districtIds],
  );
  return rows.length > 0;
});

// ---------------------------------------------------------------------------------------------
// Dashboard

const STATUS_TEXT: Record<ContractorStatus, string> = { APPLIED: "Waiting for a decision", APPROVED: "Approved", REJECTED: "Rejected", SUSPENDED: "Suspended" };

/** "My applications" items: one per application of a firm the viewer belongs to, in one query. */
export async function dashboardItems(ds: DataSource, viewer: Viewer) {
  const rows: { id: string; status: ContractorStatus; orgName: string; districtName: string; timeZone: string; nextExpiry: string }[] = await ds.query(
    `SELECT c.id, c.status, o.name AS "orgName", d.name AS "districtName", d.time_zone AS "timeZone",
            least(c.bond_expires_on, (SELECT min(i.expires_on) FROM contractor_insurance i WHERE i.contractor_id = c.id))::text AS "nextExpiry"
       FROM contractor c JOIN organization o ON o.id = c.organization_id JOIN district d ON d.id = c.district_id
      WHERE c.organization_id IN (SELECT organization_id FROM membership WHERE user_id = $1)`,
    [viewer.userId],
  );
  return rows.map((r) => {
    const approved = r.status === "APPROVED";
    const nextStep =
      r.status === "APPLIED"
        ? "The Clerk checks the bond and certificates"
        : r.status === "REJECTED"
          ? "Correct the application and submit it again"
          : r.status === "SUSPENDED"
            ? "Ask the district office about the suspension"
            : "Keep the bond and certificates in force";
    return {
      kind: "Contractor",
      id: r.id,
      title: `${r.orgName}: approved contractor in ${r.districtName}`,
      status: STATUS_TEXT[r.status],
      nextStep,
      dueDate: approved ? r.nextExpiry : null,
      daysLeft: approved ? daysLeft(r.nextExpiry, r.timeZone) : null,
      href: `/contractors/mine#contractor-${r.id}`,
    };
  });
}
