import type { District } from "../districts/district.entity.js";
import type { EnforcementAction, ShowCauseHearing } from "./enforcement.entity.js";
import { KINDS } from "./rules.js";
import { formatDate } from "../common/format.js";

/** RFC 5545 text: escape \ ; , and newlines, fold lines at 75 octets. */
function escape(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r?\n/g, "\\n");
}
function fold(line: string): string {
  const out: string[] = [];
  let rest = line;
  while (Buffer.byteLength(rest) > 75) {
    let cut = 75;
    while (Buffer.byteLength(rest.slice(0, cut)) > 75) cut--;
    out.push(rest.slice(0, cut));
    rest = ` ${rest.slice(cut)}`;
  }
  out.push(rest);
  return out.join("\r\n");
}
const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");

/** The show-cause hearing notice (SUL 1109) as a calendar event; times in UTC, one hour long. */
export function hearingIcs(h: ShowCauseHearing, a: EnforcementAction, district: District, publicUrl: string): string {
  const end = new Date(h.scheduledFor.getTime() + 60 * 60 * 1000);
  const description = [
    `Show-cause hearing before the Town Board on ${KINDS[a.kind].label.toLowerCase()} ${a.number} (${a.section}).`,
    `Violation: ${a.violation}`,
    `Reasons: ${h.reasons}`,
    `Proposed action: ${h.proposedAction}`,
    ...(h.informationRequested ? [`Information requested: ${h.informationRequested}`] : []),
    `Notice served ${formatDate(h.noticeServedOn)}.`,
    `${publicUrl}/enforcement/${a.id}`,
  ].join("\n");
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Tapline//Enforcement//EN",
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    "BEGIN:VEVENT",
    `UID:hearing-${h.id}@tapline`,
    `DTSTAMP:${stamp(h.createdAt)}`,
    `DTSTART:${stamp(h.scheduledFor)}`,
    `DTEND:${stamp(end)}`,
    `SUMMARY:${escape(`Show-cause hearing: ${a.number} (${district.name})`)}`,
    `LOCATION:${escape(h.place)}`,
    `DESCRIPTION:${escape(description)}`,
    "END:VEVENT",
    "END:VCALENDAR",
  ];
  return lines.map(fold).join("\r\n") + "\r\n";
}
