import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, endOfDay, addCalendarDays, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { formatDate, formatTime } from "../common/format.js";
import { decodeCursor, encodeCursor, pageSize } from "../common/paging.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { districtCode } from "../districts/district-code.js";
import { isUuid } from "../documents/documents.service.js";
import { uuid7 } from "../common/uuid7.js";
import type { Page } from "../graphql/page.js";
import {
  billingCycles,
  thousands,
  billingPeriod,
  boardTasksForBills,
  daysServed,
  earliestMailing,
  farFromHistory,
  FLAG_LABELS,
  fixedPart,
  huronUserCharge,
  mailingAndDue,
  ownersExcess,
  reinstatementMinimums,
  surcharge,
  surchargeRates,
  useCharge,
  variablePart,
  yearDays,
  type BillLine,
  type BillTask,
  type Cycle,
  type FlagCode,
} from "./bill-rules.js";
import { queryPrepared } from "../db/prepared.js";
import { actorOf, isLinked, type Db, type Meta } from "./common.js";
import { useOfAccount, useOfMeters, useParams, usePeriod } from "./consumption.js";
import { inflowCharges } from "./inflow-charges.js";
import { formatEdus } from "./rules.js";

/**
 * Bill runs (issue 14): the Clerk previews a period's bills for a billing cycle, looks at what is
 * flagged, and issues them. Previewing computes every account's bill in batches (set-based SQL, a
 * fixed number of statements a batch, memory flat); issuing numbers, freezes and emails them in
 * batches, each batch one transaction with its audit entry, so a run stopped halfway is resumed by
 * issuing again. The unique indexes of migration 1766810000000 make a second bill for an account
 * and period impossible, however often a run is started.
 */

export const BATCH = 5000;
/** Preview batches whose bills are being inserted while the next one is read and computed. */
const INSERTS_IN_FLIGHT = 2;

export type Flag = { code: FlagCode; text: string };
export type RunView = {
  id: string;
  districtId: string;
  cycle: Cycle;
  periodStart: CalendarDate;
  periodEnd: CalendarDate;
  status: "PREVIEW" | "ISSUING" | "ISSUED";
  rulebookVersion: number;
  mailedOn: CalendarDate | null;
  dueOn: CalendarDate | null;
  earliestMailing: CalendarDate;
  tasks: BillTask[];
  billCount: number;
  flaggedCount: number;
  issuedCount: number;
  totalCents: number;
  previewedAt: Date;
  issuedAt: Date | null;
};

const RUN_COLUMNS = `r.id, r.district_id, r.cycle, r.period_start::text AS period_start, r.period_end::text AS period_end, r.status, r.rulebook_version_id, v.version AS rulebook_version,
  r.mailed_on::text AS mailed_on, r.due_on::text AS due_on, r.tasks, r.bill_count, r.flagged_count, r.issued_count, r.total_cents::text AS total_cents, r.previewed_at, r.issued_at`;

const toRun = (r: any): RunView => ({
  id: r.id,
  districtId: r.district_id,
  cycle: r.cycle,
  periodStart: r.period_start,
  periodEnd: r.period_end,
  status: r.status,
  rulebookVersion: r.rulebook_version,
  mailedOn: r.mailed_on,
  dueOn: r.due_on,
  earliestMailing: earliestMailing(r.period_end),
  tasks: r.tasks ?? [],
  billCount: r.bill_count,
  flaggedCount: r.flagged_count,
  issuedCount: r.issued_count,
  totalCents: Number(r.total_cents),
  previewedAt: r.previewed_at,
  issuedAt: r.issued_at,
});

async function loadDistrict(db: Db, id: string): Promise<District> {
  const d = isUuid(id) ? await db.getRepository(District).findOneBy({ id }) : null;
  if (!d) throw notFound("That district");
  return d;
}

function requireStaff(viewer: Viewer, districtId: string) {
  if (!isStaff(viewer, districtId)) throw forbidden("Only staff of this district can see its bill runs.");
}
/** SUL 1214; Huron VIIA-2: the Town Clerk (the sewer billing clerk) runs and issues the bills. */
function requireClerk(viewer: Viewer, districtId: string) {
  if (!hasRole(viewer, "CLERK", districtId)) throw forbidden("Only the Town Clerk of this district runs and issues its bills.");
}

async function runRow(db: Db, viewer: Viewer, id: string, lock = false): Promise<RunView> {
  if (!isUuid(id)) throw notFound("That bill run");
  if (lock) await db.query(`SELECT id FROM bill_run WHERE id = $1 FOR UPDATE`, [id]);
  const [r] = await db.query(`SELECT ${RUN_COLUMNS} FROM bill_run r JOIN rulebook_version v ON v.id = r.rulebook_version_id WHERE r.id = $1`, [id]);
  if (!r || !isStaff(viewer, r.district_id)) throw notFound("That bill run");
  return toRun(r);
}

export async function getBillRun(db: Db, viewer: Viewer, id: string): Promise<RunView> {
  return runRow(db, viewer, id);
}

export type CycleView = { cycle: Cycle; months: number; section: string; classes: string[] };

/** The district's runs, newest period first, and its cycles (SUL 1206; Huron VI-3). */
export async function listBillRuns(db: Db, viewer: Viewer, districtId: string): Promise<{ runs: RunView[]; cycles: CycleView[]; tasks: BillTask[] }> {
  const district = await loadDistrict(db, districtId);
  requireStaff(viewer, district.id);
  const rb = await rulebookOn(db, district);
  const rows = await db.query(
    `SELECT ${RUN_COLUMNS} FROM bill_run r JOIN rulebook_version v ON v.id = r.rulebook_version_id WHERE r.district_id = $1 ORDER BY r.period_start DESC, r.id LIMIT 100`,
    [district.id],
  );
  return { runs: rows.map(toRun), cycles: billingCycles(rb).map((c) => ({ cycle: c.cycle, months: c.months, section: c.section, classes: c.classes })), tasks: boardTasksForBills(rb) };
}

// ---------------------------------------------------------------------------------------------
// Preview

type AccountRow = {
  id: string;
  property_id: string;
  class: string;
  account_number: string;
  occupant_name: string;
  owner_name: string;
  occupancy: string;
  opened_on: string;
  closed_on: string | null;
  shared_meter_agreement: string | null;
  edu_thousandths: number | null;
  previous_edu: number | null;
  has_previous: boolean;
  sewer_percent: number | null;
  industrial_permit_id: string | null;
  discontinued_on: string | null;
  adjustments: { id: string; amount_cents: number; reason: string; recorded_on: string }[] | null;
  use_meters: Parameters<typeof useOfMeters>[0];
};

