/**
 * A district's three-letter code for permit and receipt numbers: the first letter of its slug and
 * the next consonants, "lakeview" → "LKV", "huron" → "HRN".
 */
export function districtCode(slug: string): string {
  const letters = slug.replace(/[^a-z]/gi, "").toUpperCase();
  let code = letters.charAt(0);
  for (const c of letters.slice(1)) {
    if (code.length >= 3) break;
    if (!"AEIOUY".includes(c)) code += c;
  }
  return (code + letters.slice(1)).slice(0, 3).padEnd(3, "X");
}
