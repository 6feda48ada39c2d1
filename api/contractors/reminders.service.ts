import type { DataSource } from "typeorm";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, daysBetween, formatDate, type CalendarDate } from "../common/dates.js";
import { districtsWhere, rulebookOn } from "../districts/districts.service.js";
import { registerJobHandler } from "../jobs/queue.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { COVERAGE_RULES, coverageLabel, ownersOf, returning, type Coverage } from "./common.js";

/** Reminders to the firm's owners before a bond or a certificate expires, and a notice once it has. */

export const EXPIRY_REMINDER_JOB = "contractors.expiry-reminders";

/**
 * For each approved contractor, one email to the firm's owners per filed item (the bond, each
 * certificate) that is still in force and expires within `contractor.expiryReminderDays` of `today`
 * (a countdown), and one more once the item has expired (an expiry date is the last day of cover, so
 * expired once before `today`): a notice that the firm can no longer be chosen until a renewal is
 * filed and accepted. Idempotent: the expiry date each email was sent for is recorded (apart for the
 * reminder and the notice) in the same transaction as the email, so running twice sends nothing more.
 * `today` defaults to today in each district's zone. Returns how many items were emailed about.
 */
export async function sendExpiryReminders(ds: DataSource, today?: CalendarDate): Promise<number> {
  const districts = await districtsWhere(ds, `EXISTS (SELECT 1 FROM contractor c WHERE c.district_id = d.id AND c.status = 'APPROVED')`);
  let reminded = 0;
  for (const district of districts) {
    const day = today ?? dateIn(district.timeZone);
    const rulebook = await rulebookOn(ds, district, day);
    const entry = rulebook.entry("contractor.expiryReminderDays");
    if (typeof entry.value !== "number") continue;
    const until = addCalendarDays(day, entry.value);
    reminded += await ds.transaction(async (tx) => {
      type Item = { contractorId: string; organizationId: string; orgName: string; expiresOn: CalendarDate; coverage: string | null; expired: boolean };
      // Countdown: in force on `day` and expiring by `until`. Expired: before `day`, notified once per expiry date.
      const bond = (expired: boolean) =>
        returning<Item>(tx,
          `UPDATE contractor c SET ${expired ? "bond_expired_notice_sent_for" : "bond_reminder_sent_for"} = c.bond_expires_on
             FROM organization o
            WHERE o.id = c.organization_id AND c.district_id = $1 AND c.status = 'APPROVED'
              AND ${expired ? "c.bond_expires_on < $2" : "c.bond_expires_on >= $2 AND c.bond_expires_on <= $3"}
              AND c.${expired ? "bond_expired_notice_sent_for" : "bond_reminder_sent_for"} IS DISTINCT FROM c.bond_expires_on
            RETURNING c.id AS "contractorId", c.organization_id AS "organizationId", o.name AS "orgName",
                      c.bond_expires_on::text AS "expiresOn", NULL::text AS coverage, ${expired} AS expired`,
          expired ? [district.id, day] : [district.id, day, until],
        );
      const certificates = (expired: boolean) =>
        returning<Item>(tx,
          `UPDATE contractor_insurance i SET ${expired ? "expired_notice_sent_for" : "reminder_sent_for"} = i.expires_on
             FROM contractor c JOIN organization o ON o.id = c.organization_id
            WHERE c.id = i.contractor_id AND c.district_id = $1 AND c.status = 'APPROVED'
              AND ${expired ? "i.expires_on < $2" : "i.expires_on >= $2 AND i.expires_on <= $3"}
              AND i.${expired ? "expired_notice_sent_for" : "reminder_sent_for"} IS DISTINCT FROM i.expires_on
            RETURNING c.id AS "contractorId", c.organization_id AS "organizationId", o.name AS "orgName",
                      i.expires_on::text AS "expiresOn", i.coverage, ${expired} AS expired`,
          expired ? [district.id, day] : [district.id, day, until],
        );
      const items = [...(await bond(false)), ...(await certificates(false)), ...(await bond(true)), ...(await certificates(true))];
      const owners = new Map<string, { id: string; email: string; displayName: string }[]>();
      for (const orgId of new Set(items.map((i) => i.organizationId))) owners.set(orgId, await ownersOf(tx, orgId));
      const bondSection = rulebook.entry("contractor.bondAmount").section;
      for (const item of items) {
        const name = item.coverage ? `certificate of ${coverageLabel(item.coverage).toLowerCase()} insurance` : "bond";
        const section = item.coverage ? rulebook.entry(COVERAGE_RULES[item.coverage as Coverage].key).section : bondSection;
        const renewed = item.coverage ? "certificate" : "bond";
        const left = daysBetween(day, item.expiresOn);
        const when = left === 0 ? `expires today, ${formatDate(item.expiresOn)}` : `expires on ${formatDate(item.expiresOn)}, in ${left} day${left === 1 ? "" : "s"}`;
        for (const o of owners.get(item.organizationId) ?? [])
          await enqueueEmail(tx, {
            to: o.email,
            recipientId: o.id,
            districtId: district.id,
            kind: item.expired ? "contractor.expired_notice" : "contractor.expiry_reminder",
            subject: `${item.orgName}: the ${name} filed with ${district.name} ${item.expired ? "has expired" : "expires soon"}`,
            body: item.expired
              ? `Hello ${o.displayName},\n\nThe ${name} that ${item.orgName} filed with ${district.name} has expired: its last day of cover was ${formatDate(item.expiresOn)}.\n\n` +
                `An approved contractor keeps its bond and insurance certificates in force (${section}). Applicants can no longer choose ${item.orgName} ` +
                `until it files a renewed ${renewed} and the Town Clerk accepts it (Contractors, My applications, in the portal).\n`
              : `Hello ${o.displayName},\n\nThe ${name} that ${item.orgName} filed with ${district.name} ${when}.\n\n` +
                `An approved contractor keeps its bond and insurance certificates in force (${section}). Once it has expired, ` +
                `applicants can no longer choose ${item.orgName} until a renewed ${renewed} is filed with the Town Clerk.\n`,
          });
        await audit(tx, { userId: null }, {
          action: item.expired ? "contractor.expired_notice_sent" : "contractor.expiry_reminder_sent",
          entityType: "Contractor",
          entityId: item.contractorId,
          districtId: district.id,
          details: { item: item.coverage ?? "BOND", expiresOn: item.expiresOn, ...(item.expired ? {} : { reminderDays: entry.value }) },
        });
      }
      return items.length;
    });
  }
  return reminded;
}

registerJobHandler(EXPIRY_REMINDER_JOB, async (ds, _payload, log) => {
  const n = await sendExpiryReminders(ds);
  if (n) log.info({ reminded: n }, "contractor expiry reminders queued");
});