type Drafted = { accountId: string | null; meterId: string | null; propertyId: string; billTo: string; from: CalendarDate; to: CalendarDate; final: boolean; gallons: number | null; edu: number | null; flags: Flag[]; lines: (BillLine & { adjustmentId?: string; inflowDeterminationId?: string })[] };

/**
 * Computes (again, while the run is a preview) every bill of the district's cycle and period:
 * creates the run, or replaces its preview's bills. Refused once issuing has begun: an issued bill
 * is never redone (corrections are adjustments on the next bill).
 */
export async function previewBillRun(ds: DataSource, viewer: Viewer, input: { districtId: string; cycle: string; periodStart: string }, meta: Meta): Promise<RunView> {
  const district = await loadDistrict(ds, input.districtId);
  requireClerk(viewer, district.id);
  const start = (input.periodStart ?? "").trim();
  if (!isCalendarDate(start)) throw badInput({ periodStart: "Enter the period's first day like 2026-01-01." });
  const today = dateIn(district.timeZone);
  const firstRb = await rulebookOn(ds, district, start);
  const period = billingPeriod(firstRb, input.cycle, start);
  if (!period.ok) throw badInput({ [period.field]: period.message });
  if (period.end >= today) throw badInput({ periodStart: `The period ends ${formatDate(period.end)}; its bills are run once it is over.` });
  // The Board's figures in force on the period's last day.
  const rb = await rulebookOn(ds, district, period.end);
  const cycle = input.cycle as Cycle;

  const runId: string = await ds.transaction(async (tx) => {
    const open = async () => {
      const [r] = await tx.query(
        `SELECT r.id, r.status, r.computing_since, u.display_name AS computing_by FROM bill_run r LEFT JOIN app_user u ON u.id = r.computing_by_id
          WHERE r.district_id = $1 AND r.cycle = $2 AND r.period_start = $3 FOR UPDATE OF r`,
        [district.id, cycle, start],
      );
      return r;
    };
    // A second Clerk previewing the period waits for the first one's run row (its insert or its lock), then is told the preview is being computed.
    let existing = await open();
    if (!existing) {
      const [row] = await tx.query(
        `INSERT INTO bill_run (district_id, cycle, period_start, period_end, status, rulebook_version_id, previewed_by_id, previewed_at, computing_by_id, computing_since)
         VALUES ($1, $2, $3, $4, 'PREVIEW', $5, $6, $7, $6, $7) ON CONFLICT (district_id, cycle, period_start) DO NOTHING RETURNING id`,
        [district.id, cycle, start, period.end, rb.version.id, viewer.userId, clock.now()],
      );
      if (row) return row.id;
      existing = await open();
    }
    if (existing.status !== "PREVIEW")
      throw conflict(existing.status === "ISSUED" ? "This period's bills are issued; a correction is an adjustment shown on the next bill." : "This period's bills are being issued; continue issuing them.");
    computingRefusal(existing, district.timeZone, "preview it again once it is done");
    await tx.query(`DELETE FROM bill_line WHERE bill_id IN (SELECT id FROM bill WHERE run_id = $1)`, [existing.id]);
    await tx.query(`DELETE FROM bill WHERE run_id = $1`, [existing.id]);
    await tx.query(
      `UPDATE bill_run SET rulebook_version_id = $2, previewed_by_id = $3, previewed_at = $4, bill_count = 0, flagged_count = 0, total_cents = 0, computing_by_id = $3, computing_since = $4 WHERE id = $1`,
      [existing.id, rb.version.id, viewer.userId, clock.now()],
    );
    return existing.id;
  });

  const tasks: BillTask[] = boardTasksForBills(rb);
  let totals: { bills: number; flagged: number; cents: number };
  try {
    totals = await computeBills(ds, rb, { runId, districtId: district.id, cycle, start, end: period.end, classes: period.classes, months: period.months, timeZone: district.timeZone }, tasks);
  } catch (e) {
    // The preview did not finish: the period is free to be previewed again (its partial bills are replaced then).
    await ds.query(`UPDATE bill_run SET computing_by_id = NULL, computing_since = NULL WHERE id = $1`, [runId]).catch(() => undefined);
    throw e;
  }

  await ds.transaction(async (tx) => {
    await tx.query(`UPDATE bill_run SET bill_count = $2, flagged_count = $3, total_cents = $4, tasks = $5, computing_by_id = NULL, computing_since = NULL WHERE id = $1`, [
      runId,
      totals.bills,
      totals.flagged,
      totals.cents,
      JSON.stringify(dedupe(tasks)),
    ]);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "rents.bill_run_previewed",
      entityType: "BillRun",
      entityId: runId,
      districtId: district.id,
      details: { cycle, periodStart: start, periodEnd: period.end, rulebookVersion: rb.version.version, bills: totals.bills, flagged: totals.flagged, totalCents: totals.cents },
    });
  });
  return runRow(ds, viewer, runId);
}

/** How long a preview's mark holds off others: a preview that stopped without clearing it (the server stopped) frees the period after this. */
export const PREVIEW_MARK_MS = 15 * 60_000;

/** A CONFLICT when another preview of the run's period is being computed (marked less than PREVIEW_MARK_MS ago). */
function computingRefusal(r: { computing_since: Date | string | null; computing_by: string | null }, timeZone: string, then: string) {
  if (!r.computing_since) return;
  const since = new Date(r.computing_since);
  if (clock.now().getTime() - since.getTime() >= PREVIEW_MARK_MS) return;
  throw conflict(`A preview of this period is being computed by ${r.computing_by ?? "another Clerk"} (started ${formatTime(since, timeZone)}); ${then}.`);
}

const dedupe = (tasks: BillTask[]) => tasks.filter((t, i) => tasks.findIndex((x) => x.text === t.text) === i);

/**
 * A read with JIT off (SET LOCAL, in a transaction of its own): the planner's cost of thousands of
 * keyed lookups passes jit_above_cost, and compiling the plan took a third to a half of the
 * statement's time, for nothing (docs/benchmarks.md, bill runs).
 */
function withoutJit<T>(ds: DataSource, read: (tx: EntityManager) => Promise<T>): Promise<T> {
  return ds.transaction(async (tx) => {
    await tx.query(`SET LOCAL jit = off`);
    return read(tx);
  });
}

