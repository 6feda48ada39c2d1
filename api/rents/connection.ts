import type { EntityManager } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit, type Actor } from "../audit/audit.service.js";
import type { CalendarDate } from "../common/dates.js";
import type { LateralPermit } from "../laterals/lateral-permit.entity.js";
import { openAccountIn } from "./accounts.service.js";
import { insertProperty } from "./register.service.js";
import type { AccountClass } from "./rules.js";

/**
 * A lateral permit reached Connected: the property is served from `connectedOn` (SUL 1201: all
 * persons discharging pay a sewer rent; Huron VI-2: rents on the occupants of premises connected).
 * In the inspection's transaction: the property is added to the register when it is not there
 * (by tax parcel), and it gets an account from that day when it has no open one; an open account
 * is updated to name the permit. Each change has its audit entry.
 */
export async function serviceFromConnection(tx: EntityManager, viewer: Viewer, p: LateralPermit, connectedOn: CalendarDate, actor: Actor): Promise<void> {
  if (!p.taxParcel || !p.street || !p.zip) return; // a submitted permit always has them (api/laterals/applications.service.ts)
  // The applicant is the owner unless an agent applied for them (SUL 602).
  const ownerUserId = p.agentName ? null : p.applicantId;
  const ownerName = p.ownerName ?? "Owner of record";
  const cls: AccountClass = p.buildingUse ?? (p.permitClass === "INDUSTRIAL" ? "INDUSTRIAL" : "RESIDENTIAL");
  const [found] = await tx.query(`SELECT id FROM sewer_property WHERE district_id = $1 AND lower(tax_parcel) = lower($2) FOR UPDATE`, [p.districtId, p.taxParcel]);
  let propertyId: string = found?.id;
  if (!propertyId) {
    propertyId = await insertProperty(tx, p.districtId, { taxParcel: p.taxParcel, streetNumber: p.streetNumber, street: p.street, city: p.city, zip: p.zip, ownerName, ownerUserId }, connectedOn, null);
    await audit(tx, actor, { action: "rents.property_added", entityType: "SewerProperty", entityId: propertyId, districtId: p.districtId, details: { taxParcel: p.taxParcel, permitId: p.id } });
  }
  const [open] = await tx.query(`SELECT id, account_number FROM service_account WHERE property_id = $1 AND closed_on IS NULL ORDER BY opened_on LIMIT 1`, [propertyId]);
  if (!open) {
    await openAccountIn(tx, viewer, { propertyId, class: cls, occupantName: ownerName, occupantUserId: ownerUserId, openedOn: connectedOn, sourcePermitId: p.id }, actor, "rents.account_opened_on_connection");
    return;
  }
  await tx.query(`UPDATE service_account SET source_permit_id = $2, updated_at = now() WHERE id = $1`, [open.id, p.id]);
  await audit(tx, actor, {
    action: "rents.account_connection_recorded",
    entityType: "ServiceAccount",
    entityId: open.id,
    districtId: p.districtId,
    details: { accountNumber: open.account_number, permitId: p.id, connectedOn },
  });
}
