/** Money is integer cents everywhere; this only formats it. */
export function formatCents(cents: number): string {
  if (!Number.isInteger(cents)) throw new Error(`money must be integer cents, got ${cents}`);
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
}
