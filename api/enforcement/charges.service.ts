import { In, type DataSource } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { dateIn, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { badInput, conflict, forbidden } from "../common/errors.js";
import { decodeCursor, encodeCursor, pageSize } from "../common/paging.js";
import { formatCents } from "../common/money.js";
import { District } from "../districts/district.entity.js";
import { rulebookById, rulebookOn } from "../districts/districts.service.js";
import { Payment, createPayment } from "../payments/payments.service.js";
import { Charge } from "./enforcement.entity.js";
import { csvCell, dateInYear, onTaxLevy, statementFor, type Statement } from "./rules.js";
import { CHARGE_PAYABLE, type Meta, actorOf, type Db, text, loadDistrict, todayIn, isRespondent, tell, nextNumber, getCharge, statementOf } from "./common.js";
import { findRespondent } from "./actions.service.js";
import { cancelPendingPayment } from "./petitions.service.js";
import { formatDate } from "../common/format.js";
import { sewerLevyRows } from "../rents/ledger.reports.js";

/** Charges: fines and delinquent sewer charges billed, paid online, their statements with penalty and interest (SUL 1118; Huron VI-3), and the tax-levy list (Huron VI-4). */

// ---------------------------------------------------------------------------------------------
// Charges: billing by hand, paying, statements, the tax levy (SUL 1118; Huron VI-3, VI-4)

export type BillChargeInput = {
  districtId: string;
  respondentEmail?: string | null;
  respondentOrganizationName?: string | null;
  label: string;
  amountCents: number;
  billedOn?: string | null;
  taxParcel?: string | null;
  propertyAddress?: string | null;
};

export async function billCharge(ds: DataSource, viewer: Viewer, input: BillChargeInput, meta: Meta): Promise<Charge> {
  const district = await loadDistrict(ds, input.districtId);
  if (!hasRole(viewer, "CLERK", district.id) && !hasRole(viewer, "ADMIN", district.id)) throw forbidden("Only the Town Clerk or an ADMIN of this district bills charges.");
  const rb = await rulebookOn(ds, district);
  const today = todayIn(district);
  const fields: Record<string, string> = {};
  const label = text(input.label, "label", 200, "Say what the charge is for (e.g. Sewer rent, third quarter 2026).", fields);
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0 || input.amountCents > 99_999_999) fields.amountCents = "Enter an amount between $0.01 and $999,999.99.";
  const billedOn = (input.billedOn ?? "").trim() || today;
  if (!isCalendarDate(billedOn)) fields.billedOn = "Enter the billing (mailing) date like 2026-11-30.";
  else if (billedOn > today) fields.billedOn = `The billing date cannot be after today (${formatDate(today)}).`;
  const taxParcel = text(input.taxParcel, "taxParcel", 50, null, fields);
  const propertyAddress = text(input.propertyAddress, "propertyAddress", 200, null, fields);
  const respondent = await findRespondent(ds, input, fields);
  if (Object.keys(fields).length) throw badInput(fields);
  const section = rb.entry("billing.lateAfterDays").section;
  return ds.transaction(async (tx) => {
    const number = await nextNumber(tx, district, "charge", "CH", today);
    const c = await tx.save(
      tx.create(Charge, {
        districtId: district.id,
        number,
        respondentUserId: respondent!.respondentUserId,
        respondentOrganizationId: respondent!.respondentOrganizationId,
        respondentName: respondent!.name,
        label: label!,
        section,
        amountCents: input.amountCents,
        billedOn,
        status: "OPEN",
        taxParcel,
        propertyAddress,
        rulebookVersionId: rb.version.id,
        createdById: viewer.userId,
      }),
    );
    await audit(tx, actorOf(viewer, meta.requestId), { action: "charge.billed", entityType: "Charge", entityId: c.id, districtId: district.id, details: { number, amountCents: c.amountCents, billedOn } });
    const s = statementFor(rb, c, today);
    await tell(tx, c, district, "charge.billed", `Bill ${number}: ${formatCents(c.amountCents)}`, `${label}: ${formatCents(c.amountCents)}, billed ${formatDate(billedOn)}.\n${s.explanation}`, `${meta.publicUrl}/enforcement/charges/${c.id}`);
    return c;
  });
}

/**
 * Makes (or reuses) the payment for what a charge costs today: the bill, and any penalty and
 * interest on today's statement. The payer is the viewer when served (or a member of the
 * organization served); the Clerk may prepare it for payment at the counter.
 */
