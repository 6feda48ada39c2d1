import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, formatDate, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, conflict } from "../common/errors.js";
import { actorOf, loadDistrict, rowOf, type Db } from "./common.js";
import { convert, parseUnit } from "./limits.js";
import { editableReport } from "./reports.service.js";

/**
 * Daily flows in a periodic compliance report (SUL 1005(3)(a)): the report records every daily
 * flow of the period that exceeded the average daily flow the user gave in its application
 * (SUL 1004 A(4)). The user enters the period's daily flows (the meter's readings); each is judged
 * against the application's average and the days above it are flagged. Entered in gallons per day
 * or MGD, stored in gpd with what was entered; frozen with the report when it is signed.
 */

export type DailyFlowRow = {
  id: string;
  reportId: string;
  permitId: string;
  day: CalendarDate;
  flowGpd: number;
  enteredValue: number;
  enteredUnit: "gpd" | "MGD";
  averageGpd: number | null;
  aboveAverage: boolean;
  createdById: string;
  createdAt: Date;
};

export type DailyFlowInput = { day: string; flow: number | null; unit: string };

const MAX_DAYS = 400;

export async function dailyFlowsOf(db: Db, reportIds: readonly string[]): Promise<DailyFlowRow[]> {
  if (!reportIds.length) return [];
  const rows = await db.query(`SELECT * FROM industrial_daily_flow WHERE report_id = ANY($1::uuid[]) ORDER BY report_id, day`, [reportIds]);
  return rows.map((r: Record<string, unknown>) => {
    const x = rowOf<DailyFlowRow>(r);
    return { ...x, day: String(r.day instanceof Date ? r.day.toISOString() : r.day).slice(0, 10), flowGpd: Number(r.flow_gpd), enteredValue: Number(r.entered_value), averageGpd: r.average_gpd === null ? null : Number(r.average_gpd) };
  });
}

/** What a day's flow means against the application's average, in the report's words. */
const wholeNumber = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
export function flowFinding(f: Pick<DailyFlowRow, "flowGpd" | "averageGpd" | "aboveAverage">): string {
  const gpd = (n: number) => `${wholeNumber.format(n)} gpd`;
  if (f.averageGpd === null) return "The application gives no average daily flow to compare with (Sewer Use Law 1004 A(4)).";
  return f.aboveAverage
    ? `Above the average daily flow of ${gpd(f.averageGpd)} in the application: reported under Sewer Use Law 1005(3)(a).`
    : `At or under the average daily flow of ${gpd(f.averageGpd)} in the application.`;
}

/**
 * Replaces the report's daily flows with the list given (all or nothing; an empty list clears
 * them). One flow a day, within the report's period and not after today in the district's zone.
 */
export async function setDailyFlows(ds: DataSource, viewer: Viewer, reportId: string, inputs: DailyFlowInput[], requestId?: string): Promise<DailyFlowRow[]> {
  if (inputs.length > MAX_DAYS) throw badInput({ flows: `At most ${MAX_DAYS} days at once.` });
  return ds.transaction(async (tx) => {
    const { r, p } = await editableReport(tx, viewer, reportId);
    if (r.kind !== "PERIODIC") throw conflict("Daily flows are part of the periodic compliance report (Sewer Use Law 1005(3)(a)).");
    const district = await loadDistrict(tx, p.districtId);
    const today = dateIn(district.timeZone, clock.now());
    const average = p.averageFlowGpd === null ? null : Number(p.averageFlowGpd);
    const errors: Record<string, string> = {};
    const seen = new Map<string, number>();
    const rows: { day: string; flow_gpd: number; entered_value: number; entered_unit: string; above: boolean }[] = [];
    inputs.forEach((input, i) => {
      const e: string[] = [];
      const day = String(input.day ?? "").trim();
      if (!isCalendarDate(day)) e.push("Give the day as YYYY-MM-DD.");
      else if (day < r.periodStart || day > r.periodEnd) e.push(`The day must fall within the report's period, ${formatDate(r.periodStart)} to ${formatDate(r.periodEnd)}.`);
      else if (day > today) e.push("The day is in the future.");
      else if (seen.has(day)) e.push(`${formatDate(day)} is given twice (also on line ${seen.get(day)! + 1}).`);
      const unit = parseUnit(String(input.unit ?? ""));
      if (unit !== "gpd" && unit !== "MGD") e.push(`Give the flow in gpd or MGD, not "${input.unit ?? ""}".`);
      const flow = input.flow;
      if (flow === null || flow === undefined || !Number.isFinite(flow) || flow < 0) e.push("Enter the day's flow (zero or more).");
      if (e.length) {
        errors[`flows.${i}`] = e.join(" ");
        return;
      }
      seen.set(day, i);
      const gpd = convert(flow!, unit!, "gpd");
      rows.push({ day, flow_gpd: gpd, entered_value: flow!, entered_unit: unit!, above: average !== null && gpd > average });
    });
    if (Object.keys(errors).length) throw badInput(errors, "Some daily flows need correcting; none were saved.");
    await tx.query(`DELETE FROM industrial_daily_flow WHERE report_id = $1`, [r.id]);
    if (rows.length)
      await tx.query(
        `INSERT INTO industrial_daily_flow (report_id, permit_id, day, flow_gpd, entered_value, entered_unit, average_gpd, above_average, created_by_id, created_at)
         SELECT $1, $2, x.day, x.flow_gpd, x.entered_value, x.entered_unit, $3, x.above, $4, $5
           FROM jsonb_to_recordset($6::jsonb) AS x(day date, flow_gpd numeric, entered_value numeric, entered_unit text, above boolean)`,
        [r.id, p.id, average, viewer.userId, clock.now(), JSON.stringify(rows)],
      );
    const now = clock.now();
    if (r.status === "DUE") await tx.query(`UPDATE industrial_report SET status = 'DRAFT', started_at = $2, updated_at = $2 WHERE id = $1`, [r.id, now]);
    else await tx.query(`UPDATE industrial_report SET updated_at = $2 WHERE id = $1`, [r.id, now]);
    const above = rows.filter((x) => x.above);
    await audit(tx, actorOf(viewer, requestId), {
      action: "industrial.daily_flows_saved",
      entityType: "IndustrialReport",
      entityId: r.id,
      districtId: p.districtId,
      details: { days: rows.length, aboveAverage: above.map((x) => ({ day: x.day, flowGpd: x.flow_gpd })), averageGpd: average },
    });
    return dailyFlowsOf(tx, [r.id]);
  });
}
