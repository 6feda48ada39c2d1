import type { DataSource } from "typeorm";
import { auditMany, type AuditInput } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, daysBetween } from "../common/dates.js";
import { countOf, formatDate } from "../common/format.js";
import { districtsWhere, rulebookById, rulebookOn } from "../districts/districts.service.js";
import { registerJobHandler } from "../jobs/queue.js";
import { enqueueEmails, type EmailDraft } from "../outbox/outbox.service.js";
import { staffOf } from "../staff/staff-of.js";
import { lapsedNoticeEmail, type NoticeRow } from "./notices.service.js";
import { NUISANCE_REMINDER_DAYS, PUMP_OUT_REMINDER_DAYS, SYSTEM_KIND_LABELS, nuisanceLapsed, nuisanceReminderDue, pumpReminderDue, type SystemKind } from "./rules.js";

/** The daily job: pump-out reminders to owners (407), and the 405 notices' reminder and lapse. */
export const REMINDER_JOB = "septic.reminders";

/**
 * For each district with septic systems: (1) owners whose next pump-out is due within
 * PUMP_OUT_REMINDER_DAYS (or overdue, or never recorded) are emailed once per due date; (2) owners
 * of an open 405 notice are reminded once from NUISANCE_REMINDER_DAYS before its last day; (3) once
 * the last day has passed, the Operators are told once to open an enforcement action. A fixed
 * number of statements per district, whatever the number of systems and notices (the emails queued,
 * the rows marked and the audit entries written in one statement each); one transaction a district.
 */