export async function payCharge(ds: DataSource, viewer: Viewer, chargeId: string, meta: Meta): Promise<Payment> {
  return ds.transaction(async (tx) => {
    const c = await getCharge(tx, viewer, chargeId, true);
    const respondent = await isRespondent(tx, viewer, c);
    const clerk = hasRole(viewer, "CLERK", c.districtId);
    if (!respondent && !clerk) throw forbidden("Only the person or organization billed, or the Town Clerk, can pay a charge.");
    if (c.status === "PAID") throw conflict("This charge is already paid.");
    if (c.status === "CANCELLED") throw conflict("This charge was cancelled; nothing is due.");
    if (c.status === "HELD") throw conflict("A petition against this fine is before the Board; nothing is due until it is decided.");
    const district = await loadDistrict(tx, c.districtId);
    const s = await statementOf(tx, c, district);
    let payerId = viewer.userId;
    if (!respondent) {
      if (c.respondentUserId) payerId = c.respondentUserId;
      else [{ created_by_id: payerId }] = await tx.query(`SELECT created_by_id FROM organization WHERE id = $1`, [c.respondentOrganizationId]);
    }
    if (c.paymentId) {
      const existing = await tx.findOneBy(Payment, { id: c.paymentId });
      if (existing?.status === "PENDING" && existing.amountCents === s.totalCents && existing.payerId === payerId) return existing;
      const why = existing && existing.amountCents !== s.totalCents ? "The amount due changed (penalty and interest to date)" : "The charge is to be paid by another person";
      await cancelPendingPayment(tx, viewer, c, `${why}; a new payment replaces this one.`, meta.requestId);
    }
    const payment = await createPayment(tx, actorOf(viewer, meta.requestId), {
      districtId: c.districtId,
      payerId,
      payableType: CHARGE_PAYABLE,
      payableId: c.id,
      lines: s.lines.map((l) => ({ code: l.code, label: l.label.slice(0, 200), section: l.section, amountCents: l.amountCents, refundable: false })),
      rulebookVersionId: c.rulebookVersionId,
    });
    await tx.update(Charge, { id: c.id }, { paymentId: payment.id, updatedAt: clock.now() });
    return payment;
  });
}

export type ChargeRow = { charge: Charge; statement: Statement };

async function withStatements(db: Db, rows: Charge[], asOf?: CalendarDate): Promise<ChargeRow[]> {
  const zones = new Map<string, string>();
  const districtIds = [...new Set(rows.map((r) => r.districtId))];
  if (districtIds.length) for (const d of await db.getRepository(District).findBy({ id: In(districtIds) })) zones.set(d.id, d.timeZone);
  const out: ChargeRow[] = [];
  for (const c of rows) out.push({ charge: c, statement: statementFor(await rulebookById(db, c.rulebookVersionId), c, asOf ?? dateIn(zones.get(c.districtId)!)) });
  return out;
}

export async function myCharges(ds: DataSource, viewer: Viewer): Promise<ChargeRow[]> {
  const rows = await ds
    .getRepository(Charge)
    .createQueryBuilder("c")
    .where("c.respondent_user_id = :u OR c.respondent_organization_id IN (SELECT organization_id FROM membership WHERE user_id = :u)", { u: viewer.userId })
    .orderBy("c.billed_on", "DESC")
    .addOrderBy("c.id", "DESC")
    .limit(200)
    .getMany();
  return withStatements(ds, rows);
}

export async function districtCharges(ds: DataSource, viewer: Viewer, f: { districtId: string; status?: string | null; first?: number | null; after?: string | null }) {
  const district = await loadDistrict(ds, f.districtId);
  if (!isStaff(viewer, district.id)) throw forbidden("You are not staff of that district.");
  const first = pageSize(f.first);
  const q = ds.getRepository(Charge).createQueryBuilder("c").where("c.district_id = :d", { d: district.id }).orderBy("c.billed_on", "ASC").addOrderBy("c.id", "ASC").limit(first + 1);
  if (f.status) {
    if (!["OPEN", "HELD", "PAID", "CANCELLED"].includes(f.status)) throw badInput({ status: "Use OPEN, HELD, PAID or CANCELLED." });
    q.andWhere("c.status = :s", { s: f.status });
  }
  if (f.after) {
    const { key: on, id } = decodeCursor(f.after, isCalendarDate)!;
    q.andWhere("(c.billed_on, c.id) > (CAST(:on AS date), CAST(:id AS uuid))", { on, id });
  }
  const rows = await q.getMany();
  const page = rows.slice(0, first);
  const last = page[page.length - 1];
  return { items: await withStatements(ds, page), nextCursor: rows.length > first && last ? encodeCursor(last.billedOn, last.id) : null };
}

