import { addCalendarDays, addMonths, daysBetween, type CalendarDate } from "../common/dates.js";
import { formatDate } from "../common/format.js";
import { formatCents } from "../common/money.js";
import type { Rulebook } from "../districts/districts.service.js";
import { statementFor } from "../enforcement/rules.js";

/**
 * The late charges of a sewer bill as pure functions of its rulebook version and calendar dates
 * (SUL 1118 via 1210; Huron VI-3). The dates and the penalty come from the enforcement rules'
 * statementFor, the same reading the delinquency code uses: SUL, in default once unpaid 20 days
 * from billing (day 20 on time, day 21 late), a penalty of 20% of the original bill, interest of 2%
 * a month on the unpaid balance back to the billing date, each month begun counting; Huron, due 15
 * days after mailing, a penalty of 10% once 30 days in arrears after the due date, a violation at
 * 60 days in arrears, no interest.
 */

export type LateChargeKind = "PENALTY" | "INTEREST" | "VIOLATION";
export type LateCharge = { kind: LateChargeKind; key: string; amountCents: number; effectiveOn: CalendarDate; description: string; section: string };
export type LateBill = { id: string; number: string; totalCents: number; mailedOn: CalendarDate };

const pct = (cents: number, percent: number) => Math.round((cents * percent) / 100);

/** The unique key of a late charge: one penalty and one violation per bill, one interest entry per month of interest. */
export const lateChargeKey = (kind: LateChargeKind, billId: string, month?: number) => (kind === "INTEREST" ? `interest:${billId}:${month}` : `${kind.toLowerCase()}:${billId}`);

/** The first day the k-th month of interest is owed: a month begun counts (billing date + k-1 months + 1 day) or only a whole one (+ k months); never before default. */
export function interestMonthStarts(rb: Rulebook, billedOn: CalendarDate, k: number, firstLateDay: CalendarDate): CalendarDate {
  const starts = rb.enabled("billing.interestPartMonthCounts") ? addCalendarDays(addMonths(billedOn, k - 1), 1) : addMonths(billedOn, k);
  return starts > firstLateDay ? starts : firstLateDay;
}

/**
 * What is to be added to a bill on `today` and not yet posted (`posted`: the keys already in the
 * ledger). `unpaidOfBill` is what of the bill itself is still unpaid after the account's credits
 * went to the oldest bills first: nothing is added to a bill paid in full; interest is on that
 * unpaid balance (SUL 1118), the penalty on the original bill (SUL 1118) or on what of it is unpaid
 * (Huron VI-3: `billing.penaltyBase`), the violation
 * (Huron VI-3) a marker without an amount.
 */
export function lateChargesDue(rb: Rulebook, bill: LateBill, unpaidOfBill: number, posted: ReadonlySet<string>, today: CalendarDate): LateCharge[] {
  if (unpaidOfBill <= 0) return [];
  const s = statementFor(rb, { amountCents: bill.totalCents, billedOn: bill.mailedOn, label: `Sewer bill ${bill.number}`, section: rb.entry("billing.lateAfterDays").section }, today);
  const out: LateCharge[] = [];
  const firstLateDay = addCalendarDays(s.lastDayWithoutPenalty, 1);
  if (s.delinquent) {
    const penalty = s.lines.find((l) => l.code === "penalty");
    const key = lateChargeKey("PENALTY", bill.id);
    // SUL 1118 takes "the original bill"; Huron VI-3 charges "any unpaid sewer charge" 10%: what of it is unpaid that day.
    const onUnpaid = rb.has("billing.penaltyBase") && rb.entry("billing.penaltyBase").value === "unpaid charge";
    const percent = rb.entry("billing.penaltyPercent").value;
    const amountCents = onUnpaid && typeof percent === "number" ? pct(unpaidOfBill, percent) : penalty?.amountCents ?? 0;
    if (penalty && amountCents > 0 && !posted.has(key))
      out.push({
        kind: "PENALTY",
        key,
        amountCents,
        effectiveOn: firstLateDay,
        description: onUnpaid
          ? `Penalty, ${percent}% of the unpaid ${formatCents(unpaidOfBill)} of bill ${bill.number} (${formatCents(bill.totalCents)}), unpaid after ${formatDate(s.lastDayWithoutPenalty)}`
          : `${penalty.label} (bill ${bill.number}, ${formatCents(bill.totalCents)}), unpaid after ${formatDate(s.lastDayWithoutPenalty)}`,
        section: penalty.section,
      });
    const interest = rb.entry("billing.monthlyInterestPercent");
    if (typeof interest.value === "number" && interest.value > 0)
      for (let k = 1; k <= s.interestMonths; k++) {
        const mk = lateChargeKey("INTEREST", bill.id, k);
        const amount = pct(unpaidOfBill, interest.value);
        if (posted.has(mk) || amount <= 0) continue;
        out.push({
          kind: "INTEREST",
          key: mk,
          amountCents: amount,
          effectiveOn: interestMonthStarts(rb, bill.mailedOn, k, firstLateDay),
          description: `Interest, ${interest.value}% of the unpaid ${formatCents(unpaidOfBill)} of bill ${bill.number}, month ${k} from the billing date ${formatDate(bill.mailedOn)}`,
          section: interest.section,
        });
      }
  }
  const vkey = lateChargeKey("VIOLATION", bill.id);
  if (s.violation && !posted.has(vkey))
    out.push({
      kind: "VIOLATION",
      key: vkey,
      amountCents: 0,
      effectiveOn: s.violation.since,
      description: `Bill ${bill.number} unpaid ${daysBetween(s.dueOn, s.violation.since) - 1} days after its due date ${formatDate(s.dueOn)}: a violation of the law`,
      section: s.violation.section,
    });
  return out;
}

/** The aging buckets of an unpaid item by days past its due date: not yet due, 1-30, 31-60, 61-90, over 90. */
export const AGING_BUCKETS = ["current", "days30", "days60", "days90", "over90"] as const;
export type AgingBucket = (typeof AGING_BUCKETS)[number];
export function agingBucket(dueOn: CalendarDate, today: CalendarDate): AgingBucket {
  const late = daysBetween(dueOn, today);
  if (late <= 0) return "current";
  if (late <= 30) return "days30";
  if (late <= 60) return "days60";
  if (late <= 90) return "days90";
  return "over90";
}