export async function sendSepticReminders(ds: DataSource, publicUrl: string): Promise<number> {
  const districts = await districtsWhere(ds, `EXISTS (SELECT 1 FROM septic_system s WHERE s.district_id = d.id)`);
  let sent = 0;
  for (const district of districts) {
    const today = dateIn(district.timeZone);
    const rb = await rulebookOn(ds, district, today);
    const interval = rb.entry("septic.pumpingIntervalYears");
    sent += await ds.transaction(async (tx) => {
      let n = 0;
      // The district's emails and audit entries, queued and written in one statement each.
      const drafts: EmailDraft[] = [];
      const entries: AuditInput[] = [];
      const email = (to: { id: string; email: string; display_name: string }, kind: string, subject: string, text: string) =>
        drafts.push({ to: to.email, recipientId: to.id, districtId: district.id, kind, subject, body: `Hello ${to.display_name},\n\n${text}\n\n${district.name}\n` });
      if (typeof interval.value === "number") {
        const due: { id: string; kind: SystemKind; pump_due_on: string | null; reminded_due_on: string | null; address: string; owner_id: string | null; email: string | null; display_name: string | null }[] = await tx.query(
          `SELECT s.id, s.kind, to_char(s.pump_due_on, 'YYYY-MM-DD') AS pump_due_on, to_char(s.reminded_due_on, 'YYYY-MM-DD') AS reminded_due_on,
                  trim(coalesce(p.street_number || ' ', '') || p.street || coalesce(', ' || p.city, '') || ' ' || p.zip) AS address, u.id AS owner_id, u.email, u.display_name
             FROM septic_system s JOIN sewer_property p ON p.id = s.property_id LEFT JOIN app_user u ON u.id = p.owner_user_id
            WHERE s.district_id = $1 AND s.status = 'IN_USE' AND coalesce(s.pump_due_on, DATE '0001-01-01') <= $2::date
              AND s.reminded_due_on IS DISTINCT FROM coalesce(s.pump_due_on, DATE '0001-01-01')
            ORDER BY coalesce(s.pump_due_on, DATE '0001-01-01'), s.id FOR UPDATE OF s`,
          [district.id, addCalendarDays(today, PUMP_OUT_REMINDER_DAYS)],
        );
        const reminded: string[] = [];
        const remindedFor: string[] = [];
        for (const s of due) {
          // "No record" is reminded once too: its key is the none-date.
          const key = s.pump_due_on ?? "0001-01-01";
          if (s.pump_due_on && !pumpReminderDue(s.pump_due_on, s.reminded_due_on, today)) continue;
          reminded.push(s.id);
          remindedFor.push(key);
          if (!s.email || !s.owner_id) continue;
          const what = SYSTEM_KIND_LABELS[s.kind].toLowerCase();
          const when = !s.pump_due_on
            ? `No pump-out of your ${what} at ${s.address} is on record.`
            : s.pump_due_on < today
              ? `The pump-out of your ${what} at ${s.address} was due by ${formatDate(s.pump_due_on)}, ${countOf(daysBetween(s.pump_due_on, today), "day")} ago.`
              : `The pump-out of your ${what} at ${s.address} is due by ${formatDate(s.pump_due_on)}, in ${countOf(daysBetween(today, s.pump_due_on), "day")}.`;
          email(
            { id: s.owner_id, email: s.email, display_name: s.display_name ?? "" },
            "septic.pump_out_reminder",
            s.pump_due_on && s.pump_due_on >= today ? `Septic pump-out due by ${formatDate(s.pump_due_on)}: ${s.address}` : `Septic pump-out overdue: ${s.address}`,
            `${when} A septic tank or cesspool is pumped by a licensed hauler at least every ${interval.value} years (${interval.section}). ` +
              `Book a licensed hauler: when the hauler's load from this address is received at the district's station, it is recorded here by itself.\n\nSee it: ${publicUrl}/septic`,
          );
          n++;
        }
        if (reminded.length) {
          await tx.query(`UPDATE septic_system s SET reminded_due_on = x.due FROM unnest($1::uuid[], $2::date[]) AS x(id, due) WHERE s.id = x.id`, [reminded, remindedFor]);
          entries.push({ action: "septic.pump_out_reminders_sent", entityType: "District", entityId: district.id, districtId: district.id, details: { systems: reminded.length, emailed: n } });
        }
      }
      // 405 notices: the reminder before the last day, and the lapse to the Operators.
      const open: (NoticeRow & { remindedAt: Date | null; lapseNotifiedAt: Date | null; email: string | null; displayName: string | null })[] = await tx.query(
        `SELECT n.id, n.system_id AS "systemId", n.district_id AS "districtId", to_char(n.received_on, 'YYYY-MM-DD') AS "receivedOn", to_char(n.repair_by, 'YYYY-MM-DD') AS "repairBy",
                n.rulebook_version_id AS "rulebookVersionId", n.reminded_at AS "remindedAt", n.lapse_notified_at AS "lapseNotifiedAt", p.owner_user_id AS "ownerUserId", u.email, u.display_name AS "displayName",
                trim(coalesce(p.street_number || ' ', '') || p.street || coalesce(', ' || p.city, '') || ' ' || p.zip) AS address
           FROM septic_nuisance_notice n JOIN septic_system s ON s.id = n.system_id JOIN sewer_property p ON p.id = s.property_id LEFT JOIN app_user u ON u.id = p.owner_user_id
          WHERE n.district_id = $1 AND n.status = 'OPEN' AND n.repair_by <= $2::date AND (n.reminded_at IS NULL OR n.lapse_notified_at IS NULL)
          ORDER BY n.repair_by, n.id FOR UPDATE OF n`,
        [district.id, addCalendarDays(today, NUISANCE_REMINDER_DAYS)],
      );
      const lapsed = open.filter((notice) => nuisanceLapsed(notice.repairBy, today) && !notice.lapseNotifiedAt);
      const remind = open.filter((notice) => !nuisanceLapsed(notice.repairBy, today) && !notice.remindedAt && nuisanceReminderDue(notice.repairBy, today));
      // The section of each notice's rulebook (versions are cached: one read per version at most).
      const sections = new Map<string, string>();
      for (const notice of [...lapsed, ...remind])
        if (!sections.has(notice.rulebookVersionId)) sections.set(notice.rulebookVersionId, (await rulebookById(tx, notice.rulebookVersionId)).entry("septic.nuisanceRepairDays").section);
      const operators = lapsed.length ? await staffOf(tx, district.id, "OPERATOR") : [];
      for (const notice of lapsed) {
        const lapse = lapsedNoticeEmail(notice, sections.get(notice.rulebookVersionId)!, publicUrl);
        for (const operator of operators) email(operator, "septic.nuisance_lapsed", lapse.subject, lapse.text);
        entries.push({ action: "septic.nuisance_lapsed", entityType: "SepticNuisanceNotice", entityId: notice.id, districtId: district.id, details: { repairBy: notice.repairBy } });
        n++;
      }
      for (const notice of remind) {
        if (notice.email && notice.ownerUserId)
          email(
            { id: notice.ownerUserId, email: notice.email, display_name: notice.displayName ?? "" },
            "septic.nuisance_reminder",
            `${countOf(daysBetween(today, notice.repairBy), "day")} left to repair your septic system: ${notice.address}`,
            `The notice you received ${formatDate(notice.receivedOn)} gives you until ${formatDate(notice.repairBy)} to repair, rebuild or relocate the septic system at ${notice.address} (${sections.get(notice.rulebookVersionId)}). ` +
              `After that day the ${district.operatorTitle} may open an enforcement action.\n\nSee the notice: ${publicUrl}/septic`,
          );
        entries.push({ action: "septic.nuisance_reminder_sent", entityType: "SepticNuisanceNotice", entityId: notice.id, districtId: district.id, details: { repairBy: notice.repairBy } });
        n++;
      }
      if (lapsed.length || remind.length)
        await tx.query(
          `UPDATE septic_nuisance_notice SET lapse_notified_at = CASE WHEN id = ANY($1::uuid[]) THEN now() ELSE lapse_notified_at END,
                  reminded_at = CASE WHEN id = ANY($2::uuid[]) THEN now() ELSE reminded_at END
            WHERE id = ANY($1::uuid[]) OR id = ANY($2::uuid[])`,
          [lapsed.map((x) => x.id), remind.map((x) => x.id)],
        );
      await enqueueEmails(tx, drafts);
      await auditMany(tx, { userId: null }, entries);
      return n;
    });
  }
  return sent;
}

registerJobHandler(REMINDER_JOB, async (ds, payload, log) => {
  const n = await sendSepticReminders(ds, String(payload?.publicUrl ?? ""));
  if (n) log.info({ reminded: n }, "septic reminders queued");
});
