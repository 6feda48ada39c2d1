import type { DataSource, EntityManager } from "typeorm";
import { type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { addMonths, dateIn, formatDate, isCalendarDate, type CalendarDate } from "../common/dates.js";
import { AppError, badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { formatCents } from "../common/money.js";
import type { District } from "../districts/district.entity.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { isUuid, allOwnedBy } from "../documents/documents.service.js";
import { cancelPendingPayments, createPayment } from "../payments/payments.service.js";
import { NEVER_SECRET, TRADE_SECRET_FIELDS, actorOf, addressOf, editablePermit, loadDistrict, loadPermit, type Constituent, type Db, type Milestone, type PermitRow, type Pollutant, type Product, type RawMaterial } from "./common.js";
import { defaultLimits, parseUnit, type Limit } from "./limits.js";
import { PAYABLE_TYPE, FEE_CODE, clean, notifyOrganization, requireEnabled, requireStatus } from "./permit-common.js";

/** The application for a discharge permit (SUL 1004 A): saved, submitted with its fee, withdrawn; its compliance schedule checked (1004 A(12)). */

// ---------------------------------------------------------------------------------------------
// The application (SUL 1004 A)

export type ApplicationInput = {
  id?: string | null;
  organizationId?: string | null;
  districtId?: string | null;
  facilityName?: string | null;
  street?: string | null;
  city?: string | null;
  zip?: string | null;
  location?: string | null;
  sicCodes?: string[] | null;
  constituents?: Constituent[] | null;
  dischargeSchedule?: string | null;
  dischargeHoursPerDay?: number | null;
  averageFlowGpd?: number | null;
  peakFlowGpd?: number | null;
  flowVariations?: string | null;
  activities?: string | null;
  products?: Product[] | null;
  rawMaterials?: RawMaterial[] | null;
  employees?: number | null;
  employeeTypes?: string | null;
  hoursOfOperation?: string | null;
  pretreatmentHours?: string | null;
  pollutants?: Pollutant[] | null;
  standardsMet?: boolean | null;
  complianceSchedule?: Milestone[] | null;
  otherInfo?: string | null;
  tradeSecretFields?: string[] | null;
  planDocumentIds?: string[] | null;
  labReportDocumentIds?: string[] | null;
};

const TEXT_LIMITS: Record<string, number> = {
  facilityName: 200,
  street: 200,
  city: 100,
  location: 500,
  dischargeSchedule: 1000,
  flowVariations: 2000,
  activities: 8000,
  employeeTypes: 1000,
  hoursOfOperation: 500,
  pretreatmentHours: 500,
  otherInfo: 8000,
};
const MAX_ROWS = 100;

const finiteNonNeg = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0;

function checkUnit(raw: string, field: string, fields: Record<string, string>, line: number): string {
  const u = parseUnit(raw ?? "");
  if (!u) fields[field] = `Row ${line}: use a unit such as mg/L, µg/L, s.u. or °F.`;
  return u ?? raw;
}

/** Validates and normalizes the application's data; the draft keeps whatever is valid so far. */
function normalize(input: ApplicationInput): { values: Record<string, unknown>; planIds: string[]; labIds: string[] } {
  const fields: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const [k, max] of Object.entries(TEXT_LIMITS)) {
    const v = k === "activities" || k === "otherInfo" || k === "flowVariations" ? ((input as any)[k] ?? "").trim() || null : clean((input as any)[k]);
    if (v && v.length > max) fields[k] = `Use at most ${max.toLocaleString("en-US")} characters.`;
    values[k] = v;
  }
  const zip = clean(input.zip);
  if (zip && !/^\d{5}(-\d{4})?$/.test(zip)) fields.zip = "Enter a ZIP code like 13600 or 13600-1234.";
  values.zip = zip;
  const sic = [...new Set((input.sicCodes ?? []).map((s) => s.trim()).filter(Boolean))];
  if (sic.some((s) => !/^\d{4}$/.test(s))) fields.sicCodes = "Enter each SIC code as four digits, e.g. 3471.";
  if (sic.length > 20) fields.sicCodes = "Give at most 20 SIC codes.";
  values.sicCodes = sic;
  const num = (k: "dischargeHoursPerDay" | "averageFlowGpd" | "peakFlowGpd", max: number, msg: string) => {
    const v = input[k] ?? null;
    if (v !== null && (!finiteNonNeg(v) || v > max)) fields[k] = msg;
    values[k] = v;
  };
  num("dischargeHoursPerDay", 24, "Enter the hours of discharge a day, 0 to 24.");
  num("averageFlowGpd", 1e9, "Enter the average daily flow in gallons per day.");
  num("peakFlowGpd", 1e9, "Enter the peak flow in gallons per day.");
  const emp = input.employees ?? null;
  if (emp !== null && (!Number.isInteger(emp) || emp < 0 || emp > 1_000_000)) fields.employees = "Enter the number of employees as a whole number.";
  values.employees = emp;
  values.standardsMet = input.standardsMet ?? null;

  const rows = <T>(k: string, list: T[] | null | undefined, check: (r: T, line: number) => T): T[] => {
    const arr = list ?? [];
    if (arr.length > MAX_ROWS) fields[k] = `Give at most ${MAX_ROWS} rows.`;
    return arr.slice(0, MAX_ROWS).map((r, i) => check(r, i + 1));
  };
  values.constituents = rows("constituents", input.constituents, (r, line) => {
    const parameter = clean(r.parameter) ?? "";
    if (!parameter) fields.constituents = `Row ${line}: name the constituent.`;
    if (!finiteNonNeg(r.value)) fields.constituents = `Row ${line}: enter the measured value.`;
    return { parameter, value: r.value, unit: checkUnit(r.unit, "constituents", fields, line) };
  });
  values.products = rows("products", input.products, (r, line) => {
    const name = clean(r.name) ?? "";
    if (!name) fields.products = `Row ${line}: name the product.`;
    if (!finiteNonNeg(r.amount)) fields.products = `Row ${line}: enter the rate of production.`;
    if (!clean(r.unit)) fields.products = `Row ${line}: give the unit of the rate (e.g. parts/day).`;
    return { name, amount: r.amount, unit: clean(r.unit) ?? "", process: clean(r.process) };
  });
  values.rawMaterials = rows("rawMaterials", input.rawMaterials, (r, line) => {
    const name = clean(r.name) ?? "";
    if (!name) fields.rawMaterials = `Row ${line}: name the raw material.`;
    if (!finiteNonNeg(r.averagePerDay) || !finiteNonNeg(r.maximumPerDay)) fields.rawMaterials = `Row ${line}: enter the average and maximum amounts a day.`;
    else if (r.maximumPerDay < r.averagePerDay) fields.rawMaterials = `Row ${line}: the maximum cannot be below the average.`;
    if (!clean(r.unit)) fields.rawMaterials = `Row ${line}: give the unit (e.g. lb/day).`;
    return { name, averagePerDay: r.averagePerDay, maximumPerDay: r.maximumPerDay, unit: clean(r.unit) ?? "" };
  });
  values.pollutants = rows("pollutants", input.pollutants, (r, line) => {
    const parameter = clean(r.parameter) ?? "";
    if (!parameter) fields.pollutants = `Row ${line}: name the pollutant.`;
    if (!finiteNonNeg(r.concentration)) fields.pollutants = `Row ${line}: enter its concentration.`;
    return { parameter, concentration: r.concentration, unit: checkUnit(r.unit, "pollutants", fields, line), standardMet: r.standardMet === true };
  });
  values.complianceSchedule = rows("complianceSchedule", input.complianceSchedule, (r, line) => {
    const milestone = clean(r.milestone) ?? "";
    if (!milestone) fields.complianceSchedule = `Step ${line}: name the event (e.g. "Complete final plans").`;
    if (!isCalendarDate(r.dueOn ?? "")) fields.complianceSchedule = `Step ${line}: give its date like 2027-03-31.`;
    return { milestone, dueOn: r.dueOn };
  });
  const secrets = [...new Set((input.tradeSecretFields ?? []).map((s) => s.trim()).filter(Boolean))];
  for (const s of secrets) {
    if (NEVER_SECRET.includes(s)) {
      fields.tradeSecretFields = "Wastewater constituents and characteristics can never be kept confidential (SUL 1014).";
      break;
    }
    if (!(TRADE_SECRET_FIELDS as readonly string[]).includes(s)) {
      fields.tradeSecretFields = "Only descriptions of activities, processes, products and raw materials, employees and other information may be marked as trade secrets.";
      break;
    }
  }
  values.tradeSecretFields = secrets;
  const ids = (k: string, list: string[] | null | undefined) => {
    const out = [...new Set((list ?? []).map((d) => d.trim()).filter(Boolean))];
    if (out.length > 20 || out.some((d) => !isUuid(d))) fields[k] = "Choose files from your uploaded documents.";
    return out;
  };
  const planIds = ids("planDocumentIds", input.planDocumentIds);
  const labIds = ids("labReportDocumentIds", input.labReportDocumentIds);
  if (Object.keys(fields).length) throw badInput(fields);
  return { values, planIds, labIds };
}

export const COLUMNS: Record<string, string> = {
  facilityName: "facility_name",
  street: "street",
  city: "city",
  zip: "zip",
  location: "location",
  sicCodes: "sic_codes",
  constituents: "constituents",
  dischargeSchedule: "discharge_schedule",
  dischargeHoursPerDay: "discharge_hours_per_day",
  averageFlowGpd: "average_flow_gpd",
  peakFlowGpd: "peak_flow_gpd",
  flowVariations: "flow_variations",
  activities: "activities",
  products: "products",
  rawMaterials: "raw_materials",
  employees: "employees",
  employeeTypes: "employee_types",
  hoursOfOperation: "hours_of_operation",
  pretreatmentHours: "pretreatment_hours",
  pollutants: "pollutants",
  standardsMet: "standards_met",
  complianceSchedule: "compliance_schedule",
  otherInfo: "other_info",
  tradeSecretFields: "trade_secret_fields",
};
export const JSON_COLUMNS = new Set(["constituents", "products", "rawMaterials", "pollutants", "complianceSchedule"]);

/** Creates or saves a draft application; only the owner or Authorized Representative of an industrial user applies. */
export async function saveApplication(ds: DataSource, viewer: Viewer, input: ApplicationInput, requestId?: string): Promise<PermitRow> {
  const { values, planIds, labIds } = normalize(input);
  return ds.transaction(async (tx) => {
    let id = input.id ?? null;
    const creating = !id;
    if (creating) {
      const orgId = clean(input.organizationId);
      if (!orgId || !isUuid(orgId)) throw badInput({ organizationId: "Choose the industrial user (your organization) that applies." });
      const [m] = await tx.query(`SELECT m.role, o.kind FROM membership m JOIN organization o ON o.id = m.organization_id WHERE m.organization_id = $1 AND m.user_id = $2`, [orgId, viewer.userId]);
      if (!m) throw notFound("That organization");
      if (m.kind !== "INDUSTRIAL_USER") throw badInput({ organizationId: "Only an organization registered as an industrial user applies for a discharge permit." });
      if (m.role === "MEMBER") throw forbidden("Only the organization's owner or Authorized Representative can apply for its discharge permit.");
      const districtId = clean(input.districtId);
      if (!districtId || !isUuid(districtId)) throw badInput({ districtId: "Choose the sewer district." });
      const district = await loadDistrict(tx, districtId).catch(() => {
        throw badInput({ districtId: "Choose the sewer district." });
      });
      requireEnabled(await rulebookOn(tx, district));
      const [row] = await tx.query(`INSERT INTO industrial_permit (district_id, organization_id, applicant_id, status, created_at, updated_at) VALUES ($1, $2, $3, 'DRAFT', $4, $4) RETURNING id`, [
        districtId,
        orgId,
        viewer.userId,
        clock.now(),
      ]);
      id = row.id as string;
    } else {
      const { p } = await editablePermit(tx, viewer, id!, "change the application");
      if (p.issuedAt) refuseTransfer(p, input);
      requireStatus(p, ["DRAFT"], "Only a draft application can be changed");
      if (input.districtId && input.districtId !== p.districtId) throw badInput({ districtId: "The district of an application cannot change; start a new application." });
    }
    if (!(await allOwnedBy(tx, [...planIds, ...labIds], viewer.userId))) throw badInput({ planDocumentIds: "Attach files from your own uploaded documents." });
    const keys = Object.keys(COLUMNS);
    const sets = keys.map((k, i) => `${COLUMNS[k]} = $${i + 2}`).join(", ");
    const params = keys.map((k) => (JSON_COLUMNS.has(k) ? JSON.stringify(values[k]) : values[k]));
    await tx.query(`UPDATE industrial_permit SET ${sets}, updated_at = $${keys.length + 2} WHERE id = $1`, [id, ...params, clock.now()]);
    await tx.query(`DELETE FROM industrial_permit_document WHERE permit_id = $1`, [id]);
    const docs = [...planIds.map((d) => [d, "PLANS"]), ...labIds.filter((d) => !planIds.includes(d)).map((d) => [d, "LAB_REPORT"])];
    if (docs.length)
      await tx.query(`INSERT INTO industrial_permit_document (permit_id, document_id, kind) SELECT $1, * FROM unnest($2::uuid[], $3::text[])`, [id, docs.map((d) => d[0]), docs.map((d) => d[1])]);
    const p = (await loadPermit(tx, id!))!;
    await audit(tx, actorOf(viewer, requestId), {
      action: creating ? "industrial.draft_created" : "industrial.draft_saved",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { tradeSecretFields: p.tradeSecretFields, documents: docs.length },
    });
    return p;
  });
}

/**
 * SUL 1004 F: a permit is issued to one user for one operation at one location; nothing moves an
 * issued permit to another organization or premises. The change is reported instead
 * (reportIndustrialPermitChange), which starts an application for a new permit.
 */
export function refuseTransfer(p: PermitRow, input: Partial<ApplicationInput>) {
  const premises = (["facilityName", "street", "city", "zip", "location"] as const).some((k) => input[k] !== undefined && input[k] !== null && clean(input[k]) !== p[k]);
  const owner = !!input.organizationId && input.organizationId !== p.organizationId;
  if (owner || premises)
    throw conflict(
      `A wastewater discharge permit cannot be reassigned, transferred or sold to a new owner, new user, different premises or a new or changed operation (Sewer Use Law 1004 F). ` +
        `Report the change from the permit's page: it starts an application for a new permit.`,
    );
}

export async function documentsOf(db: Db, permitIds: readonly string[]): Promise<{ permitId: string; documentId: string; kind: string }[]> {
  if (!permitIds.length) return [];
  const rows = await db.query(`SELECT permit_id, document_id, kind FROM industrial_permit_document WHERE permit_id = ANY($1::uuid[]) ORDER BY kind, document_id`, [permitIds]);
  return rows.map((r: any) => ({ permitId: r.permit_id, documentId: r.document_id, kind: r.kind }));
}

/**
 * SUL 1004 A(12)(b): each increment of a compliance schedule at most 9 months (from the
 * application to the first date, then between dates), the whole at most 18 months.
 */
export function scheduleProblems(rb: Rulebook, start: CalendarDate, steps: Milestone[]): string | null {
  const inc = rb.require("industrial.complianceIncrementMaxMonths");
  const total = rb.require("industrial.complianceScheduleMaxMonths");
  let prev = start;
  for (const [i, s] of steps.entries()) {
    if (s.dueOn <= prev) return `Step ${i + 1} (${s.milestone}) must come after ${i === 0 ? "today" : "the step before it"}.`;
    if (s.dueOn > addMonths(prev, inc.value))
      return `Step ${i + 1} (${s.milestone}) comes more than ${inc.value} months after ${i === 0 ? "the application" : "the step before it"}: no increment may exceed ${inc.value} months (${inc.section}).`;
    prev = s.dueOn;
  }
  if (steps.length && prev > addMonths(start, total.value)) return `The whole schedule runs past ${total.value} months from the application (${total.section}).`;
  return null;
}

/**
 * Submits the application: every item of SUL 1004 A; the compliance schedule (1004 A(12)); the fee
 * from the rulebook in force today opens a payment.
 */
export async function submitApplication(ds: DataSource, viewer: Viewer, id: string, meta: { requestId?: string; publicUrl: string }): Promise<PermitRow> {
  return ds.transaction(async (tx) => {
    const { p } = await editablePermit(tx, viewer, id, "submit the application");
    requireStatus(p, ["DRAFT"], "Only a draft can be submitted");
    const district = await loadDistrict(tx, p.districtId);
    const today = dateIn(district.timeZone);
    const rb = await rulebookOn(tx, district, today);
    requireEnabled(rb);
    const docs = await documentsOf(tx, [p.id]);
    const f: Record<string, string> = {};
    if (!p.facilityName) f.facilityName = "Enter the name of the facility (SUL 1004 A(1)).";
    if (!p.street) f.street = "Enter the street address (SUL 1004 A(1)).";
    if (!p.city) f.city = "Enter the city, town or village.";
    if (!p.zip) f.zip = "Enter the ZIP code.";
    if (!p.sicCodes.length) f.sicCodes = "Enter the SIC code of the industry and of any categorical processes (SUL 1004 A(2)).";
    if (!p.constituents.length) f.constituents = "Enter the wastewater constituents and characteristics from a NYSDOH-approved laboratory (SUL 1004 A(3)).";
    if (!docs.some((d) => d.kind === "LAB_REPORT")) f.labReportDocumentIds = "Attach the certified laboratory's report (SUL 1004 A(3)).";
    if (!p.dischargeSchedule) f.dischargeSchedule = "Describe the time and duration of the discharge (SUL 1004 A(4)).";
    if (p.averageFlowGpd === null) f.averageFlowGpd = "Enter the average daily flow (SUL 1004 A(5)).";
    if (p.peakFlowGpd === null) f.peakFlowGpd = "Enter the peak flow (SUL 1004 A(5)).";
    else if (p.averageFlowGpd !== null && p.peakFlowGpd < p.averageFlowGpd) f.peakFlowGpd = "The peak flow cannot be below the average flow.";
    if (!docs.some((d) => d.kind === "PLANS")) f.planDocumentIds = "Attach the site, floor, mechanical and plumbing plans (SUL 1004 A(6)).";
    if (!p.activities) f.activities = "Describe the activities, facilities and plant processes (SUL 1004 A(7)).";
    if (!p.products.length) f.products = "List each product with its rate of production (SUL 1004 A(8)).";
    if (!p.rawMaterials.length) f.rawMaterials = "List the raw materials processed, average and maximum a day (SUL 1004 A(9)).";
    if (p.employees === null) f.employees = "Enter the number of employees (SUL 1004 A(10)).";
    if (!p.hoursOfOperation) f.hoursOfOperation = "Enter the hours of operation (SUL 1004 A(10)).";
    if (p.standardsMet === null) f.standardsMet = "Say whether the standards are met on a consistent basis (SUL 1004 A(11)).";
    if (p.standardsMet === false && !p.complianceSchedule.length)
      f.complianceSchedule = "Standards not met: give the shortest schedule of the additional pretreatment or O&M (SUL 1004 A(12)).";
    if (p.complianceSchedule.length) {
      const problem = scheduleProblems(rb, today, p.complianceSchedule);
      if (problem) f.complianceSchedule = problem;
    }
    if (Object.keys(f).length) throw badInput(f);

    const fee = rb.entry("industrial.applicationFee");
    if (typeof fee.value !== "number")
      throw new AppError(
        "CONFLICT",
        `The Town Board has not set the discharge permit application fee in this district's rulebook (${fee.section}), so the application cannot be submitted yet. ${fee.note ?? ""} Ask the Town Clerk.`.trim(),
      );
    const now = clock.now();
    let paymentId: string | null = null;
    if (fee.value > 0) {
      const payment = await createPayment(tx, actorOf(viewer, meta.requestId), {
        districtId: p.districtId,
        payerId: viewer.userId,
        payableType: PAYABLE_TYPE,
        payableId: p.id,
        lines: [{ code: FEE_CODE, label: fee.label, section: fee.section, amountCents: fee.value }],
        rulebookVersionId: rb.version.id,
      });
      paymentId = payment.id;
    }
    // SUL 1004 E: a reissuance applied for less than 180 days before expiry is accepted, marked late.
    const late = p.previousRelation === "REISSUANCE" && p.reissuanceDueOn ? today > p.reissuanceDueOn : null;
    await tx.query(
      `UPDATE industrial_permit SET status = 'SUBMITTED', submitted_at = $2, rulebook_version_id = $3, fee_cents = $4, payment_id = $5, paid_at = $6, reissuance_late = $7, updated_at = $2 WHERE id = $1`,
      [p.id, now, rb.version.id, fee.value, paymentId, fee.value === 0 ? now : null, late],
    );
    // The permit's limits start from the district's table (SUL 903); the District Operator may change them (SUL 904).
    const limits = defaultLimits(rb);
    await insertLimits(tx, p.id, limits);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "industrial.submitted",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { feeCents: fee.value, paymentId, rulebookVersionId: rb.version.id, limits: limits.length, previousPermitId: p.previousPermitId, reissuanceLate: late },
    });
    const next = (await loadPermit(tx, p.id))!;
    await notifyOrganization(
      tx,
      next,
      district,
      "industrial.submitted",
      `Discharge permit application received: ${p.facilityName}`,
      `We received the wastewater discharge permit application for ${p.facilityName}, ${addressOf(p)}.` +
        (late ? `\n\nThis reissuance application is late: it was due by ${formatDate(p.reissuanceDueOn!)}, ${rb.entry("industrial.reissuanceApplicationDays").value} days before the permit expires (Sewer Use Law 1004 E). It is accepted and reviewed.` : "") +
        `\n\nFee: ${formatCents(fee.value)} (${fee.section}).` +
        (paymentId ? `\nPay online: ${meta.publicUrl}/payments/${paymentId}` : "") +
        `\n\nThe District Operator reviews the application and publishes a notice of intent at least ${rb.entry("industrial.publicNoticeDays").value} days before a permit is issued (${rb.entry("industrial.publicNoticeDays").section}).`,
      meta.publicUrl,
    );
    return next;
  });
}

