import type { DataSource } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { addCalendarDays, dateIn, isCalendarDate, zonedWallTime, type CalendarDate } from "../common/dates.js";
import { badInput, notFound } from "../common/errors.js";
import { rulebookById, rulebookOn } from "../districts/districts.service.js";
import { loadDistrict, loadPermit } from "./common.js";
import { chronicViolation, isConventional, lateReport, trcViolation, type Measurement } from "./limits.js";
import { addMonths } from "./permits.service.js";

/**
 * Significant non-compliance of one permit over one period (SUL 201): (a) chronic and (b)
 * technical review criteria per parameter, from the results of the period's samples (an amended
 * report's results stand in for the signed one's); (f) reports more than the rulebook's days late.
 * (e) milestones are not judged: the portal does not record progress reports yet. (c), (d), (g)
 * and (h) are the Operator's findings. Every figure comes from the permit's rulebook.
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
export type SncFinding = { criterion: "CHRONIC" | "TRC" | "LATE_REPORT"; text: string; section: string; parameter: string | null; reportId: string | null };
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

export async function permitSnc(ds: DataSource, viewer: Viewer, input: { permitId: string; periodStart?: string | null }): Promise<SncResult> {
  const p = await loadPermit(ds, input.permitId);
  if (!p || !p.submittedAt || !isStaff(viewer, p.districtId)) throw notFound("That permit");
  const district = await loadDistrict(ds, p.districtId);
  const rb = p.rulebookVersionId ? await rulebookById(ds, p.rulebookVersionId) : await rulebookOn(ds, district);
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
      findings.push({
        criterion: "CHRONIC",
        parameter,
        reportId: null,
        section: rb.entry("industrial.sncChronicPercent").section,
        text: `Chronic violation: ${chronic.exceeded} of ${chronic.total} ${parameter} measurements (${pct(chronic.exceeded, chronic.total)}) exceed the limit; ${chronicPct.value}% or more is significant non-compliance.`,
      });
    if (trc.snc)
      findings.push({
        criterion: "TRC",
        parameter,
        reportId: null,
        section: factor.section,
        text: `Technical review criteria: ${trc.atOrAbove} of ${trc.total} ${parameter} measurements (${pct(trc.atOrAbove, trc.total)}) are at or above ${trc.factor} times the limit; ${trcPct.value}% or more is significant non-compliance.`,
      });
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
      findings.push({
        criterion: "LATE_REPORT",
        parameter: null,
        reportId: r.id,
        section: rb.entry("industrial.sncLateReportDays").section,
        text: `The report for ${r.period_start} to ${r.period_end}, due ${r.due_on}, ${signedOn ? `was received ${late.daysLate} days late` : `is ${late.daysLate} days late and not received`}; more than ${lateDays.value} days is significant non-compliance.`,
      });
  }
  return {
    permitId: p.id,
    periodStart: start,
    periodEnd: end,
    inSnc: findings.length > 0,
    findings,
    parameters,
    notJudged: [
      `Compliance schedule milestones missed by ${rb.entry("industrial.sncMilestoneDays").value} days or more (${rb.entry("industrial.sncMilestoneDays").section}): the portal does not record progress reports yet.`,
      "Interference, pass-through or endangerment, inaccurate reporting and other violations: the District Operator's findings.",
    ],
  };
}