/** Every account of the cycle served in the period, in batches by id; returns the run's counts. */
async function computeBills(
  ds: DataSource,
  rb: Rulebook,
  run: { runId: string; districtId: string; cycle: Cycle; start: CalendarDate; end: CalendarDate; classes: string[]; months: number; timeZone: string },
  tasks: BillTask[],
): Promise<{ bills: number; flagged: number; cents: number }> {
  // SUL 1202: the strengths the Board has set a surcharge rate for (none under a law without one).
  const rates = surchargeRates(rb).filter((r) => r.ratePerPoundCents !== null);
  const eduBasis = rb.enabled("billing.eduAssessment");
  const huron = rb.enabled("billing.minimumPerUserBehindMeter");
  const billedToOwner = huron; // Huron VI-3: "billed to and paid by the owners of property"; SUL 1201: "all persons discharging".
  const deductions = rb.enabled("billing.flowDeductionEnabled");
  const periodDays = daysServed(run, run.start, null)!.periodDays;
  const ydays = yearDays(run.start);
  // SUL 1203's divisor: EDU-days served in the period over every account of the district, whatever
  // its cycle (summed while the first batch is read, below).
  const eduDays: Promise<bigint> = !eduBasis
    ? Promise.resolve(0n)
    : withoutJit(ds, (tx) =>
        tx.query(
          `SELECT coalesce(sum(s.edu_thousandths::bigint * (least($3::date, coalesce(a.closed_on, $3::date)) - greatest($2::date, a.opened_on) + 1)), 0)::text AS edu_days
             FROM service_account a
             CROSS JOIN LATERAL (SELECT x.edu_thousandths FROM service_assessment x
                                  WHERE x.account_id = a.id AND x.effective_on <= least($3::date, coalesce(a.closed_on, $3::date))
                                  ORDER BY x.effective_on DESC, x.entered_at DESC LIMIT 1) s
            WHERE a.district_id = $1 AND a.opened_on <= $3::date AND (a.closed_on IS NULL OR a.closed_on >= $2::date)`,
          [run.districtId, run.start, run.end],
        ),
      ).then(([{ edu_days }]: { edu_days: string }[]) => BigInt(edu_days));
  eduDays.catch(() => undefined); // awaited below
  // Huron VI-2: shared meters collected across batches for the owner's excess (only shared meters are kept).
  const sharedMeters = new Map<string, { propertyId: string; ownerName: string; users: number; minimums: number; gallons: number; agreement: boolean }>();
  // Batches' inserts in flight, oldest first: a batch's insert of bills and lines takes longer than
  // reading and computing the next batch, so with one at a time the inserts held the run back.
  const pending: Promise<{ bills: number; flagged: number; cents: number }>[] = [];
  let after = "00000000-0000-0000-0000-000000000000";
  let bills = 0;
  let flagged = 0;
  let cents = 0;
  // The next batch is read, with each account's meters, reads and history (SUL 1205: consumption.ts),
  // while this one's bills are computed: one statement a batch, by keyed lookups from its accounts.
  const usep = usePeriod(run.start, run.end);
  const batchOf = (from: string): Promise<AccountRow[]> =>
    withoutJit(ds, (tx) =>
      tx.query(
        `SELECT a.id, a.property_id, a.class, a.account_number, a.occupant_name, p.owner_name, a.occupancy, a.opened_on::text AS opened_on, a.closed_on::text AS closed_on,
                a.shared_meter_agreement, s.edu_thousandths, prev.edu_thousandths AS previous_edu, prev.id IS NOT NULL AS has_previous, fd.sewer_percent,
                a.industrial_permit_id, (SELECT d.closed_on::text FROM service_account d WHERE d.id = a.reinstates_account_id) AS discontinued_on, use.use_meters,
                (SELECT json_agg(json_build_object('id', j.id, 'amount_cents', j.amount_cents, 'reason', j.reason, 'recorded_on', j.recorded_at::date) ORDER BY j.recorded_at)
                   FROM bill_adjustment j WHERE j.account_id = a.id AND j.applied_bill_id IS NULL) AS adjustments
           FROM service_account a JOIN sewer_property p ON p.id = a.property_id
           LEFT JOIN LATERAL (SELECT x.edu_thousandths FROM service_assessment x
                               WHERE x.account_id = a.id AND x.effective_on <= least($4::date, coalesce(a.closed_on, $4::date))
                               ORDER BY x.effective_on DESC, x.entered_at DESC LIMIT 1) s ON true
           LEFT JOIN LATERAL (SELECT b.id, b.edu_thousandths FROM bill b WHERE b.account_id = a.id AND b.status = 'ISSUED' AND b.period_start < $3::date
                               ORDER BY b.period_start DESC LIMIT 1) prev ON true
           LEFT JOIN LATERAL (SELECT f.sewer_percent FROM flow_deduction_request f
                               WHERE $7 AND f.district_id = a.district_id AND f.status = 'PERCENTAGE_SET' AND lower(f.tax_parcel) = lower(p.tax_parcel)
                                 AND f.decided_at::date <= $4::date
                               ORDER BY f.decided_at DESC LIMIT 1) fd ON true
           ${useOfAccount({ from: "$8", to: "$9", historyFrom: "$10", periods: "$11" })}
          WHERE a.district_id = $1 AND a.class = ANY($2::text[]) AND a.opened_on <= $4::date AND (a.closed_on IS NULL OR a.closed_on >= $3::date)
            AND a.id > $5::uuid
          ORDER BY a.id LIMIT $6`,
        [run.districtId, run.classes, run.start, run.end, from, BATCH, deductions, ...useParams(usep)],
      ),
    );
  let next = batchOf(after);
  next.catch(() => undefined); // awaited in the loop
  const districtEduDays = await eduDays;
  for (;;) {
    const accounts = await next;
    if (!accounts.length) break;
    after = accounts[accounts.length - 1].id;
    next = batchOf(after);
    next.catch(() => undefined); // awaited on the next turn
    const strengths = rates.length ? await periodResults(ds, accounts, run) : new Map<string, { parameter: string; concentrationMgL: number }[]>();
    // SUL 705: the Operator's determinations of inflow the batch's accounts bear (one statement; none under a law without the charge).
    const inflow = await inflowCharges(ds, rb, accounts, run, tasks);
    const drafts: Drafted[] = [];
    for (const a of accounts) {
      const served = daysServed(run, a.opened_on, a.closed_on)!;
      const c = useOfMeters(a.use_meters, usep);
      const flags: Flag[] = [];
      const lines: Drafted["lines"] = [];
      if (c.noRead) flags.push({ code: "NO_READ", text: FLAG_LABELS.NO_READ });
      if (c.estimated) flags.push({ code: "ESTIMATED_READ", text: FLAG_LABELS.ESTIMATED_READ });
      const hist = farFromHistory(c.gallons, served.days, c.history);
      if (!c.noRead && hist.far)
        flags.push({ code: "FAR_FROM_HISTORY", text: `${FLAG_LABELS.FAR_FROM_HISTORY}: ${thousands(Math.round(c.gallons / served.days))} gallons a day, against ${thousands(Math.round(hist.averagePerDay ?? 0))} before` });
      if (eduBasis) {
        if (a.edu_thousandths === null) flags.push({ code: "NOT_ASSESSED", text: FLAG_LABELS.NOT_ASSESSED });
        else {
          const l = fixedPart(rb, { eduThousandths: a.edu_thousandths, days: served.days, periodDays, yearDays: ydays, districtEduDays });
          if (l) lines.push(l);
        }
        if (a.has_previous && a.previous_edu !== a.edu_thousandths)
          flags.push({ code: "EDU_CHANGED", text: `${FLAG_LABELS.EDU_CHANGED}: ${a.previous_edu === null ? "none" : formatEdus(a.previous_edu)} → ${a.edu_thousandths === null ? "none" : formatEdus(a.edu_thousandths)}` });
        const v = variablePart(rb, { gallons: c.gallons, sewerPercent: a.sewer_percent, estimated: c.estimated });
        if (v) lines.push(v);
      } else if (huron) {
        const shared = c.shared ? c.reads[0]?.meterId ?? null : null;
        const usersBehind = shared ? (c.reads[0]?.sharedWith ?? 1) : 1;
        const r = huronUserCharge(rb, { days: served.days, periodDays, useCents: useCharge(rb, c.gallons), usersBehindMeter: usersBehind, occupancy: a.occupancy });
        // Once per text, not once per account (the list would grow with the run).
        if (r.task) {
          const text = `${r.task} Bills carry no minimum until the ADMIN enters it with the Board's resolution.`;
          if (!tasks.some((t) => t.text === text)) tasks.push({ key: "billing.minimumCharge", text });
        }
        lines.push(...r.lines);
        if (shared && usersBehind > 1) {
          const m = sharedMeters.get(shared) ?? { propertyId: a.property_id, ownerName: a.owner_name, users: 0, minimums: 0, gallons: c.gallons, agreement: false };
          m.users += 1;
          m.minimums += r.lines.filter((l) => l.kind === "MINIMUM").reduce((s, l) => s + l.amountCents, 0);
          m.gallons = Math.max(m.gallons, c.gallons);
          if (a.shared_meter_agreement) {
            m.agreement = true;
            flags.push({ code: "SHARED_METER_AGREEMENT", text: `${FLAG_LABELS.SHARED_METER_AGREEMENT}: "${a.shared_meter_agreement}"` });
          }
          sharedMeters.set(shared, m);
        }
      } else {
        const v = variablePart(rb, { gallons: c.gallons, sewerPercent: a.sewer_percent, estimated: c.estimated });
        if (v) lines.push(v);
      }
      // SUL 1202: the industrial user's own results for the period, on the metered water that reaches the sewer (1205).
      const results = a.industrial_permit_id ? strengths.get(a.industrial_permit_id) : undefined;
      if (results?.length) lines.push(...surcharge(rates, results, Math.round((c.gallons * (a.sewer_percent ?? 100)) / 100)));
      // Huron VI-5: the first bill of a reinstated residence carries the minimums of the time it was discontinued.
      if (a.discontinued_on && !a.has_previous) {
        const gap = reinstatementMinimums(rb, { discontinuedLastDay: a.discontinued_on, reinstatedOn: a.opened_on, periodMonths: run.months });
        if (gap) lines.push(gap);
      }
      const inf = inflow.get(a.id);
      if (inf) {
        lines.push(...inf.lines);
        flags.push(...inf.flags);
      }
      for (const j of a.adjustments ?? [])
        lines.push({
          kind: "ADJUSTMENT",
          description: `${j.amount_cents < 0 ? "Credit" : "Debit"} recorded ${formatDate(j.recorded_on)}: ${j.reason}`,
          quantity: null,
          rate: null,
          amountCents: j.amount_cents,
          section: "Adjustment to an earlier bill",
          adjustmentId: j.id,
        });
      const total = lines.reduce((s, l) => s + l.amountCents, 0);
      if (total === 0) flags.push({ code: "ZERO_TOTAL", text: FLAG_LABELS.ZERO_TOTAL });
      if (total < 0) flags.push({ code: "NEGATIVE_TOTAL", text: FLAG_LABELS.NEGATIVE_TOTAL });
      drafts.push({
        accountId: a.id,
        meterId: null,
        propertyId: a.property_id,
        billTo: billedToOwner ? a.owner_name : a.occupant_name,
        from: served.from,
        to: served.to,
        final: a.closed_on !== null && a.closed_on <= run.end,
        gallons: c.noRead ? null : c.gallons,
        edu: a.edu_thousandths,
        flags,
        lines,
      });
    }
    // The batch's insert runs while the next batches are read and computed (at most INSERTS_IN_FLIGHT: memory stays flat).
    if (pending.length >= INSERTS_IN_FLIGHT) {
      const n0 = await pending.shift()!;
      bills += n0.bills;
      flagged += n0.flagged;
      cents += n0.cents;
    }
    const inserting = insertBills(ds, run, rb.version.id, drafts);
    inserting.catch(() => undefined); // awaited in turn below; this only keeps it from counting as unhandled meanwhile
    pending.push(inserting);
  }
  for (const inserting of pending) {
    const n0 = await inserting;
    bills += n0.bills;
    flagged += n0.flagged;
    cents += n0.cents;
  }
  // Huron VI-2: the owner's excess on each shared meter (withheld, and shown, where the users notified an agreement).
  const excess: Drafted[] = [];
  for (const [meterId, m] of sharedMeters) {
    const useCents = useCharge(rb, m.gallons);
    if (useCents === null) continue;
    const line = ownersExcess(useCents, m.minimums, m.users, rb.entry("billing.minimumPerUserBehindMeter").section);
    if (!line) continue;
    if (m.agreement) {
      tasks.push({ key: "billing.minimumPerUserBehindMeter", text: `A meter's users notified an agreement (Huron VI-2): its excess of ${formatCentsPlain(line.amountCents)} is not billed to the owner by rule; bill it as agreed by adjustment.` });
      continue;
    }
    excess.push({ accountId: null, meterId, propertyId: m.propertyId, billTo: m.ownerName, from: run.start, to: run.end, final: false, gallons: m.gallons, edu: null, flags: [], lines: [line] });
  }
  if (excess.length) {
    const n = await insertBills(ds, run, rb.version.id, excess);
    bills += n.bills;
    flagged += n.flagged;
    cents += n.cents;
  }
  return { bills, flagged, cents };
}

