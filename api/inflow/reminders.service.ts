import type { DataSource } from "typeorm";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, daysBetween } from "../common/dates.js";
import { countOf, formatDate } from "../common/format.js";
import { districtsWhere, rulebookById } from "../districts/districts.service.js";
import { registerJobHandler } from "../jobs/queue.js";
import { enqueueEmails, type EmailDraft } from "../outbox/outbox.service.js";
import { staffOf } from "../staff/staff-of.js";
import { ORDER_REMINDER_DAYS, orderReminder } from "./rules.js";

/** The daily job: disconnection orders' reminders before their date and the Operators' note after it (SUL 702, 703). */
export const ORDER_REMINDER_JOB = "inflow.order-reminders";

/**
 * For each district with disconnection orders under way: the owner of record and the inspection's
 * parties are reminded once from ORDER_REMINDER_DAYS before the order's date; once the date has
 * passed the District Operators are told once, to inspect again. A fixed number of statements per
 * district whatever the number of orders (the rulebook versions read once each, and cached), one
 * transaction per district holding the orders' rows while their emails are queued and they are marked.
 */
export async function sendInflowOrderReminders(ds: DataSource, publicUrl: string): Promise<number> {
  const districts = await districtsWhere(ds, `EXISTS (SELECT 1 FROM inflow_inspection i WHERE i.district_id = d.id AND i.status = 'ORDERED')`);
  let sent = 0;
  for (const district of districts) {
    const today = dateIn(district.timeZone);
    sent += await ds.transaction(async (tx) => {
      const orders: { id: string; number: string; deadline: string; reminded: string | null; lapse: string | null; rulebookVersionId: string; address: string }[] = await tx.query(
        `SELECT i.id, i.number, to_char(i.order_deadline, 'YYYY-MM-DD') AS deadline, to_char(i.order_reminded_for, 'YYYY-MM-DD') AS reminded,
                to_char(i.order_lapse_notified_for, 'YYYY-MM-DD') AS lapse, i.rulebook_version_id AS "rulebookVersionId",
                trim(coalesce(p.street_number || ' ', '') || p.street || coalesce(', ' || p.city, '') || ' ' || p.zip) AS address
           FROM inflow_inspection i JOIN sewer_property p ON p.id = i.property_id
          WHERE i.district_id = $1 AND i.status = 'ORDERED' AND i.order_deadline <= $2::date
            AND (i.order_reminded_for IS DISTINCT FROM i.order_deadline OR i.order_lapse_notified_for IS DISTINCT FROM i.order_deadline)
          ORDER BY i.order_deadline, i.id FOR UPDATE OF i`,
        [district.id, addCalendarDays(today, ORDER_REMINDER_DAYS)],
      );
      const remind = orders.filter((o) => orderReminder(o.deadline, o, today) === "REMIND");
      const lapsed = orders.filter((o) => orderReminder(o.deadline, o, today) === "LAPSED");
      if (!remind.length && !lapsed.length) return 0;
      const sections = new Map<string, string>();
      for (const o of [...remind, ...lapsed])
        if (!sections.has(o.rulebookVersionId)) sections.set(o.rulebookVersionId, (await rulebookById(tx, o.rulebookVersionId)).entry("inflow.stormSewerWithinFeet").section);
      // The owners of record and parties of every order reminded, and the district's Operators: one query each.
      const people: { inspectionId: string; id: string; email: string; display_name: string }[] = remind.length
        ? await tx.query(
            `SELECT DISTINCT x.inspection_id AS "inspectionId", u.id, u.email, u.display_name
               FROM (SELECT inspection_id, user_id FROM inflow_party WHERE inspection_id = ANY($1::uuid[])
                     UNION SELECT i.id, p.owner_user_id FROM inflow_inspection i JOIN sewer_property p ON p.id = i.property_id WHERE i.id = ANY($1::uuid[])) x
               JOIN app_user u ON u.id = x.user_id`,
            [remind.map((o) => o.id)],
          )
        : [];
      const operators = lapsed.length ? await staffOf(tx, district.id, "OPERATOR") : [];
      const drafts: EmailDraft[] = [];
      const email = (to: { id: string; email: string; display_name: string }, kind: string, subject: string, text: string) =>
        drafts.push({ to: to.email, recipientId: to.id, districtId: district.id, kind, subject, body: `Hello ${to.display_name},\n\n${text}\n\n${district.name}\n` });
      for (const o of remind) {
        const left = daysBetween(today, o.deadline);
        for (const person of people.filter((x) => x.inspectionId === o.id))
          email(
            person,
            "inflow.order_reminder",
            `${left === 0 ? "Last day" : `${countOf(left, "day")} left`} to disconnect inflow: ${o.address}`,
            `The disconnection order of inspection ${o.number} asks that every connection bringing inflow to the sanitary sewer at ${o.address} (a sump pump, footing drain, roof leader, cellar drain or catch basin) be disconnected by ${formatDate(o.deadline)} (${sections.get(o.rulebookVersionId)}). ` +
              `The ${district.operatorTitle} then inspects the property again.\n\nSee the inspection: ${publicUrl}/inflow/${o.id}`,
          );
      }
      for (const o of lapsed)
        for (const operator of operators)
          email(
            operator,
            "inflow.order_lapsed",
            `Disconnection order past its date: ${o.address}`,
            `The disconnection order of inspection ${o.number} at ${o.address} was due by ${formatDate(o.deadline)} (${sections.get(o.rulebookVersionId)}) and no passing inspection is recorded. Inspect the property again: ${publicUrl}/staff/inflow/${o.id}`,
          );
      await enqueueEmails(tx, drafts);
      await tx.query(
        `UPDATE inflow_inspection SET order_reminded_for = CASE WHEN id = ANY($1::uuid[]) THEN order_deadline ELSE order_reminded_for END,
                order_lapse_notified_for = CASE WHEN id = ANY($2::uuid[]) THEN order_deadline ELSE order_lapse_notified_for END
          WHERE id = ANY($1::uuid[]) OR id = ANY($2::uuid[])`,
        [remind.map((o) => o.id), lapsed.map((o) => o.id)],
      );
      const details = (list: typeof orders) => ({ orders: list.map((o) => ({ inspectionId: o.id, deadline: o.deadline })) });
      if (remind.length) await audit(tx, { userId: null }, { action: "inflow.order_reminders_sent", entityType: "District", entityId: district.id, districtId: district.id, details: details(remind) });
      if (lapsed.length) await audit(tx, { userId: null }, { action: "inflow.orders_lapsed", entityType: "District", entityId: district.id, districtId: district.id, details: details(lapsed) });
      const n = remind.length + lapsed.length;
      return n;
    });
  }
  return sent;
}

registerJobHandler(ORDER_REMINDER_JOB, async (ds, payload, log) => {
  const n = await sendInflowOrderReminders(ds, String(payload?.publicUrl ?? ""));
  if (n) log.info({ reminded: n }, "inflow order reminders queued");
});
