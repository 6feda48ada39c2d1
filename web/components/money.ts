/** Money is integer cents everywhere; these only format and read it (no floating point). */

/** 15000 → "$150.00" */
export const money = (cents: number) => `$${Math.floor(cents / 100).toLocaleString("en-US")}.${String(cents % 100).padStart(2, "0")}`;

/** 50000000 → "500000.00", as a form field shows it. */
export const centsToDollars = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;

/** "500000", "500,000.00", "$5,000.5" → integer cents, exactly; "" → null; anything else → undefined. */
export function dollarsToCents(input: string): number | null | undefined {
  const s = input.trim().replace(/^\$\s*/, "");
  if (s === "") return null;
  const m = /^(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d{1,2}))?$/.exec(s);
  if (!m || (m[1] === undefined && m[2] === undefined)) return undefined;
  const cents = Number((m[1] ?? "0").replace(/,/g, "")) * 100 + Number((m[2] ?? "0").padEnd(2, "0"));
  return Number.isSafeInteger(cents) ? cents : undefined;
}