/**
 * SUL 1202: each industrial permit's results for the period in mg/L (the 201 table's unit), from its
 * signed reports, sampled from the period's first day to its last in the district's zone: one
 * statement a batch.
 */
async function periodResults(db: Db, accounts: AccountRow[], run: { start: CalendarDate; end: CalendarDate; timeZone: string }) {
  const out = new Map<string, { parameter: string; concentrationMgL: number }[]>();
  const permits = [...new Set(accounts.map((a) => a.industrial_permit_id).filter((x): x is string => !!x))];
  const rows: any[] = await db.query(
    `SELECT r.permit_id, r.parameter, r.value::float8 AS value
       FROM industrial_result r JOIN industrial_report rp ON rp.id = r.report_id AND rp.status = 'SIGNED'
      WHERE r.permit_id = ANY($1::uuid[]) AND r.value IS NOT NULL AND lower(r.unit) = 'mg/l' AND r.sampled_at >= $2 AND r.sampled_at < $3`,
    [permits, endOfDay(addCalendarDays(run.start, -1), run.timeZone), endOfDay(run.end, run.timeZone)],
  );
  for (const r of rows) out.set(r.permit_id, [...(out.get(r.permit_id) ?? []), { parameter: r.parameter, concentrationMgL: Number(r.value) }]);
  return out;
}

