import type express from "express";
import type { Logger } from "pino";
import type { DataSource } from "typeorm";
import { formatDate } from "../common/dates.js";
import { AppError } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import { letterPdf, letterhead, pdfLines, sendPdf } from "../common/pdf.js";
import type { Config } from "../config.js";
import { signedInFile } from "../graphql/request-context.js";
import { billUsage, getBill, type BillView, type UsagePoint } from "./bill-runs.service.js";

/** The printed statement of an issued sewer bill: who, where, the period, each line with its section, the due date, and two years of use. */
export async function billPdf(ds: DataSource, b: BillView): Promise<Buffer> {
  const usage = await billUsage(ds, b);
  const [d] = await ds.query(`SELECT name, address FROM district WHERE id = $1`, [b.districtId]);
  const { doc, bytes } = letterPdf({ Title: `Sewer bill ${b.number}`, Author: d.name });
  drawStatement(doc, d, b, usage);
  doc.end();
  return bytes;
}

/** Draws one bill's statement on the document's current page (also the run's paper bills in one PDF, api/rents/paperless.ts). */
export function drawStatement(doc: PDFKit.PDFDocument, d: { name: string; address: string }, b: BillView, usage: UsagePoint[]): void {
  const { heading, row } = pdfLines(doc);
  const money = (c: number) => (c < 0 ? `-${formatCents(-c)}` : formatCents(c));

  letterhead(doc, d);
  doc.moveDown(0.5).font("Helvetica-Bold").fontSize(16).text(`Sewer bill ${b.number}${b.final ? " (final bill)" : ""}`, { align: "center" });
  doc.font("Helvetica").fontSize(10).moveDown(0.5);
  row("Billed to", b.billTo);
  row("Service address", `${b.address} (tax parcel ${b.taxParcel})`);
  if (b.accountNumber) row("Account", b.accountNumber);
  row("Period", `${formatDate(b.servedFrom)} to ${formatDate(b.servedTo)}`);
  row("Billed (mailed)", b.mailedOn ? formatDate(b.mailedOn) : "");
  row("Amount", money(b.totalCents));
  if (b.dueText) row("Due", b.dueText);

  heading("What the bill is made of");
  for (const l of b.lines) {
    doc.font("Helvetica-Bold").text(`${l.description}: ${money(l.amountCents)}`);
    doc.font("Helvetica").text([l.quantity, l.rate, l.section].filter(Boolean).join("; "), { indent: 12 });
  }
  doc.moveDown(0.3).font("Helvetica-Bold").text(`Total: ${money(b.totalCents)}`).font("Helvetica");

  if (usage.length) {
    heading("Use and charges over two years");
    for (const p of usage) doc.text(`${formatDate(p.periodStart)}: ${p.gallons === null ? "no read" : `${p.gallons.toLocaleString("en-US")} gallons`}, ${money(p.totalCents)} (${p.number})`);
  }
  doc.moveDown(1).fontSize(8).text(`Figures of rulebook version ${b.rulebookVersion}. An issued bill is never changed: a correction is shown on the next bill.`);
}

/**
 * GET /bills/:id/bill.pdf: the statement of an issued bill, for its account's occupant, the
 * property's owner of record and the district's staff, drawn on demand. Missing, not allowed and not
 * issued look the same (404); signed out is 401.
 */
export function registerBillPdf(app: express.Express, opts: { ds: DataSource; config: Config; log: Logger }) {
  app.get(
    "/bills/:id/bill.pdf",
    signedInFile(opts, "bill", async (viewer, req, res) => {
      const b = await getBill(opts.ds, viewer, req.params.id);
      if (b.status !== "ISSUED") throw new AppError("NOT_FOUND", "That bill has not been issued.");
      sendPdf(res, await billPdf(opts.ds, b), `sewer-bill-${b.number}.pdf`);
    }),
  );
}
