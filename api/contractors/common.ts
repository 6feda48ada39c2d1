import type { DataSource, EntityManager } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import type { Actor } from "../audit/audit.service.js";
import { notFound } from "../common/errors.js";
import type { District } from "../districts/district.entity.js";
import type { RulebookKey } from "../districts/rulebook-keys.js";
import { isUuid } from "../documents/documents.service.js";
import { enqueueEmail } from "../outbox/outbox.service.js";

/** What the contractors' use cases share: statuses, coverages and their rulebook entries, inputs, the firm's owners, the row lock. */

export type Db = DataSource | EntityManager;

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
export const isCoverage = (c: string): c is Coverage => (COVERAGES as readonly string[]).includes(c);

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

export const actor = (v: Viewer, requestId?: string): Actor => ({ userId: v.userId, requestId });
export const DATE_HINT = "Enter a date like 2027-06-30.";

export async function ownersOf(tx: EntityManager, organizationId: string): Promise<{ id: string; email: string; displayName: string }[]> {
  return tx.query(
    `SELECT u.id, u.email, u.display_name AS "displayName" FROM membership m JOIN app_user u ON u.id = m.user_id
      WHERE m.organization_id = $1 AND m.role = 'OWNER' ORDER BY u.email`,
    [organizationId],
  );
}

export type Locked = { id: string; organizationId: string; districtId: string; status: ContractorStatus; orgName: string };

export async function lockContractor(tx: EntityManager, id: string): Promise<Locked> {
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

export async function notifyOwners(tx: EntityManager, c: Locked, district: District, kind: string, subject: string, body: (name: string) => string) {
  for (const o of await ownersOf(tx, c.organizationId))
    await enqueueEmail(tx, { to: o.email, recipientId: o.id, districtId: district.id, kind, subject, body: body(o.displayName) });
}

/** The rows of an UPDATE ... RETURNING (TypeORM answers [rows, count] for an UPDATE). */
export async function returning<T>(tx: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const r = await tx.query(sql, params);
  return Array.isArray(r[0]) ? r[0] : r;
}