const formatCentsPlain = (c: number) => `$${(c / 100).toFixed(2)}`;

/** One batch of preview bills and their lines: two statements. */
async function insertBills(db: Db, run: { runId: string; districtId: string; cycle: Cycle; start: CalendarDate; end: CalendarDate }, versionId: string, drafts: Drafted[]) {
  if (!drafts.length) return { bills: 0, flagged: 0, cents: 0 };
  const totals = drafts.map((d) => d.lines.reduce((s, l) => s + l.amountCents, 0));
  // Ids made here (time-ordered, uuid7), so the lines need no answer from the first statement.
  const ids = drafts.map(() => ({ id: uuid7() }));
  await db.query(
    `INSERT INTO bill (id, run_id, district_id, cycle, kind, account_id, meter_id, property_id, bill_to, period_start, period_end, served_from, served_to, final, gallons, edu_thousandths, flags, total_cents, status, rulebook_version_id)
     SELECT t.id, $1, $2, $3, CASE WHEN t.account_id IS NULL THEN 'OWNER_EXCESS' ELSE 'ACCOUNT' END, t.account_id, t.meter_id, t.property_id, t.bill_to, $4, $5, t.served_from, t.served_to, t.final, t.gallons, t.edu, t.flags, t.total, 'PREVIEW', $6
       FROM unnest($7::uuid[], $8::uuid[], $9::uuid[], $10::text[], $11::date[], $12::date[], $13::boolean[], $14::bigint[], $15::int[], $16::jsonb[], $17::int[], $18::uuid[])
            AS t(account_id, meter_id, property_id, bill_to, served_from, served_to, final, gallons, edu, flags, total, id)`,
    [
      run.runId,
      run.districtId,
      run.cycle,
      run.start,
      run.end,
      versionId,
      drafts.map((d) => d.accountId),
      drafts.map((d) => d.meterId),
      drafts.map((d) => d.propertyId),
      drafts.map((d) => d.billTo),
      drafts.map((d) => d.from),
      drafts.map((d) => d.to),
      drafts.map((d) => d.final),
      drafts.map((d) => d.gallons),
      drafts.map((d) => d.edu),
      drafts.map((d) => JSON.stringify(d.flags)),
      totals,
      ids.map((x) => x.id),
    ],
  );
  const cols = { bill: [] as string[], pos: [] as number[], kind: [] as string[], desc: [] as string[], qty: [] as (string | null)[], rate: [] as (string | null)[], amount: [] as number[], section: [] as string[], adj: [] as (string | null)[], inflow: [] as (string | null)[] };
  drafts.forEach((d, k) =>
    d.lines.forEach((l, p) => {
      cols.bill.push(ids[k].id);
      cols.pos.push(p + 1);
      cols.kind.push(l.kind);
      cols.desc.push(l.description);
      cols.qty.push(l.quantity);
      cols.rate.push(l.rate);
      cols.amount.push(l.amountCents);
      cols.section.push(l.section);
      cols.adj.push(l.adjustmentId ?? null);
      cols.inflow.push(l.inflowDeterminationId ?? null);
    }),
  );
  if (cols.bill.length)
    await db.query(
      `INSERT INTO bill_line (bill_id, position, kind, description, quantity, rate, amount_cents, section, adjustment_id, inflow_determination_id)
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $9::uuid[], $10::uuid[])`,
      [cols.bill, cols.pos, cols.kind, cols.desc, cols.qty, cols.rate, cols.amount, cols.section, cols.adj, cols.inflow],
    );
  return { bills: drafts.length, flagged: drafts.filter((d) => d.flags.length).length, cents: totals.reduce((s, t) => s + t, 0) };
}

// ---------------------------------------------------------------------------------------------
// Issue

/**
 * Issues a previewed run: the mailing date (Huron VI-3: on or after the first of the month after
 * the period) and due date are fixed on the run, then the bills are numbered, frozen and their
 * emails queued in batches of `BATCH`, each batch one transaction with its audit entry. `maxBills`
 * stops after that many (the staff page issues a run in steps and shows the progress); issuing
 * again resumes with the bills not yet issued, so a run stopped halfway, by a crash or by choice,
 * never bills an account twice. Refused when the Board's figures in force changed since the preview.
 */
