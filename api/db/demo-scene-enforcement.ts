import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { addCalendarDays, dateIn } from "../common/dates.js";
import { createAction } from "../enforcement/actions.service.js";
import { referForProsecution } from "../enforcement/prosecutions.service.js";

/**
 * Demo scene (demo mode, `npm start` only; the tests build their own): each district's enforcement
 * served on the demo applicant as that district's law has it, so a person can read it at once
 * instead of waiting out a notice's time to correct.
 *
 * - Lakeview (Sewer Use Law): a notice of violation mailed 12 days ago (answer within 10 days, SUL
 *   1102), then a fine of 3 days at the law's minimum (SUL 1105) mailed 3 days ago: the 15 days to
 *   petition the Town Board (SUL 1104-1108) are open, 12 left.
 * - Huron: a written notice with a reasonable time to correct (Huron V-1, V-4), mailed 21 days ago
 *   with 7 days to correct; the violation went on for 3 days after that time, so the Superintendent
 *   referred it to the court for prosecution today. Huron fines only "on conviction" (V-2), so the
 *   page shows the referral and the law with nothing to pay. A referral rather than a recorded
 *   conviction: the portal dates a referral the day it is made, and a judgment cannot precede it,
 *   so a demo conviction would have to be dated today too, the same day as the referral.
 *
 * Served by each district's demo District Operator through the same services as the portal's forms
 * (the respondent is emailed as anyone served is). Loaded once: a second start finds the actions
 * and does nothing.
 */
export const DEMO_ENFORCEMENT = {
  respondent: "applicant@demo.tapline.local",
  lakeview: {
    operator: "operator@lakeview.demo.tapline.local",
    address: "14 Maple Street, Lakeview",
    notice: {
      mailedDaysAgo: 12,
      violation: "Two roof leaders at 14 Maple Street discharge into the building sewer, which is connected to the public sanitary sewer (Sewer Use Law 701).",
      requirements: "Disconnect both roof leaders from the building sewer and lead them to the ground or a storm sewer.",
    },
    fine: {
      mailedDaysAgo: 3,
      days: 3,
      perDayCents: 25_000,
      violation: "The roof leaders at 14 Maple Street were still connected to the building sewer after the notice (Sewer Use Law 701); seen on three days of inspection.",
    },
  },
  huron: {
    operator: "operator@huron.demo.tapline.local",
    address: "8 Lakeshore Drive, Huron",
    notice: {
      mailedDaysAgo: 21,
      daysToCorrect: 7,
      violation: "A sump pump at 8 Lakeshore Drive discharges groundwater into the building sewer, which is connected to the public sanitary sewer (Huron Article III, Section 8).",
      requirements: "Disconnect the sump pump from the building sewer and discharge it outside.",
    },
    /** The days the violation continued after the time to correct: from the day after it, referred today (V-2). */
    referral: { days: 3 },
  },
};

type Scene = (typeof DEMO_ENFORCEMENT)["lakeview"] | (typeof DEMO_ENFORCEMENT)["huron"];

export async function loadEnforcementScene(ds: DataSource, publicUrl: string): Promise<void> {
  await fineOnTheApplicant(ds, publicUrl, "lakeview", DEMO_ENFORCEMENT.lakeview);
  await fineOnTheApplicant(ds, publicUrl, "huron", DEMO_ENFORCEMENT.huron);
}

async function fineOnTheApplicant(ds: DataSource, publicUrl: string, slug: string, scene: Scene): Promise<void> {
  const [district] = await ds.query(`SELECT id, time_zone FROM district WHERE slug = $1`, [slug]);
  const [person] = await ds.query(`SELECT id FROM app_user WHERE email = $1 AND demo`, [DEMO_ENFORCEMENT.respondent]);
  const [op] = await ds.query(`SELECT id, email, display_name FROM app_user WHERE email = $1 AND demo`, [scene.operator]);
  if (!district || !person || !op) return;
  const [known] = await ds.query(`SELECT 1 FROM enforcement_action WHERE district_id = $1 AND respondent_user_id = $2 LIMIT 1`, [district.id, person.id]);
  if (known) return;
  const operator: Viewer = {
    userId: op.id,
    email: op.email,
    displayName: op.display_name,
    emailVerified: true,
    demo: true,
    staffRoles: [{ districtId: district.id, role: "OPERATOR" }],
    sessionId: null,
    apiTokenId: null,
  };
  const meta = { publicUrl };
  const today = dateIn(district.time_zone);
  const noticeOn = addCalendarDays(today, -scene.notice.mailedDaysAgo);
  // Huron's notice names its own reasonable time to correct (V-1); the SUL's answer date comes from the rulebook (1102).
  const correctBy = "daysToCorrect" in scene.notice ? addCalendarDays(noticeOn, scene.notice.daysToCorrect) : null;
  const notice = await createAction(
    ds,
    operator,
    {
      districtId: district.id,
      kind: "NOTICE_OF_VIOLATION",
      respondentEmail: DEMO_ENFORCEMENT.respondent,
      violation: scene.notice.violation,
      requirements: scene.notice.requirements,
      correctBy,
      servedOn: noticeOn,
      propertyAddress: scene.address,
    },
    meta,
  );
  if ("referral" in scene) {
    // Huron V-2: a court fines on conviction; the Superintendent refers the violation that continued after the time to correct.
    const continuedDays = Array.from({ length: scene.referral.days }, (_, i) => addCalendarDays(correctBy!, i + 1));
    await referForProsecution(ds, operator, { actionId: notice.id, continuedDays }, meta);
    return;
  }
  const fineOn = addCalendarDays(today, -scene.fine.mailedDaysAgo);
  // The days fined end on the day of mailing (SUL 1105).
  const fineDays = Array.from({ length: scene.fine.days }, (_, i) => ({ date: addCalendarDays(fineOn, i - scene.fine.days + 1), amountCents: scene.fine.perDayCents }));
  await createAction(
    ds,
    operator,
    {
      districtId: district.id,
      kind: "FINE",
      escalatesId: notice.id,
      violation: scene.fine.violation,
      servedOn: fineOn,
      fineDays,
      propertyAddress: scene.address,
    },
    meta,
  );
}