export async function insertLimits(tx: EntityManager, permitId: string, limits: Limit[]) {
  await tx.query(`DELETE FROM industrial_limit WHERE permit_id = $1`, [permitId]);
  if (!limits.length) return;
  await tx.query(
    `INSERT INTO industrial_limit (permit_id, position, parameter, kind, unit, average, maximum, minimum, section)
     SELECT $1, x.position, x.parameter, x.kind, x.unit, x.average, x.maximum, x.minimum, x.section
       FROM jsonb_to_recordset($2::jsonb) AS x(position int, parameter text, kind text, unit text, average numeric, maximum numeric, minimum numeric, section text)`,
    [permitId, JSON.stringify(limits.map((l, position) => ({ position, parameter: l.parameter, kind: l.kind, unit: l.unit, average: l.average, maximum: l.maximum, minimum: l.minimum, section: l.section })))],
  );
}

export async function withdrawApplication(ds: DataSource, viewer: Viewer, id: string, requestId?: string): Promise<PermitRow> {
  return ds.transaction(async (tx) => {
    const { p } = await editablePermit(tx, viewer, id, "withdraw the application");
    requireStatus(p, ["DRAFT", "SUBMITTED", "NOTICE_PUBLISHED"], "An application can be withdrawn only until the permit is issued");
    await tx.query(`UPDATE industrial_permit SET status = 'WITHDRAWN', withdrawn_at = $2, updated_at = $2 WHERE id = $1`, [p.id, clock.now()]);
    // An application fee not paid yet is no longer due.
    await cancelPendingPayments(tx, actorOf(viewer, requestId), { payableType: PAYABLE_TYPE, payableId: p.id, reason: "The application was withdrawn." });
    await audit(tx, actorOf(viewer, requestId), { action: "industrial.withdrawn", entityType: "IndustrialPermit", entityId: p.id, districtId: p.districtId });
    return (await loadPermit(tx, p.id))!;
  });
}