export async function issueBillRun(
  ds: DataSource,
  viewer: Viewer,
  input: { runId: string; mailedOn: string; confirm: boolean; maxBills?: number | null },
  meta: Meta & { publicUrl: string },
): Promise<RunView> {
  const run = await runRow(ds, viewer, input.runId);
  requireClerk(viewer, run.districtId);
  if (!input.confirm) throw badInput({ confirm: "Confirm that the bills are to be issued: an issued bill is never changed." });
  if (run.status === "ISSUED") return run;
  const district = await loadDistrict(ds, run.districtId);
  const rb = await rulebookOn(ds, district, run.periodEnd);
  const [mark] = await ds.query(
    `SELECT r.rulebook_version_id, r.computing_since, u.display_name AS computing_by FROM bill_run r LEFT JOIN app_user u ON u.id = r.computing_by_id WHERE r.id = $1`,
    [run.id],
  );
  if (run.status === "PREVIEW") computingRefusal(mark, district.timeZone, "issue the bills once it is done");
  if (rb.version.id !== mark.rulebook_version_id)
    throw conflict("The rulebook in force for this period changed since the preview; preview the run again before issuing.");
  const max = input.maxBills ?? null;
  if (max !== null && (!Number.isInteger(max) || max < 1)) throw badInput({ maxBills: "Issue at least one bill at a time." });
  if (run.status === "PREVIEW") {
    const mailedOn = (input.mailedOn ?? "").trim();
    if (!isCalendarDate(mailedOn)) throw badInput({ mailedOn: "Enter the mailing date like 2026-04-01." });
    const today = dateIn(district.timeZone);
    if (mailedOn < today) throw badInput({ mailedOn: `The mailing date cannot be before today (${formatDate(today)}).` });
    const dates = mailingAndDue(rb, run.periodEnd, mailedOn);
    if (!dates.ok) throw badInput({ mailedOn: dates.message });
    await ds.transaction(async (tx) => {
      const [r] = await tx.query(`SELECT status FROM bill_run WHERE id = $1 FOR UPDATE`, [run.id]);
      if (r.status !== "PREVIEW") return;
      // A determination of inflow on the preview withdrawn since is never billed (withdrawing takes this run's lock too).
      const [withdrawn] = await tx.query(
        `SELECT 1 FROM inflow_determination d JOIN bill_line l ON l.inflow_determination_id = d.id AND l.kind = 'INFLOW' JOIN bill b ON b.id = l.bill_id
          WHERE d.district_id = $2 AND d.withdrawn_at IS NOT NULL AND b.run_id = $1 LIMIT 1`,
        [run.id, run.districtId],
      );
      if (withdrawn) throw conflict("The District Operator withdrew a determination of inflow this preview bills; preview the run again before issuing.");
      await tx.query(`UPDATE bill_run SET status = 'ISSUING', mailed_on = $2, due_on = $3, issued_by_id = $4, issued_at = $5 WHERE id = $1`, [run.id, mailedOn, dates.dueOn, viewer.userId, clock.now()]);
      await audit(tx, actorOf(viewer, meta.requestId), { action: "rents.bill_run_issue_started", entityType: "BillRun", entityId: run.id, districtId: run.districtId, details: { mailedOn, dueOn: dates.dueOn, bills: run.billCount } });
    });
  }
  const code = districtCode(district.slug);
  let left = max ?? Number.MAX_SAFE_INTEGER;
  while (left > 0) {
    const n = await issueBatch(ds, viewer, run.id, code, Math.min(BATCH, left), rb, run.periodEnd, meta);
    if (n === 0) break;
    left -= n;
  }
  await ds.transaction(async (tx) => {
    const [r] = await tx.query(
      `SELECT status, (SELECT count(*)::int FROM bill b WHERE b.run_id = r.id AND b.status = 'PREVIEW') AS pending FROM bill_run r WHERE id = $1 FOR UPDATE`,
      [run.id],
    );
    if (r.status === "ISSUING" && r.pending === 0) {
      await tx.query(`UPDATE bill_run SET status = 'ISSUED' WHERE id = $1`, [run.id]);
      await audit(tx, actorOf(viewer, meta.requestId), { action: "rents.bill_run_issued", entityType: "BillRun", entityId: run.id, districtId: run.districtId, details: { bills: run.billCount } });
    }
  });
  return runRow(ds, viewer, run.id);
}

/** Numbers, freezes and emails up to `limit` bills of the run in one transaction; returns how many. */
async function issueBatch(ds: DataSource, viewer: Viewer, runId: string, code: string, limit: number, rb: Rulebook, periodEnd: CalendarDate, meta: Meta & { publicUrl: string }): Promise<number> {
  const toOwner = rb.enabled("billing.minimumPerUserBehindMeter");
  return ds.transaction(async (tx) => {
    const [run] = await tx.query(`SELECT district_id, status, mailed_on::text AS mailed_on, due_on::text AS due_on FROM bill_run WHERE id = $1 FOR UPDATE`, [runId]);
    if (run.status !== "ISSUING") return 0;
    // The due date's words from the run's mailing date and the rulebook of the preview (issuing is
    // refused once it changed), written with the number: not by a first UPDATE of every bill of the
    // run, which wrote each bill twice (docs/benchmarks.md, bill runs).
    const dates = mailingAndDue(rb, periodEnd, run.mailed_on);
    const dueText = dates.ok ? dates.dueText : null;
    // One statement numbers and freezes the batch, applies its adjustments, queues its emails and
    // counts it on the run: the emails read the bills as the UPDATE returns them, not again by id
    // (each statement its own round trip and its own pass over the batch; docs/benchmarks.md, bill runs).
    // The bill by email to the person it is billed to (Huron VI-3: the owner; SUL: the occupant, else the owner), when they have a sign-in.
    const [issued]: { count: number; first: string | null; last: string | null }[] = await tx.query(
      `WITH picked AS (SELECT id FROM bill WHERE run_id = $1 AND status = 'PREVIEW' ORDER BY id LIMIT $2),
       done AS (UPDATE bill b SET status = 'ISSUED', mailed_on = $3, due_on = $4, issued_at = $5, due_text = $7,
                       number = $6 || '-' || to_char(b.period_start, 'YYYYMM') || '-' || lpad(nextval('bill_number_seq')::text, 7, '0')
                  FROM picked WHERE b.id = picked.id
                RETURNING b.id, b.number, b.district_id, b.account_id, b.property_id, b.total_cents, b.due_on, b.due_text, b.served_from, b.served_to),
       applied AS (UPDATE bill_adjustment j SET applied_bill_id = l.bill_id FROM done JOIN bill_line l ON l.bill_id = done.id
                    WHERE l.adjustment_id = j.id AND j.applied_bill_id IS NULL RETURNING j.id),
       emailed AS (
         INSERT INTO outbox_email (to_address, recipient_id, district_id, subject, body_text, kind)
         SELECT u.email, u.id, b.district_id,
                'Sewer bill ' || b.number || ': $' || to_char(b.total_cents / 100.0, 'FM999,999,990.00') || ' due ' || to_char(b.due_on, 'FMMonth FMDD, YYYY'),
                'Your sewer bill ' || b.number || ' for ' || to_char(b.served_from, 'FMMonth FMDD, YYYY') || ' to ' || to_char(b.served_to, 'FMMonth FMDD, YYYY') || ' is $' ||
                to_char(b.total_cents / 100.0, 'FM999,999,990.00') || '.' || chr(10) || coalesce(b.due_text, '') || chr(10) ||
                'See what it is made of: ' || $9 || '/properties/bills/' || b.id,
                'rents.bill_issued'
           FROM done b
           -- Keyed lookups per bill of the batch (LIMIT keeps the planner from flattening them into hash joins that read
           -- every property and account of the district on each batch).
           CROSS JOIN LATERAL (SELECT CASE WHEN $8 THEN coalesce(p.owner_user_id, a.occupant_user_id) ELSE coalesce(a.occupant_user_id, p.owner_user_id) END AS user_id
                                 FROM sewer_property p LEFT JOIN service_account a ON a.id = b.account_id WHERE p.id = b.property_id LIMIT 1) who
           CROSS JOIN LATERAL (SELECT id, email FROM app_user WHERE id = who.user_id LIMIT 1) u
         RETURNING 1),
       counted AS (UPDATE bill_run SET issued_count = issued_count + (SELECT count(*) FROM done) WHERE id = $1 AND EXISTS (SELECT 1 FROM done) RETURNING 1)
       SELECT count(*)::int AS count, min(number) AS first, max(number) AS last FROM done`,
      [runId, limit, run.mailed_on, run.due_on, clock.now(), code, dueText, toOwner, meta.publicUrl],
    );
    if (!issued.count) return 0;
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "rents.bills_issued",
      entityType: "BillRun",
      entityId: runId,
      districtId: run.district_id,
      details: { count: issued.count, first: issued.first, last: issued.last },
    });
    return issued.count;
  });
}

