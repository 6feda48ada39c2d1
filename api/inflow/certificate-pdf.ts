import { formatDate } from "../common/format.js";
import { letterPdf, letterhead, pdfLines } from "../common/pdf.js";

export type CertificateText = {
  number: string;
  districtName: string;
  districtAddress: string;
  address: string;
  taxParcel: string;
  issuedOn: string;
  inspectedOn: string;
  inspectionNumber: string;
  basis: string;
  section: string;
  verifyUrl: string;
  inspectorTitle: string;
  inspectorName: string;
};

/**
 * The inflow compliance certificate: the record of the District Operator's inspection of a sold
 * property (SUL 703) found to meet 702, with a number anyone can check on the public page.
 */
export function certificatePdf(c: CertificateText): Promise<Buffer> {
  const { doc, bytes } = letterPdf({ Title: `Inflow compliance certificate ${c.number}`, Author: c.districtName });
  const { row } = pdfLines(doc);
  letterhead(doc, { name: c.districtName, address: c.districtAddress });
  doc.moveDown(0.8).font("Helvetica-Bold").fontSize(16).text("Inflow compliance certificate", { align: "center" });
  doc.fontSize(12).text(`No. ${c.number}`, { align: "center" });
  doc.font("Helvetica").fontSize(10).moveDown(1);
  row("Property", c.address);
  row("Tax parcel", c.taxParcel);
  row("Inspected", `${formatDate(c.inspectedOn)} (inspection ${c.inspectionNumber})`);
  row("Issued", formatDate(c.issuedOn));
  row("Result", c.basis);
  doc.moveDown(0.8).text(
    `On inspection for the purpose of ${c.section}, the property was found to have no connection contributing inflow to the sanitary sewer that the law requires disconnected before its sale. ` +
      "No sump pump, footing drain, roof leader, roof drain, cellar drain, catch basin or other source of inflow may be connected to the sanitary sewer, and reconnecting a source once disconnected is a wilful violation of the law.",
  );
  doc.moveDown(0.8);
  row("Inspected by", `${c.inspectorName}, ${c.inspectorTitle}`);
  doc.moveDown(1).text(`Anyone may check this certificate at ${c.verifyUrl} with its number.`);
  doc.end();
  return bytes;
}