/**
 * The tax-levy report (SUL 1118: charges delinquent at least 60 days as of October 1, reported by
 * November 1; Huron VI-4: unpaid rents and penalties may go on the levy). As of the most recent
 * rulebook date on or before today, or a date the Clerk chooses. Its input is the charges billed
 * here and the district's issued sewer bills (api/rents/ledger.reports.ts sewerLevyRows: owner of
 * record, tax parcel, address, what of the bill, penalty and interest is unpaid).
 */
export async function taxLevyReport(ds: DataSource, viewer: Viewer, input: { districtId: string; asOf?: string | null }) {
  const district = await loadDistrict(ds, input.districtId);
  if (!hasRole(viewer, "CLERK", district.id) && !hasRole(viewer, "ADMIN", district.id)) throw forbidden("Only the Town Clerk or an ADMIN of this district reads the tax-levy report.");
  const rb = await rulebookOn(ds, district);
  const today = todayIn(district);
  let asOf = (input.asOf ?? "").trim();
  if (asOf && !isCalendarDate(asOf)) throw badInput({ asOf: "Enter a date like 2026-10-01." });
  if (!asOf) {
    const y = +today.slice(0, 4);
    const thisYear = dateInYear(rb.entry("billing.taxLevyAsOfDate").value, y);
    asOf = thisYear ? (thisYear <= today ? thisYear : dateInYear(rb.entry("billing.taxLevyAsOfDate").value, y - 1)!) : today;
  }
  const rows = await ds.getRepository(Charge).createQueryBuilder("c").where("c.district_id = :d AND c.status = 'OPEN' AND c.billed_on <= :asOf", { d: district.id, asOf }).orderBy("c.respondent_name").addOrderBy("c.billed_on").getMany();
  const items = (await withStatements(ds, rows, asOf)).filter((r) => onTaxLevy(rb, r.statement));
  // The district's delinquent sewer bills (issue 14), with what of each bill, penalty and interest is unpaid today.
  const sewerBills = await sewerLevyRows(ds, district, rb, asOf);
  const header = ["Charge", "Billed on", "Owner or user", "Tax parcel", "Property", "Description", "Original bill", "Penalty", "Interest", "Total", "Days delinquent", "Section"];
  const money = (n: number) => (n / 100).toFixed(2);
  const part = (s: Statement, code: string) => s.lines.find((l) => l.code === code)?.amountCents ?? 0;
  const csv = [
    header.map(csvCell).join(","),
    ...items.map(({ charge: c, statement: s }) =>
      [c.number, c.billedOn, c.respondentName, c.taxParcel, c.propertyAddress, c.label, money(c.amountCents), money(part(s, "penalty")), money(part(s, "interest")), money(s.totalCents), s.daysDelinquent, rb.entry("billing.taxLevyEnabled").section]
        .map(csvCell)
        .join(","),
    ),
    ...sewerBills.map((b) =>
      [b.number, b.billedOn, b.ownerName, b.taxParcel, b.address, b.accountNumber ? `Sewer rent, account ${b.accountNumber}` : "Sewer rent, owner's excess on a shared meter (Huron VI-2)", money(b.originalCents), money(b.penaltyCents), money(b.interestCents), money(b.totalCents), b.daysDelinquent, rb.entry("billing.taxLevyEnabled").section]
        .map(csvCell)
        .join(","),
    ),
  ].join("\r\n");
  const due = rb.entry("billing.taxLevyReportDue").value;
  return {
    asOf,
    enabled: rb.enabled("billing.taxLevyEnabled"),
    minDaysDelinquent: rb.entry("billing.taxLevyDelinquentDays").value as number | null,
    reportDue: typeof due === "string" ? dateInYear(due, +asOf.slice(0, 4)) : null,
    section: rb.entry("billing.taxLevyEnabled").section,
    items,
    sewerBills,
    csv: `${csv}\r\n`,
  };
}
