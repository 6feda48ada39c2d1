import type express from "express";
import type { Logger } from "pino";
import type { DataSource } from "typeorm";
import { User } from "../accounts/user.entity.js";
import { dateIn, formatDate } from "../common/dates.js";
import { AppError } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { letterPdf, letterhead, pdfLines, sendPdf } from "../common/pdf.js";
import type { Config } from "../config.js";
import { District } from "../districts/district.entity.js";
import { signedInFile } from "../graphql/request-context.js";
import { paymentsFor, refundsFor } from "../payments/payments.service.js";
import type { LateralPermit } from "./lateral-permit.entity.js";
import { PAYABLE_TYPE, addressOf, getPermit, inspectionsOf, rulebookOfVersion } from "./laterals.service.js";
import { INSPECTION_LABELS, requiredInspections, reviewChecklist } from "./rules.js";

const CLASS_LABELS: Record<string, string> = {
  RESIDENTIAL_COMMERCIAL_INSTITUTIONAL: "Class 1: residential, commercial and institutional service",
  INDUSTRIAL: "Class 2: service to establishments producing industrial wastes",
};
const USE_LABELS: Record<string, string> = { RESIDENTIAL: "Residential", COMMERCIAL: "Commercial", INSTITUTIONAL: "Institutional", INDUSTRIAL: "Industrial" };
const WORK_LABELS: Record<string, string> = { NEW_BUILDING: "New building", EXISTING_LATERAL: "Existing lateral" };

/** The printable permit: number, property, class, contractor, fees paid with receipts, conditions and inspections. */
export async function permitPdf(ds: DataSource, p: LateralPermit): Promise<Buffer> {
  const district = await ds.getRepository(District).findOneByOrFail({ id: p.districtId });
  const applicant = await ds.getRepository(User).findOneByOrFail({ id: p.applicantId });
  const rb = await rulebookOfVersion(ds, p.rulebookVersionId!);
  const [contractor] = p.contractorId
    ? await ds.query(`SELECT o.name FROM contractor c JOIN organization o ON o.id = c.organization_id WHERE c.id = $1`, [p.contractorId])
    : [];
  const payments = (await paymentsFor(ds, PAYABLE_TYPE, p.id)).filter((x) => x.receiptNumber);
  const refunds = await refundsFor(ds, payments.map((x) => x.id));
  const inspections = await inspectionsOf(ds, [p.id]);

  const { doc, bytes } = letterPdf({ Title: `Building lateral permit ${p.permitNumber}`, Author: district.name });
  const { heading, row } = pdfLines(doc);

  letterhead(doc, district);
  doc.moveDown(0.5).font("Helvetica-Bold").fontSize(18).text("Building Lateral Permit", { align: "center" });
  doc.fontSize(14).text(`Permit number ${p.permitNumber}`, { align: "center" });
  doc.font("Helvetica").fontSize(10).text(`Issued ${formatDate(dateIn(district.timeZone, p.approvedAt!))} under the ${district.lawName}`, { align: "center" });

  heading("Property");
  row("Address", addressOf(p));
  row("Tax parcel", p.taxParcel ?? "");
  row("Owner", p.ownerName ?? "");
  if (p.agentName) row("Owner's agent", p.agentName);
  row("Applicant", applicant.displayName);

  heading("Permit");
  row("Class", CLASS_LABELS[p.permitClass ?? ""] ?? "");
  row("Building use", USE_LABELS[p.buildingUse ?? ""] ?? "");
  if (p.floorAreaSqft) row("Floor area", `${p.floorAreaSqft.toLocaleString("en-US")} square feet`);
  row("Work", WORK_LABELS[p.workKind ?? ""] ?? "");
  row("Contractor", contractor?.name ?? "Not named");
  row("Sheets of plans showing lateral connections", String(p.asBuiltSheets ?? 0));

  heading("Fees paid");
  for (const l of p.feeLines) doc.text(`${l.label} (${l.section}): ${formatCents(l.amountCents)}`);
  doc.font("Helvetica-Bold").text(`Total: ${formatCents(p.feeTotalCents)}`).font("Helvetica");
  for (const pay of payments) doc.text(`Receipt ${pay.receiptNumber}, paid ${formatDate(dateIn(district.timeZone, pay.paidAt!))}: ${formatCents(pay.amountCents)}`);
  for (const r of refunds) doc.text(`Refund receipt ${r.receiptNumber}, ${formatDate(dateIn(district.timeZone, r.createdAt))}: ${formatCents(r.amountCents)} returned`);

  heading("Conditions: the lateral must meet these minimums");
  for (const c of reviewChecklist(rb)) doc.text(`• ${c.requirement} (${c.section})`, { indent: 0 });
  const copies = rb.entry("lateral.asBuiltCopies");
  if (typeof copies.value === "number")
    doc.text(`• File ${copies.value} copies of the as-built (record) drawing with the District Operator; the deposit is refunded when they are approved (${copies.section})`);

  heading("Inspections required");
  doc.text("Ask for each inspection through the portal when the work is ready; no trench may be backfilled before it is inspected and approved.");
  for (const r of requiredInspections(rb)) {
    const passed = inspections.find((i) => i.kind === r.kind && i.status === "PASSED");
    doc.text(`• ${INSPECTION_LABELS[r.kind]} (${r.section})${passed ? `: passed ${formatDate(dateIn(district.timeZone, passed.recordedAt!))}` : ""}`);
  }
  if (p.connectedAt) doc.moveDown(0.5).font("Helvetica-Bold").text(`Connection accepted ${formatDate(dateIn(district.timeZone, p.connectedAt))}.`).font("Helvetica");

  doc.moveDown(1.5).fontSize(8).fillColor("#555555").text(`Rulebook version ${rb.version.version} (${rb.version.label}). Printed from Tapline.`);
  doc.end();
  return bytes;
}

/**
 * GET /permits/:id/permit.pdf: the printable permit, for the applicant and the district's staff,
 * once issued. Missing, not allowed and not yet issued look the same (404); signed out is 401.
 */
export function registerPermitPdf(app: express.Express, opts: { ds: DataSource; config: Config; log: Logger }) {
  app.get(
    "/permits/:id/permit.pdf",
    signedInFile(opts, "permit", async (viewer, req, res) => {
      const p = await getPermit(opts.ds, viewer, req.params.id);
      if (!p.permitNumber) throw new AppError("NOT_FOUND", "That permit has not been issued.");
      sendPdf(res, await permitPdf(opts.ds, p), `permit-${p.permitNumber}.pdf`);
    }),
  );
}