// ---------------------------------------------------------------------------------------------
// The run's bills (staff), an account's bills and one bill (owner, occupant, staff)

export type BillView = {
  id: string;
  runId: string;
  districtId: string;
  districtName: string;
  timeZone: string;
  kind: "ACCOUNT" | "OWNER_EXCESS";
  accountId: string | null;
  accountNumber: string | null;
  propertyId: string;
  address: string;
  taxParcel: string;
  billTo: string;
  periodStart: CalendarDate;
  periodEnd: CalendarDate;
  servedFrom: CalendarDate;
  servedTo: CalendarDate;
  final: boolean;
  gallons: number | null;
  edus: string | null;
  flags: Flag[];
  totalCents: number;
  status: "PREVIEW" | "ISSUED";
  number: string | null;
  mailedOn: CalendarDate | null;
  dueOn: CalendarDate | null;
  dueText: string | null;
  rulebookVersion: number;
  lines: BillLine[];
};

const BILL_COLUMNS = `b.id, b.run_id, b.district_id, d.name AS district_name, d.time_zone, b.kind, b.account_id, a.account_number, b.property_id, p.street_number, p.street, p.city, p.zip, p.tax_parcel,
  b.bill_to, b.period_start::text AS period_start, b.period_end::text AS period_end, b.served_from::text AS served_from, b.served_to::text AS served_to, b.final,
  b.gallons::text AS gallons, b.edu_thousandths, b.flags, b.total_cents, b.status, b.number, b.mailed_on::text AS mailed_on, b.due_on::text AS due_on, b.due_text, v.version AS rulebook_version`;
const BILL_FROM = `bill b JOIN district d ON d.id = b.district_id JOIN sewer_property p ON p.id = b.property_id LEFT JOIN service_account a ON a.id = b.account_id
  JOIN rulebook_version v ON v.id = b.rulebook_version_id`;

/**
 * The bill statements a resident's pages run on every request, prepared (api/db/prepared.ts): a
 * statement of several joins cost PostgreSQL more to plan than to run (the owner's bills page:
 * 4.7 ms of planning for 1.0 ms of execution; docs/benchmarks.md, 2026-12-08).
 */
const BILL_LINES_SQL = `SELECT bill_id, kind, description, quantity, rate, amount_cents, section FROM bill_line WHERE bill_id = ANY($1::uuid[]) ORDER BY bill_id, position`;
const BILL_BY_ID_SQL = `SELECT ${BILL_COLUMNS} FROM ${BILL_FROM} WHERE b.id = $1`;
const ACCOUNT_BILLS_SQL = `SELECT ${BILL_COLUMNS} FROM ${BILL_FROM} WHERE b.account_id = $1 AND b.status = 'ISSUED' ORDER BY b.period_start DESC LIMIT 24`;
// The person's accounts and properties first (by their indexes), then their bills by account and
// by property: an OR across the joined account and property read every issued bill of every
// district (docs/benchmarks.md, the owner's pages).
const MY_BILLS_SQL = `WITH mine AS (
       SELECT b.id FROM service_account a JOIN bill b ON b.account_id = a.id
        WHERE a.occupant_user_id = $1 AND b.status = 'ISSUED'
       UNION
       SELECT b.id FROM sewer_property p JOIN bill b ON b.property_id = p.id
        WHERE p.owner_user_id = $1 AND b.status = 'ISSUED'
          AND b.served_to >= coalesce((SELECT o.from_date FROM sewer_property_owner o WHERE o.property_id = p.id AND o.to_date IS NULL), b.served_to))
     SELECT ${BILL_COLUMNS} FROM ${BILL_FROM}
      WHERE b.id IN (SELECT id FROM mine)
      ORDER BY b.mailed_on DESC, b.number DESC LIMIT 50`;

/** Bills' lines, by bill, in their order: one statement for any number of bills. */
export async function linesOfBills(db: Db, billIds: readonly string[]): Promise<Map<string, BillLine[]>> {
  const by = new Map<string, BillLine[]>();
  if (!billIds.length) return by;
  const lines: any[] = await queryPrepared(db, BILL_LINES_SQL, [billIds]);
  for (const l of lines) {
    const list = by.get(l.bill_id) ?? [];
    list.push({ kind: l.kind, description: l.description, quantity: l.quantity, rate: l.rate, amountCents: l.amount_cents, section: l.section });
    by.set(l.bill_id, list);
  }
  return by;
}

async function withLines(db: Db, rows: any[]): Promise<BillView[]> {
  if (!rows.length) return [];
  const by = await linesOfBills(db, rows.map((r) => r.id));
  return rows.map((r) => ({ ...billOf(r), lines: by.get(r.id) ?? [] }));
}

/** A bill without its lines: a list that does not show them reads them only when asked (BillType.lines). */
export type ListedBill = Omit<BillView, "lines"> & { lines?: undefined };

function billOf(r: any): ListedBill {
  return {
    id: r.id,
    runId: r.run_id,
    districtId: r.district_id,
    districtName: r.district_name,
    timeZone: r.time_zone,
    kind: r.kind,
    accountId: r.account_id,
    accountNumber: r.account_number,
    propertyId: r.property_id,
    address: `${r.street_number ? `${r.street_number} ` : ""}${r.street}${r.city ? `, ${r.city}` : ""} ${r.zip}`,
    taxParcel: r.tax_parcel,
    billTo: r.bill_to,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    servedFrom: r.served_from,
    servedTo: r.served_to,
    final: r.final,
    gallons: r.gallons === null ? null : Number(r.gallons),
    edus: r.edu_thousandths === null ? null : formatEdus(r.edu_thousandths),
    flags: r.flags ?? [],
    totalCents: r.total_cents,
    status: r.status,
    number: r.number,
    mailedOn: r.mailed_on,
    dueOn: r.due_on,
    dueText: r.due_text,
    rulebookVersion: r.rulebook_version,
  };
}

