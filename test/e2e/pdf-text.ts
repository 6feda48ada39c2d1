import zlib from "node:zlib";

/**
 * The text of a PDF that PDFKit wrote with its standard fonts: each content stream inflated, the
 * strings of its Tj and TJ operators read (hex or literal, one byte a character, WinAnsi), a line
 * per text operator. Enough to read what a printed permit says; not a general PDF reader.
 */
export function pdfText(pdf: Buffer): string {
  const src = pdf.toString("latin1");
  const lines: string[] = [];
  for (const m of src.matchAll(/<<([^]*?)>>\s*stream\r?\n/g)) {
    const start = m.index! + m[0].length;
    const end = src.indexOf("endstream", start);
    let body = pdf.subarray(start, end);
    if (/\/FlateDecode/.test(m[1])) {
      try {
        body = zlib.inflateSync(body);
      } catch {
        continue; // an image or font stream that is not text
      }
    }
    const content = body.toString("latin1");
    for (const op of content.matchAll(/(\[(?:[^\]\\]|\\.)*\]|<[0-9a-fA-F\s]*>|\((?:[^)\\]|\\.)*\))\s*T[jJ]/g)) {
      const pieces = [...op[1].matchAll(/<([0-9a-fA-F\s]*)>|\(((?:[^)\\]|\\.)*)\)/g)].map((p) =>
        p[1] !== undefined ? Buffer.from(p[1].replace(/\s/g, ""), "hex").toString("latin1") : p[2].replace(/\\([()\\])/g, "$1"),
      );
      lines.push(pieces.join(""));
    }
  }
  return lines.join("\n");
}
