/** Only same-site paths, so a sign-in link cannot send anyone elsewhere. */
export function safeRedirect(to: string | null | undefined, fallback = "/"): string {
  if (!to || !to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\")) return fallback;
  return to;
}

/** An instant in words: on a district's clock when its zone is known ("Nov 10, 2026, 8:30 AM EST"), else in UTC. */
export function formatDateTime(iso: string, timeZone?: string): string {
  if (timeZone)
    return new Date(iso).toLocaleString("en-US", { year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZone, timeZoneName: "short" });
  return new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC";
}

/** A posted form's text fields by name, without the CSRF token (and `omit`), to send on and to show back on error. */
export function formValues(form: FormData, ...omit: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [k, v] of form.entries()) if (typeof v === "string" && k !== "csrf" && !omit.includes(k)) values[k] = v;
  return values;
}