/** A run's bills for review, by id; `flaggedOnly` the ones a person should look at. */
export async function billRunBills(db: Db, viewer: Viewer, runId: string, opts: { flaggedOnly?: boolean | null; first?: number | null; after?: string | null }): Promise<Page<BillView>> {
  const run = await runRow(db, viewer, runId);
  const n = pageSize(opts.first, 50, 200);
  const cur = decodeCursor(opts.after, (k) => k === "b");
  const rows = await db.query(
    `SELECT ${BILL_COLUMNS} FROM ${BILL_FROM}
      WHERE b.run_id = $1 ${opts.flaggedOnly ? "AND b.flags <> '[]'::jsonb" : ""} ${cur ? "AND b.id > $3::uuid" : ""}
      ORDER BY b.id LIMIT $2`,
    cur ? [run.id, n + 1, cur.id] : [run.id, n + 1],
  );
  const items = await withLines(db, rows.slice(0, n));
  return { items, nextCursor: rows.length > n ? encodeCursor("b", items[items.length - 1].id) : null };
}

/** May the viewer read this bill: its district's staff (a preview too); an issued bill its account's occupant, the property's owner of record (their ownership's) or whoever linked the account. */
async function mayRead(db: Db, viewer: Viewer, r: any): Promise<boolean> {
  if (isStaff(viewer, r.district_id)) return true;
  if (r.status !== "ISSUED") return false;
  const [x] = await db.query(
    `SELECT a.occupant_user_id, p.owner_user_id, (SELECT o.from_date::text FROM sewer_property_owner o WHERE o.property_id = p.id AND o.to_date IS NULL) AS owner_from
       FROM sewer_property p LEFT JOIN service_account a ON a.id = $2 WHERE p.id = $1`,
    [r.property_id, r.account_id],
  );
  if (!x) return false;
  if (x.occupant_user_id === viewer.userId) return true;
  if (x.owner_user_id === viewer.userId && (x.owner_from === null || r.served_to >= x.owner_from)) return true;
  // A person who linked the account (api/rents/links.ts: read and pay only) reads its issued bills.
  return isLinked(db, viewer, r.account_id);
}

export async function getBill(db: Db, viewer: Viewer, id: string): Promise<BillView> {
  if (!isUuid(id)) throw notFound("That bill");
  const rows = await queryPrepared(db, BILL_BY_ID_SQL, [id]);
  if (!rows[0] || !(await mayRead(db, viewer, rows[0]))) throw notFound("That bill");
  return (await withLines(db, rows))[0];
}

export type UsagePoint = { periodStart: CalendarDate; periodEnd: CalendarDate; gallons: number | null; totalCents: number; number: string };

/** The account's (or the meter's owner-excess) issued bills of the two years up to this bill's period, oldest first: the usage chart's figures. */
export async function billUsage(db: Db, bill: BillView): Promise<UsagePoint[]> {
  const [key, id] = bill.accountId ? ["account_id", bill.accountId] : ["meter_id", (await db.query(`SELECT meter_id FROM bill WHERE id = $1`, [bill.id]))[0].meter_id];
  const rows = await db.query(
    `SELECT b.period_start::text AS period_start, b.period_end::text AS period_end, b.gallons::text AS gallons, b.total_cents, b.number
       FROM bill b WHERE b.${key} = $1 AND b.status = 'ISSUED'
        AND b.period_start > ($2::date - interval '2 years') AND b.period_start <= $2::date
      ORDER BY b.period_start LIMIT 60`,
    [id, bill.periodStart],
  );
  return rows.map((r: any) => ({ periodStart: r.period_start, periodEnd: r.period_end, gallons: r.gallons === null ? null : Number(r.gallons), totalCents: r.total_cents, number: r.number }));
}

/** The issued bills of an account, newest first (its occupant, its owner of record, its district's staff). */
export async function accountBills(db: Db, viewer: Viewer, accountId: string): Promise<BillView[]> {
  if (!isUuid(accountId)) throw notFound("That account");
  const rows = await queryPrepared(db, ACCOUNT_BILLS_SQL, [accountId]);
  if (!rows.length) return [];
  if (!(await mayRead(db, viewer, rows[0]))) throw notFound("That account");
  return withLines(db, rows);
}

/** The signed-in person's issued bills: of the accounts they occupy and the properties they own (their ownership's), newest first. */
export async function myBills(db: Db, viewer: Viewer): Promise<ListedBill[]> {
  const rows = await queryPrepared(db, MY_BILLS_SQL, [viewer.userId]);
  return rows.map(billOf);
}

// ---------------------------------------------------------------------------------------------
// Adjustments

/** The Town Clerk records a credit (negative) or debit on an account with its reason; it is shown on the account's next bill, never by editing an issued one. */
export async function recordBillAdjustment(ds: DataSource, viewer: Viewer, input: { accountId: string; amountCents: number; reason: string }, meta: Meta): Promise<{ id: string; accountId: string; amountCents: number; reason: string }> {
  if (!isUuid(input.accountId)) throw notFound("That account");
  const [a] = await ds.query(`SELECT id, district_id FROM service_account WHERE id = $1`, [input.accountId]);
  if (!a || !isStaff(viewer, a.district_id)) throw notFound("That account");
  requireClerk(viewer, a.district_id);
  const fields: Record<string, string> = {};
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents === 0 || Math.abs(input.amountCents) > 99_999_999) fields.amountCents = "Enter a credit (below zero) or a debit, from $0.01 to $999,999.99.";
  const reason = (input.reason ?? "").replace(/\s+/g, " ").trim();
  if (!reason) fields.reason = "Say why (it is printed on the next bill).";
  else if (reason.length > 300) fields.reason = "Use at most 300 characters.";
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const [row] = await tx.query(`INSERT INTO bill_adjustment (district_id, account_id, amount_cents, reason, recorded_by_id) VALUES ($1, $2, $3, $4, $5) RETURNING id`, [
      a.district_id,
      a.id,
      input.amountCents,
      reason,
      viewer.userId,
    ]);
    await audit(tx, actorOf(viewer, meta.requestId), { action: "rents.bill_adjustment_recorded", entityType: "ServiceAccount", entityId: a.id, districtId: a.district_id, reason, details: { adjustmentId: row.id, amountCents: input.amountCents } });
    return { id: row.id, accountId: a.id, amountCents: input.amountCents, reason };
  });
}
