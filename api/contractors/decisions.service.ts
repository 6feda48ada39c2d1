import type { DataSource } from "typeorm";
import { hasRole, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { dateIn } from "../common/dates.js";
import { badInput, conflict, forbidden } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { actor, lockContractor, notifyOwners } from "./common.js";
import { checkAgainstMinimums } from "./rules.js";
import { loadViews, present, SELECT_CONTRACTORS, type ContractorView } from "./views.js";

/** The Clerk decides an application; the Clerk or the Operator suspends or reinstates a listed firm. */


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
