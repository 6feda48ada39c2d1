import type { DataSource } from "typeorm";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, daysBetween } from "../common/dates.js";
import { countOf, formatDate } from "../common/format.js";
import { District } from "../districts/district.entity.js";
import { rulebookById } from "../districts/districts.service.js";
import { registerJobHandler } from "../jobs/queue.js";
import { emailOperators, emailPeople } from "./common.js";
import { ORDER_REMINDER_DAYS, orderReminder } from "./rules.js";

/** The daily job: disconnection orders' reminders before their date and the Operators' note after it (SUL 702, 703). */
export const ORDER_REMINDER_JOB = "inflow.order-reminders";

/**
 * For each district with disconnection orders under way: the owner of record and the inspection's
 * parties are reminded once from ORDER_REMINDER_DAYS before the order's date; once the date has
 * passed the District Operators are told once, to inspect again. A fixed number of statements per
 * district whatever the number of orders (the rulebook versions are read once each), one
 * transaction per district, each order's row held while it is sent and marked.
 */
export async function sendInflowOrderReminders(ds: DataSource, publicUrl: string): Promise<number> {
  const districts = await ds
    .getRepository(District)
    .createQueryBuilder("d")
    .where(`EXISTS (SELECT 1 FROM inflow_inspection i WHERE i.district_id = d.id AND i.status = 'ORDERED')`)
    .getMany();
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
      let n = 0;
      for (const o of orders) {
        const due = orderReminder(o.deadline, o, today);
        if (!due) continue;
        const section = (await rulebookById(tx, o.rulebookVersionId)).entry("inflow.stormSewerWithinFeet").section;
        if (due === "REMIND") {
          const left = daysBetween(today, o.deadline);
          await emailPeople(
            tx,
            o.id,
            district,
            "inflow.order_reminder",
            `${left === 0 ? "Last day" : `${countOf(left, "day")} left`} to disconnect inflow: ${o.address}`,
            `The disconnection order of inspection ${o.number} asks that every connection bringing inflow to the sanitary sewer at ${o.address} (a sump pump, footing drain, roof leader, cellar drain or catch basin) be disconnected by ${formatDate(o.deadline)} (${section}). ` +
              `The ${district.operatorTitle} then inspects the property again.\n\nSee the inspection: ${publicUrl}/inflow/${o.id}`,
          );
          await tx.query(`UPDATE inflow_inspection SET order_reminded_for = order_deadline WHERE id = $1`, [o.id]);
          await audit(tx, { userId: null }, { action: "inflow.order_reminder_sent", entityType: "InflowInspection", entityId: o.id, districtId: district.id, details: { deadline: o.deadline } });
        } else {
          await emailOperators(
            tx,
            district,
            "inflow.order_lapsed",
            `Disconnection order past its date: ${o.address}`,
            `The disconnection order of inspection ${o.number} at ${o.address} was due by ${formatDate(o.deadline)} (${section}) and no passing inspection is recorded. Inspect the property again: ${publicUrl}/staff/inflow/${o.id}`,
          );
          await tx.query(`UPDATE inflow_inspection SET order_lapse_notified_for = order_deadline WHERE id = $1`, [o.id]);
          await audit(tx, { userId: null }, { action: "inflow.order_lapsed", entityType: "InflowInspection", entityId: o.id, districtId: district.id, details: { deadline: o.deadline } });
        }
        n++;
      }
      return n;
    });
  }
  return sent;
}

registerJobHandler(ORDER_REMINDER_JOB, async (ds, payload, log) => {
  const n = await sendInflowOrderReminders(ds, String(payload?.publicUrl ?? ""));
  if (n) log.info({ reminded: n }, "inflow order reminders queued");
});
