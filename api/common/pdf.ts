import type express from "express";
import PDFDocument from "pdfkit";

/**
 * The portal's printed documents (a permit, a sewer bill, an inflow certificate) share their page,
 * their letterhead and their two kinds of line, so a district's papers look alike.
 */

/** A letter-size document with the portal's margins, and its bytes once it ends. */
export function letterPdf(info: { Title: string; Author: string }): { doc: PDFKit.PDFDocument; bytes: Promise<Buffer> } {
  const doc = new PDFDocument({ size: "LETTER", margin: 54, info });
  const chunks: Buffer[] = [];
  doc.on("data", (c: Buffer) => chunks.push(c));
  const bytes = new Promise<Buffer>((resolve, reject) => {
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  return { doc, bytes };
}

/** The district's name and address, centred at the top, as on its letters. */
export function letterhead(doc: PDFKit.PDFDocument, d: { name: string; address: string }): void {
  doc.font("Helvetica").fontSize(10).text(d.name, { align: "center" });
  doc.text(d.address, { align: "center" });
}

/** A section's heading, and a "Label: value" line. */
export function pdfLines(doc: PDFKit.PDFDocument) {
  return {
    heading: (t: string) => doc.moveDown(0.8).font("Helvetica-Bold").fontSize(12).text(t).moveDown(0.2).font("Helvetica").fontSize(10),
    row: (label: string, value: string) => doc.font("Helvetica-Bold").text(`${label}: `, { continued: true }).font("Helvetica").text(value),
  };
}

/** A PDF sent to be read in the browser, never kept by a cache (it is one person's). */
export function sendPdf(res: express.Response, pdf: Buffer, filename: string): void {
  res.status(200).set({
    "Content-Type": "application/pdf",
    "Content-Length": String(pdf.length),
    "Content-Disposition": `inline; filename="${filename}"`,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-store",
  });
  res.end(pdf);
}
