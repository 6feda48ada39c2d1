import type { DataSource } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { addCalendarDays, addMonths, dateIn, formatDate, isCalendarDate, zonedWallTime, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { isUuid } from "../documents/documents.service.js";
import { rulebookById, rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { loadDistrict, loadPermit, permitRulebook } from "./common.js";
import { chronicFromCounts, chronicViolation, isConventional, lateReport, missedMilestone, trcFactor, trcFromCounts, trcViolation, type Measurement } from "./limits.js";
import { notifyMembersOfEach } from "./permits.service.js";
import { countOf } from "../common/format.js";

/**
 * Significant non-compliance of one permit over one period (SUL 201): (a) chronic and (b)
 * technical review criteria per parameter, from the results of the period's samples (an amended
 * report's results stand in for the signed one's); (f) reports more than the rulebook's days late.
 * (e) compliance-schedule milestones missed by the rulebook's days, from the progress reports
 * (1004 A(12)(c)). (c), (d), (g) and (h) are the Operator's findings. Every figure comes from the permit's rulebook.
 */

export type SncMeasurement = { resultId: string; reportId: string; sampledAt: Date; sampleType: string; value: number | null; limit: number | null; exceeds: boolean; atOrAboveTrc: boolean };
export type SncParameter = {
  parameter: string;
  total: number;
  exceeded: number;
  atOrAboveTrc: number;
  trcFactor: number;
  chronic: boolean;
  trc: boolean;
  measurements: SncMeasurement[];
};
export type SncFinding = { criterion: "CHRONIC" | "TRC" | "LATE_REPORT" | "MILESTONE"; text: string; section: string; parameter: string | null; reportId: string | null };
export type SncResult = {
  permitId: string;
  periodStart: CalendarDate;
  periodEnd: CalendarDate;
  inSnc: boolean;
  findings: SncFinding[];
  parameters: SncParameter[];
  notJudged: string[];
};

const pct = (n: number, total: number) => `${Math.round((n * 1000) / total) / 10}%`;

function chronicFinding(parameter: string, c: { exceeded: number; total: number }, percent: number, section: string): SncFinding {
  return {
    criterion: "CHRONIC",
    parameter,
    reportId: null,
    section,
    text: `Chronic violation: ${c.exceeded} of ${c.total} ${parameter} measurements (${pct(c.exceeded, c.total)}) exceed the limit; ${percent}% or more is significant non-compliance.`,
  };
}
function trcFinding(parameter: string, t: { atOrAbove: number; total: number; factor: number }, percent: number, section: string): SncFinding {
  return {
    criterion: "TRC",
    parameter,
    reportId: null,
    section,
    text: `Technical review criteria: ${t.atOrAbove} of ${t.total} ${parameter} measurements (${pct(t.atOrAbove, t.total)}) are at or above ${t.factor} times the limit; ${percent}% or more is significant non-compliance.`,
  };
}
function lateFinding(r: { id: string; period_start: string; period_end: string; due_on: string }, signedOn: string | null, daysLate: number, days: number, section: string): SncFinding {
  return {
    criterion: "LATE_REPORT",
    parameter: null,
    reportId: r.id,
    section,
    text: `The report for ${formatDate(r.period_start)} to ${formatDate(r.period_end)}, due ${formatDate(r.due_on)}, ${signedOn ? `was received ${countOf(daysLate, "day")} late` : `is ${countOf(daysLate, "day")} late and not received`}; more than ${countOf(days, "day")} is significant non-compliance.`,
  };
}

/**
 * (e) The schedule's milestones judged on the period's last day (today while it runs): missed by
 * `days` or more and not met by then. A milestone met before the period began is not this
 * period's finding. `metOn`: the earliest date a progress report says it was met.
 */
export function milestoneFindings(
  schedule: { milestone: string; dueOn: string }[] | null,
  metOn: Map<number, string>,
  period: { start: CalendarDate; end: CalendarDate },
  today: CalendarDate,
  days: number | null,
  section: string,
): SncFinding[] {
  if (days === null || !schedule?.length) return [];
  const judgeOn = period.end < today ? period.end : today;
  const out: SncFinding[] = [];
  schedule.forEach((m, i) => {
    const met = metOn.get(i) ?? null;
    if (met && met < period.start) return;
    const on = met && met <= judgeOn ? met : null;
    const r = missedMilestone(m.dueOn, on, judgeOn, days);
    if (r.snc)
      out.push({
        criterion: "MILESTONE",
        parameter: null,
        reportId: null,
        section,
        text: `The compliance schedule milestone "${m.milestone}", due ${formatDate(m.dueOn)}, ${on ? `was met on ${formatDate(on)}, ${countOf(r.daysLate, "day")} late` : `is ${countOf(r.daysLate, "day")} late and not reported met`}; ${countOf(days, "day")} or more is significant non-compliance.`,
      });
  });
  return out;
}

const OPERATOR_NOTE = "Interference, pass-through or endangerment, inaccurate reporting and other violations: the District Operator's findings.";
/** (e) is judged, but only from what the progress reports say: the caveat shown with the findings. */
const milestoneNote = (rb: Rulebook) =>
  `Compliance schedule milestones missed by ${rb.entry("industrial.sncMilestoneDays").value} days or more (${rb.entry("industrial.sncMilestoneDays").section}) are judged from the progress reports filed: a milestone no report says was met counts as not met.`;

export async function permitSnc(ds: DataSource, viewer: Viewer, input: { permitId: string; periodStart?: string | null }): Promise<SncResult> {
  const p = await loadPermit(ds, input.permitId);
  if (!p || !p.submittedAt || !isStaff(viewer, p.districtId)) throw notFound("That permit");
  const district = await loadDistrict(ds, p.districtId);
  const rb = await permitRulebook(ds, p, district);
  const months = rb.require("industrial.sncPeriodMonths");
  const chronicPct = rb.require("industrial.sncChronicPercent");
  const trcPct = rb.require("industrial.sncTrcPercent");
  const factorConventional = rb.require("industrial.sncTrcFactorConventional");
  const factorOther = rb.require("industrial.sncTrcFactorOther");
  const lateDays = rb.require("industrial.sncLateReportDays");
  const today = dateIn(district.timeZone);
  // Default: the six-month half of the year that holds today (January-June, July-December).
  let start = input.periodStart ?? `${today.slice(0, 4)}-${Number(today.slice(5, 7)) <= 6 ? "01" : "07"}-01`;
  if (!isCalendarDate(start) || !start.endsWith("-01")) throw badInput({ periodStart: "Give the first day of a month, like 2026-07-01." });
  const end = addCalendarDays(addMonths(start, months.value), -1);
  const from = zonedWallTime(Date.parse(`${start}T00:00:00Z`), district.timeZone);
  const to = zonedWallTime(Date.parse(`${addCalendarDays(end, 1)}T00:00:00Z`), district.timeZone);

  const rows: any[] = await ds.query(
    `SELECT x.id, x.report_id, x.parameter, x.sample_type, x.sampled_at, x.status, x.basis, x.limit_value, x.compared_value
       FROM industrial_result x
      WHERE x.permit_id = $1 AND x.sampled_at >= $2 AND x.sampled_at < $3 AND x.status IN ('OK', 'EXCEEDS')
        AND NOT EXISTS (SELECT 1 FROM industrial_report a WHERE a.amends_id = x.report_id)
      ORDER BY x.parameter, x.sampled_at, x.id`,
    [p.id, from, to],
  );
  const byParameter = new Map<string, any[]>();
  for (const r of rows) (byParameter.get(r.parameter) ?? byParameter.set(r.parameter, []).get(r.parameter)!).push(r);
  const parameters: SncParameter[] = [];
  const findings: SncFinding[] = [];
  const trcRule = { percent: trcPct.value, factorConventional: factorConventional.value, factorOther: factorOther.value };
  for (const [parameter, list] of byParameter) {
    // Chronic: the stored evaluation decides whether a measurement exceeds (composite against the
    // average, grab against the maximum, pH on both sides); chronicViolation counts them against the percent.
    const chronicMs: Measurement[] = list.map((r) => ({ value: r.status === "EXCEEDS" ? 1 : 0, limit: 0 }));
    const chronic = chronicViolation(chronicMs, chronicPct.value);
    // TRC: upper limits only (limit x factor); a result below detection is not at or above it.
    const trcMs: Measurement[] = list.map((r) =>
      r.basis === "MINIMUM" || r.compared_value === null || r.limit_value === null ? { value: 0, limit: Number.POSITIVE_INFINITY } : { value: Number(r.compared_value), limit: Number(r.limit_value) },
    );
    const trc = trcViolation(parameter, trcMs, trcRule);
    const factor = isConventional(parameter) ? factorConventional : factorOther;
    parameters.push({
      parameter,
      total: list.length,
      exceeded: chronic.exceeded,
      atOrAboveTrc: trc.atOrAbove,
      trcFactor: trc.factor,
      chronic: chronic.snc,
      trc: trc.snc,
      measurements: list.map((r, i) => ({
        resultId: r.id,
        reportId: r.report_id,
        sampledAt: r.sampled_at,
        sampleType: r.sample_type,
        value: r.compared_value === null ? null : Number(r.compared_value),
        limit: r.limit_value === null ? null : Number(r.limit_value),
        exceeds: r.status === "EXCEEDS",
        atOrAboveTrc: trcMs[i].limit !== Number.POSITIVE_INFINITY && trcMs[i].value >= trcMs[i].limit * trc.factor - 1e-12,
      })),
    });
    if (chronic.snc)
      findings.push(chronicFinding(parameter, chronic, chronicPct.value, rb.entry("industrial.sncChronicPercent").section));
    if (trc.snc)
      findings.push(trcFinding(parameter, trc, trcPct.value, factor.section));
  }
  // (f) Reports due up to the end of the period, more than the rulebook's days late (signed late, or still missing).
  const reports: any[] = await ds.query(
    `SELECT r.id, r.due_on::text AS due_on, r.period_start::text AS period_start, r.period_end::text AS period_end, r.signed_at,
            (SELECT min(a.signed_at) FROM industrial_report a WHERE a.amends_id = r.id) AS amended_at
       FROM industrial_report r WHERE r.permit_id = $1 AND r.amends_id IS NULL AND r.due_on BETWEEN $2 AND $3 ORDER BY r.due_on`,
    [p.id, start, end],
  );
  for (const r of reports) {
    const signedOn = r.signed_at ? dateIn(district.timeZone, r.signed_at) : null;
    const late = lateReport(r.due_on, signedOn, today, lateDays.value);
    if (late.snc)
      findings.push(lateFinding(r, signedOn, late.daysLate, lateDays.value, rb.entry("industrial.sncLateReportDays").section));
  }
  // (e) Milestones, from the progress reports (1004 A(12)(c)).
  const met: any[] = await ds.query(`SELECT milestone_index, min(met_on)::text AS met_on FROM industrial_progress_report WHERE permit_id = $1 AND met GROUP BY milestone_index`, [p.id]);
  const ms = rb.entry("industrial.sncMilestoneDays");
  findings.push(
    ...milestoneFindings(p.complianceSchedule as any, new Map(met.map((m) => [m.milestone_index as number, m.met_on as string])), { start, end }, today, typeof ms.value === "number" ? ms.value : null, ms.section),
  );
  return {
    permitId: p.id,
    periodStart: start,
    periodEnd: end,
    inSnc: findings.length > 0,
    findings,
    parameters,
    notJudged: [milestoneNote(rb), OPERATOR_NOTE],
  };
}

// ---------------------------------------------------------------------------------------------
// The district's SNC dashboard (SUL 201) and the published list (SUL 1122)

export type SncCriterion = SncFinding["criterion"];
export type DashboardParameter = { parameter: string; total: number; exceeded: number; atOrAboveTrc: number; trcFactor: number; chronic: boolean; trc: boolean };
export type DashboardPermit = {
  permitId: string;
  permitNumber: string;
  facilityName: string | null;
  organizationId: string;
  organizationName: string;
  status: string;
  inSnc: boolean;
  criteria: SncCriterion[];
  findings: SncFinding[];
  parameters: DashboardParameter[];
  reportsDue: number;
};
export type Publication = { id: string; districtId: string; periodStart: string; periodEnd: string; publishedOn: string; publishedAt: Date; publishedByName: string; section: string };
export type SncDashboard = {
  districtId: string;
  periodStart: CalendarDate;
  periodEnd: CalendarDate;
  periods: CalendarDate[];
  permits: DashboardPermit[];
  inSncCount: number;
  notJudged: string[];
  publication: Publication | null;
  publicationEnabled: boolean;
  publicationSection: string;
  canPublish: boolean;
  publishableFrom: CalendarDate;
};

type SncRules = {
  chronicPercent: number;
  trc: { percent: number; factorConventional: number; factorOther: number };
  lateDays: number;
  milestoneDays: number | null;
  sections: { chronic: string; conventional: string; other: string; late: string; milestone: string };
};
function sncRules(rb: Rulebook): SncRules {
  return {
    chronicPercent: rb.require("industrial.sncChronicPercent").value,
    trc: { percent: rb.require("industrial.sncTrcPercent").value, factorConventional: rb.require("industrial.sncTrcFactorConventional").value, factorOther: rb.require("industrial.sncTrcFactorOther").value },
    lateDays: rb.require("industrial.sncLateReportDays").value,
    milestoneDays: typeof rb.entry("industrial.sncMilestoneDays").value === "number" ? (rb.entry("industrial.sncMilestoneDays").value as number) : null,
    sections: {
      milestone: rb.entry("industrial.sncMilestoneDays").section,
      chronic: rb.entry("industrial.sncChronicPercent").section,
      conventional: rb.entry("industrial.sncTrcFactorConventional").section,
      other: rb.entry("industrial.sncTrcFactorOther").section,
      late: rb.entry("industrial.sncLateReportDays").section,
    },
  };
}

/** The half-years (of the rulebook's months) a dashboard can show: the one holding `today` and the nine before it. */
function periodOf(today: CalendarDate, months: number): CalendarDate {
  const m = Number(today.slice(5, 7)) - 1;
  return `${today.slice(0, 4)}-${String(m - (m % months) + 1).padStart(2, "0")}-01`;
}

/**
 * Every permit of the district in force during one period with its significant non-compliance
 * (SUL 201), in a fixed number of SQL statements however many permits and however many years of
 * results are kept: the results are counted in SQL over the period only, through the index on
 * (permit, sample time); the pure criteria of limits.ts judge the counts.
 */
export async function sncDashboard(ds: DataSource, viewer: Viewer, input: { districtId: string; periodStart?: string | null }): Promise<SncDashboard> {
  if (!isUuid(input.districtId) || !isStaff(viewer, input.districtId)) throw forbidden("Only this district's staff see its significant non-compliance.");
  const district = await loadDistrict(ds, input.districtId);
  const current = await rulebookOn(ds, district);
  const period = current.entry("industrial.sncPeriodMonths");
  if (typeof period.value !== "number")
    throw conflict(`This district's rulebook sets no period for significant non-compliance (${period.section})${period.note ? `: ${period.note}` : "."}`);
  const months = period.value;
  const today = dateIn(district.timeZone);
  const now = periodOf(today, months);
  const start = input.periodStart ?? now;
  if (!isCalendarDate(start) || periodOf(start, months) !== start)
    throw badInput({ periodStart: `Choose the first day of a ${months}-month period, like ${now} (${current.entry("industrial.sncPeriodMonths").section}).` });
  if (start > now) throw badInput({ periodStart: `The period starting ${start} has not begun.` });
  const end = addCalendarDays(addMonths(start, months), -1);
  const from = zonedWallTime(Date.parse(`${start}T00:00:00Z`), district.timeZone);
  const to = zonedWallTime(Date.parse(`${addCalendarDays(end, 1)}T00:00:00Z`), district.timeZone);
  const periods: CalendarDate[] = [];
  for (let k = 0; k < 10; k++) periods.push(addMonths(now, -months * k));

  // 1. The permits in force for some of the period (issued, or revoked or superseded after it began).
  const permits: any[] = await ds.query(
    `SELECT p.id, p.permit_number, p.facility_name, p.status, p.organization_id, o.name AS organization_name, p.rulebook_version_id, p.compliance_schedule,
            (SELECT json_agg(json_build_object('i', g.milestone_index, 'on', g.met_on)) FROM (SELECT milestone_index, min(met_on)::text AS met_on FROM industrial_progress_report
                WHERE permit_id = p.id AND met GROUP BY milestone_index) g) AS milestones_met
       FROM industrial_permit p JOIN organization o ON o.id = p.organization_id
      WHERE p.district_id = $1 AND p.status IN ('ISSUED', 'REVOKED', 'SUPERSEDED') AND p.effective_on <= $3 AND p.expires_on >= $2 AND (p.revoked_at IS NULL OR p.revoked_at >= $4)
        AND (p.status <> 'SUPERSEDED' OR p.superseded_on > $2)
      ORDER BY p.permit_number`,
    [district.id, start, end, from],
  );
  // Each permit is judged by its own rulebook (cached by version: no statement per permit once warm).
  const rules = new Map<string, SncRules>();
  for (const p of permits) if (p.rulebook_version_id && !rules.has(p.rulebook_version_id)) rules.set(p.rulebook_version_id, sncRules(await rulebookById(ds, p.rulebook_version_id)));
  const currentRules = sncRules(current);
  const ruleOf = (p: any) => (p.rulebook_version_id ? rules.get(p.rulebook_version_id)! : currentRules);
  const ids = permits.map((p) => p.id as string);

  // 2. Per permit and parameter: measurements, over the limit, and at or above each TRC factor of
  // the permit's rulebook (the factor that applies is chosen below by limits.ts). An amended
  // report's results stand for the signed one's, as in permitSnc.
  const counts: any[] = ids.length
    ? await ds.query(
        `SELECT x.permit_id, x.parameter, count(*)::int AS total,
                count(*) FILTER (WHERE x.status = 'EXCEEDS')::int AS exceeded,
                count(*) FILTER (WHERE x.basis IS DISTINCT FROM 'MINIMUM' AND x.compared_value >= x.limit_value * f.conventional)::int AS trc_conventional,
                count(*) FILTER (WHERE x.basis IS DISTINCT FROM 'MINIMUM' AND x.compared_value >= x.limit_value * f.other)::int AS trc_other
           FROM unnest($1::uuid[], $2::numeric[], $3::numeric[]) AS f(permit_id, conventional, other)
           JOIN industrial_result x ON x.permit_id = f.permit_id AND x.sampled_at >= $4 AND x.sampled_at < $5
          WHERE x.status IN ('OK', 'EXCEEDS')
            AND NOT EXISTS (SELECT 1 FROM industrial_report a WHERE a.amends_id = x.report_id)
          GROUP BY x.permit_id, x.parameter
          ORDER BY x.permit_id, x.parameter`,
        [ids, permits.map((p) => ruleOf(p).trc.factorConventional), permits.map((p) => ruleOf(p).trc.factorOther), from, to],
      )
    : [];
  // 3. The reports due in the period (about one per permit).
  const reports: any[] = ids.length
    ? await ds.query(
        `SELECT r.permit_id, r.id, r.due_on::text AS due_on, r.period_start::text AS period_start, r.period_end::text AS period_end, r.signed_at
           FROM industrial_report r WHERE r.permit_id = ANY($1::uuid[]) AND r.amends_id IS NULL AND r.due_on BETWEEN $2 AND $3 ORDER BY r.due_on, r.id`,
        [ids, start, end],
      )
    : [];
  // 4. Whether the period's list has been published.
  const publication = (await publicationsOf(ds, district.id, start))[0] ?? null;

  const byPermit = new Map<string, DashboardPermit>();
  const out: DashboardPermit[] = permits.map((p) => {
    const row: DashboardPermit = {
      permitId: p.id,
      permitNumber: p.permit_number,
      facilityName: p.facility_name,
      organizationId: p.organization_id,
      organizationName: p.organization_name,
      status: p.status,
      inSnc: false,
      criteria: [],
      findings: [],
      parameters: [],
      reportsDue: 0,
    };
    byPermit.set(p.id, row);
    return row;
  });
  const ruleById = new Map(permits.map((p) => [p.id as string, ruleOf(p)]));
  for (const c of counts) {
    const row = byPermit.get(c.permit_id)!;
    const r = ruleById.get(c.permit_id)!;
    const chronic = chronicFromCounts(c.exceeded, c.total, r.chronicPercent);
    const factor = trcFactor(c.parameter, r.trc);
    const trc = trcFromCounts(c.parameter, factor === r.trc.factorConventional ? c.trc_conventional : c.trc_other, c.total, r.trc);
    row.parameters.push({ parameter: c.parameter, total: c.total, exceeded: chronic.exceeded, atOrAboveTrc: trc.atOrAbove, trcFactor: trc.factor, chronic: chronic.snc, trc: trc.snc });
    if (chronic.snc) row.findings.push(chronicFinding(c.parameter, chronic, r.chronicPercent, r.sections.chronic));
    if (trc.snc) row.findings.push(trcFinding(c.parameter, trc, r.trc.percent, isConventional(c.parameter) ? r.sections.conventional : r.sections.other));
  }
  for (const rep of reports) {
    const row = byPermit.get(rep.permit_id)!;
    const r = ruleById.get(rep.permit_id)!;
    row.reportsDue++;
    const signedOn = rep.signed_at ? dateIn(district.timeZone, rep.signed_at) : null;
    const late = lateReport(rep.due_on, signedOn, today, r.lateDays);
    if (late.snc) row.findings.push(lateFinding(rep, signedOn, late.daysLate, r.lateDays, r.sections.late));
  }
  // (e) Milestones, from the progress reports read with the permits.
  for (const p of permits) {
    const r = ruleById.get(p.id)!;
    const met = new Map<number, string>((p.milestones_met ?? []).map((m: any) => [m.i as number, m.on as string]));
    byPermit.get(p.id)!.findings.push(...milestoneFindings(p.compliance_schedule, met, { start, end }, today, r.milestoneDays, r.sections.milestone));
  }
  for (const row of out) {
    row.inSnc = row.findings.length > 0;
    row.criteria = [...new Set(row.findings.map((f) => f.criterion))];
  }
  out.sort((a, b) => Number(b.inSnc) - Number(a.inSnc) || (a.permitNumber < b.permitNumber ? -1 : a.permitNumber > b.permitNumber ? 1 : 0));
  const enabled = current.entry("industrial.sncPublicationEnabled");
  return {
    districtId: district.id,
    periodStart: start,
    periodEnd: end,
    periods,
    permits: out,
    inSncCount: out.filter((p) => p.inSnc).length,
    notJudged: [milestoneNote(current), OPERATOR_NOTE],
    publication,
    publicationEnabled: enabled.value === true,
    publicationSection: enabled.section,
    canPublish: enabled.value === true && !publication && end < today && (hasRole(viewer, "OPERATOR", district.id) || hasRole(viewer, "ADMIN", district.id)),
    publishableFrom: addCalendarDays(end, 1),
  };
}

async function publicationsOf(db: Pick<DataSource, "query">, districtId: string, periodStart: string | null): Promise<Publication[]> {
  const rows: any[] = await db.query(
    `SELECT s.id, s.district_id, s.period_start::text AS period_start, s.period_end::text AS period_end, s.published_on::text AS published_on, s.published_at, s.section, u.display_name
       FROM industrial_snc_publication s JOIN app_user u ON u.id = s.published_by_id
      WHERE s.district_id = $1 AND ($2::date IS NULL OR s.period_start = $2::date) ORDER BY s.period_start DESC`,
    [districtId, periodStart],
  );
  return rows.map((r) => ({
    id: r.id,
    districtId: r.district_id,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    publishedOn: r.published_on,
    publishedAt: r.published_at,
    publishedByName: r.display_name,
    section: r.section,
  }));
}

/**
 * SUL 1122: the Operator (or an administrator) freezes the list of users in significant
 * non-compliance for a period that has ended: one row per organization with the criteria met,
 * as the dashboard judged them at that moment. A period is published once.
 */
export async function publishSncList(ds: DataSource, viewer: Viewer, input: { districtId: string; periodStart: string }, requestId?: string, publicUrl = ""): Promise<Publication> {
  if (!isUuid(input.districtId) || !isStaff(viewer, input.districtId)) throw forbidden("Only this district's staff publish its list.");
  if (!hasRole(viewer, "OPERATOR", input.districtId) && !hasRole(viewer, "ADMIN", input.districtId)) throw forbidden("Only the District Operator or an administrator publishes the list (SUL 1122).");
  const board = await sncDashboard(ds, viewer, input);
  const district = await loadDistrict(ds, input.districtId);
  const rb = await rulebookOn(ds, district);
  const enabled = rb.entry("industrial.sncPublicationEnabled");
  if (enabled.value !== true) throw conflict(`This district's law does not publish users in significant non-compliance (${enabled.section}).`);
  const today = dateIn(district.timeZone);
  if (board.periodEnd >= today) throw conflict(`The period ends on ${formatDate(board.periodEnd)}; its list can be published from ${formatDate(board.publishableFrom)}.`);
  if (board.publication) throw conflict(`The list for ${formatDate(board.periodStart)} to ${formatDate(board.periodEnd)} was published on ${formatDate(board.publication.publishedOn)}.`);
  // One row per organization: its permits in SNC and the criteria met by any of them.
  const byOrg = new Map<string, { organizationId: string; organizationName: string; permitIds: string[]; permitNumbers: string[]; criteria: Set<SncCriterion>; findings: { permitNumber: string; criterion: string; parameter: string | null; text: string; section: string }[] }>();
  for (const p of board.permits.filter((x) => x.inSnc)) {
    const o = byOrg.get(p.organizationId) ?? byOrg.set(p.organizationId, { organizationId: p.organizationId, organizationName: p.organizationName, permitIds: [], permitNumbers: [], criteria: new Set(), findings: [] }).get(p.organizationId)!;
    o.permitIds.push(p.permitId);
    o.permitNumbers.push(p.permitNumber);
    for (const f of p.findings) {
      o.criteria.add(f.criterion);
      o.findings.push({ permitNumber: p.permitNumber, criterion: f.criterion, parameter: f.parameter, text: f.text, section: f.section });
    }
  }
  const orgs = [...byOrg.values()].sort((a, b) => a.organizationName.localeCompare(b.organizationName));
  return ds.transaction(async (tx) => {
    const [pub] = await tx.query(
      `INSERT INTO industrial_snc_publication (district_id, period_start, period_end, published_on, published_by_id, section)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (district_id, period_start) DO NOTHING RETURNING id`,
      [district.id, board.periodStart, board.periodEnd, today, viewer.userId, enabled.section],
    );
    if (!pub) throw conflict(`The list for ${board.periodStart} to ${board.periodEnd} has just been published.`);
    if (orgs.length)
      await tx.query(
        `INSERT INTO industrial_snc_listing (publication_id, position, organization_id, organization_name, permit_ids, permit_numbers, criteria, findings)
         SELECT $1, o.position, o.organization_id, o.organization_name, o.permit_ids, o.permit_numbers, o.criteria, o.findings
           FROM jsonb_to_recordset($2::jsonb) AS o(position int, organization_id uuid, organization_name text, permit_ids uuid[], permit_numbers text[], criteria text[], findings jsonb)`,
        [
          pub.id,
          JSON.stringify(
            orgs.map((o, i) => ({
              position: i,
              organization_id: o.organizationId,
              organization_name: o.organizationName,
              permit_ids: o.permitIds,
              permit_numbers: o.permitNumbers,
              criteria: [...o.criteria],
              findings: o.findings,
            })),
          ),
        ],
      );
    await audit(tx, { userId: viewer.userId, requestId }, {
      action: "industrial.snc_list_published",
      entityType: "IndustrialSncPublication",
      entityId: pub.id,
      districtId: district.id,
      details: { periodStart: board.periodStart, periodEnd: board.periodEnd, organizations: orgs.map((o) => o.organizationName) },
    });
    // Each listed organization's owners and Authorized Representatives learn of it from the
    // district, not from the newspaper (SUL 1122), with the findings behind it.
    await notifyMembersOfEach(
      tx,
      district,
      "industrial.snc_listed",
      orgs.map((o) => ({
        organizationId: o.organizationId,
        subject: `${o.organizationName} is on ${district.name}'s published list of significant non-compliance, ${formatDate(board.periodStart)} to ${formatDate(board.periodEnd)}`,
        body:
          `${district.name} has published its list of industrial users in significant non-compliance for ${formatDate(board.periodStart)} to ` +
          `${formatDate(board.periodEnd)} (Sewer Use Law 201, 1122). ${o.organizationName} is on it, for permit${o.permitNumbers.length === 1 ? "" : "s"} ${o.permitNumbers.join(", ")}:\n` +
          o.findings.map((f) => `  ${f.permitNumber}: ${f.text} (${f.section})`).join("\n") +
          `\n\nThe published list: ${publicUrl}/public-records/snc\n\nTo discuss the findings, contact the District Operator.`,
      })),
    );
    return (await publicationsOf(tx, district.id, board.periodStart))[0];
  });
}

export type PublishedListing = { organizationName: string; permitNumbers: string[]; criteria: SncCriterion[]; findings: { permitNumber: string; criterion: string; parameter: string | null; text: string; section: string }[] };
export type PublishedList = Publication & { districtName: string; listings: PublishedListing[] };

/**
 * Public (SUL 1122, 1014): the published lists, newest period first, with each organization's
 * permit numbers and the criteria met. Built only from the frozen rows (no trade-secret text is
 * ever copied into them). One statement.
 */
export async function publishedSncLists(ds: DataSource, districtId: string | null): Promise<PublishedList[]> {
  const rows: any[] = await ds.query(
    `SELECT s.id, s.district_id, d.name AS district_name, s.period_start::text AS period_start, s.period_end::text AS period_end, s.published_on::text AS published_on,
            s.published_at, s.section, u.display_name,
            COALESCE((SELECT json_agg(json_build_object('organizationName', l.organization_name, 'permitNumbers', l.permit_numbers, 'criteria', l.criteria, 'findings', l.findings) ORDER BY l.position)
                        FROM industrial_snc_listing l WHERE l.publication_id = s.id), '[]') AS listings
       FROM industrial_snc_publication s JOIN district d ON d.id = s.district_id JOIN app_user u ON u.id = s.published_by_id
      WHERE ($1::uuid IS NULL OR s.district_id = $1) ORDER BY s.period_start DESC, d.name LIMIT 100`,
    [districtId],
  );
  return rows.map((r) => ({
    id: r.id,
    districtId: r.district_id,
    districtName: r.district_name,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    publishedOn: r.published_on,
    publishedAt: r.published_at,
    publishedByName: r.display_name,
    section: r.section,
    listings: r.listings,
  }));
}
