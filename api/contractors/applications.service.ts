import type { DataSource, EntityManager } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn, isCalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { getDistrict, rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { membershipOf } from "../organizations/organizations.service.js";
import { actor, COVERAGES, DATE_HINT, isCoverage, type ApplyInput, type InsuranceInput } from "./common.js";
import { checkAgainstMinimums } from "./rules.js";
import { loadViews, type ContractorView } from "./views.js";

/** A contracting firm's owner applies to be on a district's list (SUL 601 A) with its bond and certificates (SUL 508). */

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
export function validateInsurance(insurance: InsuranceInput[]): Record<string, string> {
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
export async function requireUsableDocuments(tx: EntityManager, viewer: Viewer, organizationId: string, bondDocumentId: string | null, insurance: InsuranceInput[]) {
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

