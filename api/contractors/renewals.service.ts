import type { DataSource } from "typeorm";
import { hasRole, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn, isCalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { isUuid } from "../documents/documents.service.js";
import { requireUsableDocuments, validateInsurance } from "./applications.service.js";
import { actor, DATE_HINT, lockContractor, notifyOwners, returning, type Coverage, type InsuranceInput } from "./common.js";
import { checkAgainstMinimums, renewedFiling } from "./rules.js";
import { loadViews, present, SELECT_CONTRACTORS, type ContractorView, type RenewedInsurance } from "./views.js";

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

