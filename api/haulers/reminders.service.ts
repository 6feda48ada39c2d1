import { type DataSource } from "typeorm";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, dateIn, daysBetween, formatDate } from "../common/dates.js";
import { districtsWhere, rulebookOn } from "../districts/districts.service.js";
import { registerJobHandler } from "../jobs/queue.js";
import { Organization } from "../organizations/organization.entity.js";
import { HaulerLicense } from "./hauler.entity.js";
import { reminderDue } from "./rules.js";
import { REMINDER_JOB, peopleOf, tell } from "./common.js";

/** Reminders before a licence ends (hauler.reminderDays*) and the notice of a lapsed Part 364 permit, by the daily job. */

/**
 * For each approved licence ending within the first reminder's days, one email to the company's
 * owners at each reminder tier (hauler.reminderDaysFirst/Second/Final), with the link to renew;
 * none once a renewal is submitted. And once per Part 364 expiry date, a notice that the licence
 * became invalid when the permit lapsed (SUL 802), saying what to upload. Idempotent: tiers sent
 * and the Part 364 date notified are recorded with the email in one transaction.
 */
export async function sendHaulerReminders(ds: DataSource, publicUrl: string): Promise<number> {
  const districts = await districtsWhere(ds, `EXISTS (SELECT 1 FROM hauler_license l WHERE l.district_id = d.id AND l.status = 'APPROVED')`);
  let sent = 0;
  for (const district of districts) {
    const day = dateIn(district.timeZone);
    const rb = await rulebookOn(ds, district, day);
    const tiers = (["hauler.reminderDaysFirst", "hauler.reminderDaysSecond", "hauler.reminderDaysFinal"] as const)
      .map((k) => rb.entry(k).value)
      .filter((v): v is number => typeof v === "number");
    const section = rb.entry("hauler.licenseTermMonths").section;
    sent += await ds.transaction(async (tx) => {
      let n = 0;
      const maxTier = Math.max(0, ...tiers);
      const expiring = await tx
        .getRepository(HaulerLicense)
        .createQueryBuilder("l")
        .setLock("pessimistic_write")
        .where("l.district_id = :d AND l.status = 'APPROVED' AND l.valid_until >= :day AND l.valid_until <= :until", { d: district.id, day, until: addCalendarDays(day, maxTier) })
        .andWhere(`NOT EXISTS (SELECT 1 FROM hauler_license r WHERE r.previous_license_id = l.id AND r.status IN ('SUBMITTED', 'APPROVED'))`)
        .getMany();
      for (const l of expiring) {
        const tier = tiers.length ? reminderDue(l.validUntil!, day, tiers, l.remindersSent) : null;
        if (tier === null) continue;
        const left = daysBetween(day, l.validUntil!);
        const org = await tx.findOneByOrFail(Organization, { id: l.organizationId });
        await tx.update(HaulerLicense, { id: l.id }, { remindersSent: [...l.remindersSent, tier] });
        await tell(tx, await peopleOf(tx, l.organizationId, true), district.id, "hauler.expiry_reminder",
          `${org.name}: hauler licence ${l.licenseNumber} ends in ${left} day${left === 1 ? "" : "s"}`,
          `${org.name}'s septage hauler licence ${l.licenseNumber} ends on ${formatDate(l.validUntil!)} (${section}: licences last one year).\n\n` +
            `Renew it now: your vehicles and answers are copied for you to confirm or change. A renewal approved before ${formatDate(l.validUntil!)} starts the next day.`,
          `Renew: ${publicUrl}/haulers/licenses/${l.id}/renew`, district);
        await audit(tx, { userId: null }, { action: "hauler.expiry_reminder_sent", entityType: "HaulerLicense", entityId: l.id, districtId: district.id, details: { tier, daysLeft: left, validUntil: l.validUntil } });
        n++;
      }
      if (rb.enabled("hauler.part364PermitRequired")) {
        const lapsed = await tx
          .getRepository(HaulerLicense)
          .createQueryBuilder("l")
          .setLock("pessimistic_write")
          .where("l.district_id = :d AND l.status = 'APPROVED' AND l.valid_until >= :day AND l.part364_expires_on < :day", { d: district.id, day })
          .andWhere("l.part364_notice_sent_for IS DISTINCT FROM l.part364_expires_on")
          .getMany();
        for (const l of lapsed) {
          const org = await tx.findOneByOrFail(Organization, { id: l.organizationId });
          await tx.update(HaulerLicense, { id: l.id }, { part364NoticeSentFor: l.part364ExpiresOn });
          await tell(tx, await peopleOf(tx, l.organizationId, false), district.id, "hauler.part364_lapsed",
            `${org.name}: licence ${l.licenseNumber} is invalid, the Part 364 permit expired`,
            `The NYSDEC Part 364 permit ${l.part364PermitNumber} on file expired on ${formatDate(l.part364ExpiresOn!)}. The licence ${l.licenseNumber} is invalid from then on (${section}) and loads are refused.\n\nUpload the renewed Part 364 permit with its new expiry date to be reinstated.`,
            `Upload it: ${publicUrl}/haulers/licenses/${l.id}`, district);
          await audit(tx, { userId: null }, { action: "hauler.part364_lapsed_notice_sent", entityType: "HaulerLicense", entityId: l.id, districtId: district.id, details: { expiresOn: l.part364ExpiresOn } });
          n++;
        }
      }
      return n;
    });
  }
  return sent;
}

registerJobHandler(REMINDER_JOB, async (ds, payload, log) => {
  const n = await sendHaulerReminders(ds, String(payload?.publicUrl ?? ""));
  if (n) log.info({ reminded: n }, "hauler licence reminders queued");
});
