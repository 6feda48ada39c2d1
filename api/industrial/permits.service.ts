import type { DataSource, EntityManager } from "typeorm";
import { isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { addCalendarDays, addMonths, dateIn, daysBetween, formatDate, isCalendarDate, termLastDay, zonedWallTime, type CalendarDate } from "../common/dates.js";
import { AppError, badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { decodeCursor, encodeCursor, isInstant, pageSize } from "../common/paging.js";
import { formatCents } from "../common/money.js";
import type { District } from "../districts/district.entity.js";
import { rulebookOn, type Rulebook } from "../districts/districts.service.js";
import { districtCode } from "../districts/district-code.js";
import { isUuid, registerDocumentAccess, allOwnedBy } from "../documents/documents.service.js";
import { enqueueJob, registerJobHandler } from "../jobs/queue.js";
import { enqueueEmail, enqueueEmails } from "../outbox/outbox.service.js";
import { cancelPendingPayments, createPayment, isPaid, registerPayable, type Payment } from "../payments/payments.service.js";
import {
  NEVER_SECRET,
  REVOCATION_REASONS,
  STATUS_LABELS,
  TRADE_SECRET_FIELDS,
  actorOf,
  addressOf,
  editablePermit,
  limitsOf,
  loadDistrict,
  loadPermit,
  permitRulebook,
  requireOperator,
  rowOf,
  type Constituent,
  type Db,
  type Milestone,
  type PermitRow,
  type PermitStatus,
  type Pollutant,
  type Product,
  type RawMaterial,
  type RevocationReason,
} from "./common.js";
import { defaultLimits, limitProblems, LIMIT_KINDS, parseUnit, UNIT_LABELS, type Limit, type LimitKind, type Unit } from "./limits.js";

/**
 * Industrial wastewater discharge permits (SUL Article 10): the industrial user's owner or
 * Authorized Representative applies with SUL 1004 A's items and pays the fee; the District
 * Operator publishes the notice of intent (1004 H) and, at least 14 days later, issues the permit
 * for at most 5 years (1004 D) with its limits (903, 904) and reporting months (1005(3)); the
 * permit's schedule makes the report periods and their due dates. Revocation names a 1004 G
 * reason. Reissuance reminders go out before the 180-day deadline (1004 E).
 */

export const PAYABLE_TYPE = "IndustrialPermit";
export const FEE_CODE = "INDUSTRIAL_PERMIT_APPLICATION_FEE";
const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

export const clean = (s: string | null | undefined): string | null => {
  const t = (s ?? "").replace(/[ \t]+/g, " ").trim();
  return t ? t : null;
};

async function applicantEmail(tx: EntityManager, userId: string): Promise<{ email: string; displayName: string }> {
  const [u] = await tx.query(`SELECT email, display_name FROM app_user WHERE id = $1`, [userId]);
  return { email: u.email, displayName: u.display_name };
}

/** Emails an organization's owners and Authorized Representatives (who answer for its permits). */
export function notifyMembers(tx: EntityManager, organizationId: string, district: District, kind: string, subject: string, body: string) {
  return notifyMembersOfEach(tx, district, kind, [{ organizationId, subject, body }]);
}

/** Each organization's own message to its owners and Authorized Representatives, in two statements however many there are. */
export async function notifyMembersOfEach(tx: EntityManager, district: District, kind: string, messages: { organizationId: string; subject: string; body: string }[]) {
  if (!messages.length) return;
  const people: { organization_id: string; id: string; email: string; display_name: string }[] = await tx.query(
    `SELECT m.organization_id, u.id, u.email, u.display_name FROM membership m JOIN app_user u ON u.id = m.user_id
      WHERE m.organization_id = ANY($1::uuid[]) AND m.role IN ('OWNER', 'AUTHORIZED_REPRESENTATIVE') ORDER BY u.email`,
    [messages.map((m) => m.organizationId)],
  );
  await enqueueEmails(
    tx,
    messages.flatMap((m) =>
      people
        .filter((u) => u.organization_id === m.organizationId)
        .map((u) => ({ to: u.email, recipientId: u.id, districtId: district.id, kind, subject: m.subject, body: `Hello ${u.display_name},\n\n${m.body}\n\n${district.name}\n` })),
    ),
  );
}

export function notifyOrganization(tx: EntityManager, p: PermitRow, district: District, kind: string, subject: string, body: string, publicUrl: string) {
  return notifyMembers(tx, p.organizationId, district, kind, subject, `${body}\n\nSee the permit: ${publicUrl}/industrial/${p.id}`);
}

export function requireEnabled(rb: Rulebook) {
  if (!rb.enabled("industrial.permitsEnabled")) {
    const e = rb.entry("industrial.permitsEnabled");
    throw conflict(`This district has no wastewater discharge permit program (${e.section}). ${e.note ?? ""}`.trim());
  }
}

export function requireStatus(p: PermitRow, allowed: PermitStatus[], message: string) {
  if (!allowed.includes(p.status)) throw conflict(`${message} (the permit is ${STATUS_LABELS[p.status].toLowerCase()}).`);
}

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

// ---------------------------------------------------------------------------------------------
// Staff: notice, limits, issuance, revocation

export async function staffPermit(tx: EntityManager, viewer: Viewer, id: string): Promise<PermitRow> {
  const p = await loadPermit(tx, id, true);
  if (!p || !p.submittedAt || !isStaff(viewer, p.districtId)) throw notFound("That permit");
  requireOperator(viewer, p.districtId);
  return p;
}

/** The notice of intent's text, published `on` a day: who, what, where, and the first day of issuance (SUL 1004 H). */
export function noticeOfIntent(
  district: District,
  organizationName: string,
  p: Pick<PermitRow, "facilityName" | "street" | "city" | "zip" | "sicCodes" | "averageFlowGpd">,
  on: CalendarDate,
  days: { value: number; section: string },
): string {
  return (
    `${district.name} intends to issue a wastewater discharge permit to ${organizationName} for ${p.facilityName}, ${addressOf(p)} ` +
    `(SIC ${p.sicCodes.join(", ")}; average flow ${Number(p.averageFlowGpd).toLocaleString("en-US")} gallons a day). ` +
    `The permit will not be issued before ${formatDate(addCalendarDays(on, days.value))} (${days.section}).`
  );
}

/** SUL 1004 H: the notice of intent, on the portal's public notices page. */
export async function publishNotice(ds: DataSource, viewer: Viewer, input: { id: string; text?: string | null }, meta: { requestId?: string; publicUrl: string }): Promise<PermitRow> {
  const extra = (input.text ?? "").trim();
  if (extra.length > 4000) throw badInput({ text: "Use at most 4,000 characters." });
  return ds.transaction(async (tx) => {
    const p = await staffPermit(tx, viewer, input.id);
    requireStatus(p, ["SUBMITTED"], "The notice of intent is published for a submitted application");
    const district = await loadDistrict(tx, p.districtId);
    const rb = await permitRulebook(tx, p, district);
    const days = rb.require("industrial.publicNoticeDays");
    const today = dateIn(district.timeZone);
    const [org] = await tx.query(`SELECT name FROM organization WHERE id = $1`, [p.organizationId]);
    const text = noticeOfIntent(district, org.name, p, today, days) + (extra ? `\n\n${extra}` : "");
    await tx.query(
      `UPDATE industrial_permit SET status = 'NOTICE_PUBLISHED', notice_published_on = $2, notice_published_at = $3, notice_published_by_id = $4, notice_text = $5, updated_at = $3 WHERE id = $1`,
      [p.id, today, clock.now(), viewer.userId, text],
    );
    await audit(tx, actorOf(viewer, meta.requestId), { action: "industrial.notice_published", entityType: "IndustrialPermit", entityId: p.id, districtId: p.districtId, details: { on: today } });
    const next = (await loadPermit(tx, p.id))!;
    await notifyOrganization(
      tx,
      next,
      district,
      "industrial.notice_published",
      `Notice of intent published: ${p.facilityName}`,
      `The notice of intent to issue your wastewater discharge permit was published on ${formatDate(today)}. The permit can be issued from ${formatDate(addCalendarDays(today, days.value))} (${days.section}).\n\nNotice: ${meta.publicUrl}/notices`,
      meta.publicUrl,
    );
    return next;
  });
}

export type LimitInput = { parameter: string; kind: string; unit: string; average?: number | null; maximum?: number | null; minimum?: number | null; section?: string | null };

/** The District Operator sets the permit's limits (SUL 904, 1004 C(2)) until the permit is issued. */
export async function setLimits(ds: DataSource, viewer: Viewer, id: string, input: LimitInput[], requestId?: string): Promise<PermitRow> {
  const limits = checkLimits(input);
  return ds.transaction(async (tx) => {
    const p = await staffPermit(tx, viewer, id);
    requireStatus(p, ["SUBMITTED", "NOTICE_PUBLISHED"], "Limits are set before the permit is issued; an issued permit is modified on 30 days' notice (SUL 1004 B)");
    const before = await limitsOf(tx, [p.id]);
    await insertLimits(tx, p.id, limits);
    await audit(tx, actorOf(viewer, requestId), {
      action: "industrial.limits_set",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { before: before.map(({ id: _i, permitId: _p, position: _o, ...l }) => l), after: limits },
    });
    return (await loadPermit(tx, p.id))!;
  });
}

/** Checks a permit's limits (units against the kind, no parameter twice per kind); errors as `limits.N`. */
export function checkLimits(input: LimitInput[]): Limit[] {
  if (input.length > 200) throw badInput({ limits: "At most 200 limits." });
  const fields: Record<string, string> = {};
  const limits: Limit[] = input.map((l, i) => {
    const unit = parseUnit(l.unit ?? "");
    const row: Limit = {
      parameter: (l.parameter ?? "").trim(),
      kind: l.kind as LimitKind,
      unit: (unit ?? l.unit) as Unit,
      average: l.average ?? null,
      maximum: l.maximum ?? null,
      minimum: l.minimum ?? null,
      section: (l.section ?? "").trim() || "Permit condition (Sewer Use Law 904)",
    };
    const problems = unit ? limitProblems(row) : [`Unknown unit "${l.unit}"; use ${Object.values(UNIT_LABELS).join(", ")}.`];
    if (!LIMIT_KINDS.includes(row.kind)) problems.push("Choose concentration, mass, pH or temperature.");
    if (problems.length) fields[`limits.${i}`] = `${row.parameter || `Row ${i + 1}`}: ${problems.join(" ")}`;
    return row;
  });
  const seen = new Set<string>();
  for (const [i, l] of limits.entries()) {
    const k = `${l.parameter.toLowerCase()}|${l.kind}`;
    if (seen.has(k)) fields[`limits.${i}`] = `${l.parameter}: listed twice as a ${l.kind.toLowerCase()} limit.`;
    seen.add(k);
  }
  if (Object.keys(fields).length) throw badInput(fields);
  return limits;
}

export async function nextPermitNumber(tx: EntityManager, district: District): Promise<string> {
  const year = dateIn(district.timeZone).slice(0, 4);
  const [row] = await tx.query(
    `INSERT INTO industrial_permit_counter (district_id, year, last) VALUES ($1, $2, 1)
     ON CONFLICT (district_id, year) DO UPDATE SET last = industrial_permit_counter.last + 1 RETURNING last`,
    [district.id, Number(year)],
  );
  return `${districtCode(district.slug)}-IU-${year}-${String(row.last).padStart(4, "0")}`;
}

/** The months the rulebook has periodic reports due in (SUL 1005(3)(a)); June and December when it names none. */
export const rulebookReportingMonths = (rb: Rulebook): number[] => parseMonths(String(rb.entry("industrial.periodicReportMonths").value ?? "")) ?? [6, 12];

/** "June, December" → [6, 12]; null when a name is not a month. */
export function parseMonths(text: string): number[] | null {
  const out: number[] = [];
  for (const part of text.split(/[,;\s]+(?:and\s+)?/i).map((s) => s.trim()).filter(Boolean)) {
    if (/^and$/i.test(part)) continue;
    const i = MONTH_NAMES.findIndex((m) => m.toLowerCase() === part.toLowerCase() || m.slice(0, 3).toLowerCase() === part.toLowerCase());
    if (i < 0) return null;
    out.push(i + 1);
  }
  return [...new Set(out)].sort((a, b) => a - b);
}
export const monthNames = (months: number[]) => months.map((m) => MONTH_NAMES[m - 1]).join(" and ");

const lastDayOf = (year: number, month: number): CalendarDate => new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
const firstDayOf = (year: number, month: number): CalendarDate => new Date(Date.UTC(year, month - 1, 1)).toISOString().slice(0, 10);

/**
 * The periodic report periods of a permit (SUL 1005(3)(a)): the report filed in a reporting month
 * covers the months from the previous reporting month to the end of the month before its own, and
 * is due by the end of its month. With June and December: the June report covers December to May,
 * the December report June to November. Periods are clipped to the permit's term.
 */
export function reportPeriods(months: number[], effectiveOn: CalendarDate, expiresOn: CalendarDate): { periodStart: CalendarDate; periodEnd: CalendarDate; dueOn: CalendarDate }[] {
  const sorted = [...months].sort((a, b) => a - b);
  const out: { periodStart: CalendarDate; periodEnd: CalendarDate; dueOn: CalendarDate }[] = [];
  const y0 = Number(effectiveOn.slice(0, 4));
  const y1 = Number(expiresOn.slice(0, 4)) + 1;
  for (let y = y0; y <= y1; y++)
    for (const [i, m] of sorted.entries()) {
      // the period runs from the first day of the previous reporting month to the end of the month before this one
      const prev = i > 0 ? { y, m: sorted[i - 1] } : { y: y - 1, m: sorted[sorted.length - 1] };
      const endMonth = m === 1 ? { y: y - 1, m: 12 } : { y, m: m - 1 };
      let start = firstDayOf(prev.y, prev.m);
      let end = lastDayOf(endMonth.y, endMonth.m);
      if (end < effectiveOn || start > expiresOn) continue;
      if (start < effectiveOn) start = effectiveOn;
      if (end > expiresOn) end = expiresOn;
      if (start > end) continue;
      out.push({ periodStart: start, periodEnd: end, dueOn: lastDayOf(y, m) });
    }
  return out;
}

/** Inserts periodic report rows and queues a reminder 14 days before each due date. */
export async function createReports(tx: EntityManager, permitId: string, periods: ReturnType<typeof reportPeriods>, district: District, publicUrl: string) {
  if (!periods.length) return;
  const created: { id: string; due_on: string }[] = await tx.query(
    `INSERT INTO industrial_report (permit_id, kind, period_start, period_end, due_on, status)
     SELECT $1, 'PERIODIC', x.s, x.e, x.d, 'DUE' FROM jsonb_to_recordset($2::jsonb) AS x(s date, e date, d date) RETURNING id, due_on::text`,
    [permitId, JSON.stringify(periods.map((r) => ({ s: r.periodStart, e: r.periodEnd, d: r.dueOn })))],
  );
  for (const r of created) {
    const remindOn = addCalendarDays(r.due_on, -14);
    await enqueueJob(tx, {
      name: REPORT_REMINDER_JOB,
      payload: { reportId: r.id, publicUrl },
      runAt: zonedWallTime(Date.parse(`${remindOn}T09:00:00Z`), district.timeZone),
      singletonKey: `industrial.report-reminder:${r.id}`,
    });
  }
}

/** Reporting months as the Operator gives them (SUL 1005(3)(a)): checked against the rulebook's minimum a year. */
export function checkMonths(rb: Rulebook, months: number[], f: Record<string, string>, key = "reportingMonths"): number[] {
  const sorted = [...new Set(months)].sort((a, b) => a - b);
  const minPerYear = rb.require("industrial.periodicReportsMinPerYear");
  if (sorted.some((m) => !Number.isInteger(m) || m < 1 || m > 12)) f[key] = "Choose months from January to December.";
  else if (sorted.length < minPerYear.value) f[key] = `At least ${minPerYear.value} reports a year (${minPerYear.section}).`;
  return sorted;
}

export type IssueInput = { id: string; effectiveOn?: string | null; expiresOn: string; reportingMonths?: number[] | null };

/**
 * The District Operator issues the permit: never before the notice has run its days (SUL 1004 H),
 * never for longer than the rulebook's term (1004 D), never before the fee is paid (1004 A). The
 * reporting months (1005(3)(a)) make the report periods; reminders are queued for each report and
 * for the reissuance deadline (1004 E).
 */
export async function issuePermit(ds: DataSource, viewer: Viewer, input: IssueInput, meta: { requestId?: string; publicUrl: string }): Promise<PermitRow> {
  return ds.transaction(async (tx) => {
    const p = await staffPermit(tx, viewer, input.id);
    requireStatus(p, ["NOTICE_PUBLISHED"], "A permit is issued after its notice of intent is published");
    const district = await loadDistrict(tx, p.districtId);
    const rb = await permitRulebook(tx, p, district);
    const today = dateIn(district.timeZone);
    const noticeDays = rb.require("industrial.publicNoticeDays");
    const earliest = addCalendarDays(p.noticePublishedOn!, noticeDays.value);
    if (today < earliest)
      throw new AppError(
        "CONFLICT",
        `The notice of intent was published on ${formatDate(p.noticePublishedOn!)}, ${daysBetween(p.noticePublishedOn!, today)} days ago; the permit can be issued from ${formatDate(earliest)}, ${noticeDays.value} days after it (${noticeDays.section}).`,
      );
    if (p.feeCents && !(await isPaid(tx, PAYABLE_TYPE, p.id)))
      throw new AppError("PAYMENT_REQUIRED", `The application fee of ${formatCents(p.feeCents)} is not paid yet; no permit is issued before it is.`);
    const f: Record<string, string> = {};
    // SUL 1004 E: a reissued permit follows the permit it replaces; issued early, it starts the day after the old one expires.
    const previous = p.previousPermitId ? await loadPermit(tx, p.previousPermitId, true) : null;
    const follows = p.previousRelation === "REISSUANCE" && previous?.status === "ISSUED" && previous.expiresOn! >= today ? addCalendarDays(previous.expiresOn!, 1) : null;
    const effectiveOn = input.effectiveOn || follows || today;
    if (!isCalendarDate(effectiveOn)) f.effectiveOn = "Use a date like 2026-12-01.";
    else if (effectiveOn < today) f.effectiveOn = "A permit cannot take effect before the day it is issued.";
    else if (follows && effectiveOn < follows)
      f.effectiveOn = `Permit ${previous!.permitNumber} is in force until ${formatDate(previous!.expiresOn!)}: the reissued permit takes effect from ${formatDate(follows)} (Sewer Use Law 1004 E).`;
    if (!isCalendarDate(input.expiresOn)) f.expiresOn = "Use a date like 2031-11-30.";
    const term = rb.require("industrial.permitMaxTermYears");
    if (!f.effectiveOn && !f.expiresOn) {
      if (input.expiresOn <= effectiveOn) f.expiresOn = "The permit must expire after it takes effect.";
      // "not to exceed five (5) years": in force from its first day through the day before the same date
      // five years on (docs/decisions/industrial-permit-term.md).
      else if (input.expiresOn > termLastDay(effectiveOn, term.value * 12))
        f.expiresOn = `A permit lasts at most ${term.value} years (${term.section}): its last day is ${formatDate(termLastDay(effectiveOn, term.value * 12))} at the latest.`;
    }
    const defaults = rulebookReportingMonths(rb);
    const months = checkMonths(rb, input.reportingMonths?.length ? input.reportingMonths : defaults, f);
    if (Object.keys(f).length) throw badInput(f);
    const limits = await limitsOf(tx, [p.id]);
    if (!limits.length) throw conflict("Set the permit's limits before issuing it.");

    const number = await nextPermitNumber(tx, district);
    const now = clock.now();
    await tx.query(
      `UPDATE industrial_permit SET status = 'ISSUED', permit_number = $2, issued_at = $3, issued_by_id = $4, effective_on = $5, expires_on = $6, reporting_months = $7, updated_at = $3 WHERE id = $1`,
      [p.id, number, now, viewer.userId, effectiveOn, input.expiresOn, months],
    );
    const periods = reportPeriods(months, effectiveOn, input.expiresOn);
    await createReports(tx, p.id, periods, district, meta.publicUrl);
    await scheduleProgressReminders(tx, p.id, (p.complianceSchedule ?? []) as Milestone[], 0, rb, district, meta.publicUrl);
    // SUL 1004 E: apply for reissuance at least 180 days before expiry; remind 30 days before that deadline and on it.
    const reissue = rb.entry("industrial.reissuanceApplicationDays");
    if (typeof reissue.value === "number") {
      const deadline = addCalendarDays(input.expiresOn, -reissue.value);
      for (const before of [30, 0]) {
        const on = addCalendarDays(deadline, -before);
        if (on <= today) continue;
        await enqueueJob(tx, {
          name: REISSUANCE_REMINDER_JOB,
          payload: { permitId: p.id, deadline, expiresOn: input.expiresOn, publicUrl: meta.publicUrl },
          runAt: zonedWallTime(Date.parse(`${on}T09:00:00Z`), district.timeZone),
          singletonKey: `industrial.reissuance:${p.id}:${input.expiresOn}:${before}`,
        });
      }
    }
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "industrial.issued",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      details: { permitNumber: number, effectiveOn, expiresOn: input.expiresOn, reportingMonths: months, reports: periods.length, previousPermitId: p.previousPermitId },
    });
    if (p.previousRelation === "CHANGE" && previous?.status === "ISSUED") await supersede(tx, viewer, previous, { ...p, permitNumber: number, effectiveOn }, district, meta);
    const next = (await loadPermit(tx, p.id))!;
    await notifyOrganization(
      tx,
      next,
      district,
      "industrial.issued",
      `Wastewater discharge permit ${number} issued`,
      `Your wastewater discharge permit ${number} for ${p.facilityName} is issued, effective ${formatDate(effectiveOn)} until ${formatDate(input.expiresOn)}.\n\n` +
        `Periodic compliance reports are due in ${monthNames(months)} (${rb.entry("industrial.periodicReportMonths").section})` +
        (periods[0] ? `; the first covers ${formatDate(periods[0].periodStart)} to ${formatDate(periods[0].periodEnd)} and is due by ${formatDate(periods[0].dueOn)}.` : ".") +
        (typeof reissue.value === "number" ? `\nApply for reissuance by ${formatDate(addCalendarDays(input.expiresOn, -reissue.value))} (${reissue.section}).` : ""),
      meta.publicUrl,
    );
    return next;
  });
}

/**
 * SUL 1004 F: the permit of the old owner, user, premises or operation ends when the new permit
 * is issued, from the change date or the new permit's effective date, whichever is later: its
 * status turns SUPERSEDED that day (now, or by a job at the district's midnight), so reports of
 * the days it was in force can still be filed until then. Report periods starting from that day,
 * not started, are removed.
 */
async function supersede(tx: EntityManager, viewer: Viewer, old: PermitRow, next: PermitRow, district: District, meta: { requestId?: string; publicUrl: string }) {
  const endsOn = [next.changeOn!, next.effectiveOn!].sort().at(-1)!;
  await tx.query(`UPDATE industrial_permit SET superseded_on = $2, superseded_by_id = $3, updated_at = $4 WHERE id = $1`, [old.id, endsOn, next.id, clock.now()]);
  await tx.query(`DELETE FROM industrial_report WHERE permit_id = $1 AND kind = 'PERIODIC' AND status = 'DUE' AND started_at IS NULL AND amends_id IS NULL AND period_start >= $2`, [old.id, endsOn]);
  await tx.query(`UPDATE industrial_report SET period_end = $2 WHERE permit_id = $1 AND kind = 'PERIODIC' AND status = 'DUE' AND started_at IS NULL AND period_end >= $2`, [old.id, addCalendarDays(endsOn, -1)]);
  await audit(tx, actorOf(viewer, meta.requestId), {
    action: "industrial.supersession_set",
    entityType: "IndustrialPermit",
    entityId: old.id,
    districtId: old.districtId,
    reason: "Sewer Use Law 1004 F: a permit is not transferred to a new owner, user, premises or operation",
    details: { endsOn, newPermitId: next.id, newPermitNumber: next.permitNumber, changeKind: next.changeKind, changeOn: next.changeOn },
  });
  await notifyOrganization(
    tx,
    old,
    district,
    "industrial.superseded",
    `Wastewater discharge permit ${old.permitNumber} ends on ${formatDate(endsOn)}`,
    `Permit ${next.permitNumber} was issued for the change you reported (${(next.changeDescription ?? "").slice(0, 200)}). ` +
      `A permit cannot be transferred to a new owner, user, premises or operation (Sewer Use Law 1004 F), so permit ${old.permitNumber} ends on ${formatDate(endsOn)}, when permit ${next.permitNumber} takes over. ` +
      `File the reports of the days before under permit ${old.permitNumber}.`,
    meta.publicUrl,
  );
  if (endsOn <= dateIn(district.timeZone)) await endSuperseded(tx, old.id);
  else
    await enqueueJob(tx, {
      name: SUPERSEDE_JOB,
      payload: { permitId: old.id },
      runAt: zonedWallTime(Date.parse(`${endsOn}T00:00:00Z`), district.timeZone),
      singletonKey: `industrial.supersede:${old.id}`,
    });
}

/** The old permit's status turns SUPERSEDED (once; only an issued permit whose day has come). */
async function endSuperseded(tx: EntityManager, permitId: string): Promise<void> {
  const p = await loadPermit(tx, permitId, true);
  if (!p || p.status !== "ISSUED" || !p.supersededOn) return;
  const district = await loadDistrict(tx, p.districtId);
  if (dateIn(district.timeZone) < p.supersededOn) return;
  await tx.query(`UPDATE industrial_permit SET status = 'SUPERSEDED', superseded_at = $2, updated_at = $2 WHERE id = $1`, [p.id, clock.now()]);
  await audit(tx, { userId: null }, {
    action: "industrial.superseded",
    entityType: "IndustrialPermit",
    entityId: p.id,
    districtId: p.districtId,
    reason: "Sewer Use Law 1004 F: a permit is not transferred to a new owner, user, premises or operation",
    details: { endsOn: p.supersededOn, newPermitId: p.supersededById },
  });
}

export const SUPERSEDE_JOB = "industrial.supersede";
export const PROGRESS_REMINDER_JOB = "industrial.progress-reminder";

/**
 * SUL 1004 A(12)(c): a progress report at most the rulebook's days after each milestone of a
 * compliance schedule; reminded on the milestone's date (events.service.ts sends it). For the
 * permit's schedule at issuance, and for the steps a modification adds (from `fromIndex`).
 */
export async function scheduleProgressReminders(tx: EntityManager, permitId: string, schedule: Milestone[], fromIndex: number, rb: Rulebook, district: District, publicUrl: string) {
  if (fromIndex >= schedule.length) return;
  const progressDays = rb.require("industrial.progressReportDays").value;
  const today = dateIn(district.timeZone);
  for (let milestoneIndex = fromIndex; milestoneIndex < schedule.length; milestoneIndex++) {
    const m = schedule[milestoneIndex];
    if (m.dueOn <= today) continue;
    await enqueueJob(tx, {
      name: PROGRESS_REMINDER_JOB,
      payload: { permitId, milestoneIndex, progressDueOn: addCalendarDays(m.dueOn, progressDays), publicUrl },
      runAt: zonedWallTime(Date.parse(`${m.dueOn}T09:00:00Z`), district.timeZone),
      singletonKey: `${PROGRESS_REMINDER_JOB}:${permitId}:${milestoneIndex}`,
    });
  }
}
registerJobHandler(SUPERSEDE_JOB, async (ds, payload: { permitId: string }) => {
  await ds.transaction((tx) => endSuperseded(tx, payload.permitId));
});

/** SUL 1004 G: revocation for one of the law's reasons, with the Operator's explanation. */
export async function revokePermit(ds: DataSource, viewer: Viewer, input: { id: string; reason: string; notes: string }, meta: { requestId?: string; publicUrl: string }): Promise<PermitRow> {
  const f: Record<string, string> = {};
  if (!(input.reason in REVOCATION_REASONS)) f.reason = "Choose one of the reasons of Sewer Use Law 1004 G.";
  const notes = (input.notes ?? "").trim();
  if (!notes) f.notes = "Say what happened: the permittee reads it.";
  else if (notes.length > 4000) f.notes = "Use at most 4,000 characters.";
  if (Object.keys(f).length) throw badInput(f);
  return ds.transaction(async (tx) => {
    const p = await staffPermit(tx, viewer, input.id);
    requireStatus(p, ["ISSUED"], "Only an issued permit can be revoked");
    const now = clock.now();
    await tx.query(`UPDATE industrial_permit SET status = 'REVOKED', revoked_at = $2, revoked_by_id = $3, revocation_reason = $4, revocation_notes = $5, updated_at = $2 WHERE id = $1`, [
      p.id,
      now,
      viewer.userId,
      input.reason,
      notes,
    ]);
    await audit(tx, actorOf(viewer, meta.requestId), {
      action: "industrial.revoked",
      entityType: "IndustrialPermit",
      entityId: p.id,
      districtId: p.districtId,
      reason: notes,
      details: { reason: input.reason },
    });
    const district = await loadDistrict(tx, p.districtId);
    const next = (await loadPermit(tx, p.id))!;
    await notifyOrganization(
      tx,
      next,
      district,
      "industrial.revoked",
      `Wastewater discharge permit ${p.permitNumber} revoked`,
      `Your wastewater discharge permit ${p.permitNumber} is revoked: ${REVOCATION_REASONS[input.reason as RevocationReason]} (Sewer Use Law 1004 G).\n\n${notes}`,
      meta.publicUrl,
    );
    return next;
  });
}

// ---------------------------------------------------------------------------------------------
// Lists

export async function myPermits(ds: DataSource, viewer: Viewer): Promise<PermitRow[]> {
  const rows = await ds.query(
    `SELECT p.* FROM industrial_permit p JOIN membership m ON m.organization_id = p.organization_id AND m.user_id = $1
      ORDER BY p.created_at DESC LIMIT 200`,
    [viewer.userId],
  );
  return rows.map((r: any) => rowOf<PermitRow>(r));
}

/**
 * Staff queue of one district: submitted applications, notices and permits (drafts stay private),
 * newest submission first, a keyset page at a time (index industrial_permit_queue).
 */
export async function districtPermits(
  ds: DataSource,
  viewer: Viewer,
  districtId: string,
  status: string | null,
  page: { first?: number | null; after?: string | null } = {},
): Promise<{ items: PermitRow[]; nextCursor: string | null }> {
  if (!isUuid(districtId) || !isStaff(viewer, districtId)) throw forbidden("Only this district's staff see its permit queue.");
  const first = pageSize(page.first);
  const cursor = decodeCursor(page.after, isInstant);
  const rows = await ds.query(
    `SELECT * FROM industrial_permit
      WHERE district_id = $1 AND submitted_at IS NOT NULL AND ($2::text IS NULL OR status = $2)
        AND ($3::timestamptz IS NULL OR (submitted_at, id) < ($3::timestamptz, $4::uuid))
      ORDER BY submitted_at DESC, id DESC LIMIT $5`,
    [districtId, status, cursor?.key ?? null, cursor?.id ?? null, first + 1],
  );
  const items = rows.slice(0, first).map((r: any) => rowOf<PermitRow>(r));
  const last = items.at(-1);
  const nextCursor = rows.length > first && last ? encodeCursor(last.submittedAt!.toISOString(), last.id) : null;
  return { items, nextCursor };
}

/** The public notices page (SUL 1004 H): notices of intent, newest first. */
export async function notices(ds: DataSource, districtId: string | null): Promise<PermitRow[]> {
  const rows = await ds.query(
    `SELECT * FROM industrial_permit WHERE notice_published_on IS NOT NULL AND ($1::uuid IS NULL OR district_id = $1)
      ORDER BY notice_published_on DESC, id LIMIT 200`,
    [districtId],
  );
  return rows.map((r: any) => rowOf<PermitRow>(r));
}

/** Public records (SUL 1014): permits, searchable by facility, organization or permit number. */
export async function publicPermits(ds: DataSource, search: string | null, districtId: string | null): Promise<PermitRow[]> {
  const q = (search ?? "").trim().slice(0, 100);
  const rows = await ds.query(
    `SELECT p.* FROM industrial_permit p JOIN organization o ON o.id = p.organization_id
      WHERE p.status IN ('NOTICE_PUBLISHED', 'ISSUED', 'REVOKED', 'SUPERSEDED') AND ($2::uuid IS NULL OR p.district_id = $2)
        AND ($1 = '' OR p.facility_name ILIKE '%' || $1 || '%' OR o.name ILIKE '%' || $1 || '%' OR p.permit_number ILIKE '%' || $1 || '%')
      ORDER BY p.notice_published_on DESC, p.id LIMIT 200`,
    [q.replace(/[\\%_]/g, (c) => `\\${c}`), districtId],
  );
  return rows.map((r: any) => rowOf<PermitRow>(r));
}

// ---------------------------------------------------------------------------------------------
// Reminders (job queue)

export const REISSUANCE_REMINDER_JOB = "industrial.reissuance-reminder";
export const REPORT_REMINDER_JOB = "industrial.report-reminder";

registerJobHandler(REISSUANCE_REMINDER_JOB, async (ds, payload: { permitId: string; deadline: string; expiresOn: string; publicUrl?: string }) => {
  await ds.transaction(async (tx) => {
    const p = await loadPermit(tx, payload.permitId);
    if (!p || p.status !== "ISSUED" || p.expiresOn !== payload.expiresOn) return;
    // already applied for (SUL 1004 E): no reminder
    const [applied] = await tx.query(`SELECT 1 FROM industrial_permit WHERE previous_permit_id = $1 AND previous_relation = 'REISSUANCE' AND submitted_at IS NOT NULL AND status <> 'WITHDRAWN'`, [p.id]);
    if (applied) return;
    const district = await loadDistrict(tx, p.districtId);
    const rb = await permitRulebook(tx, p, district);
    const e = rb.entry("industrial.reissuanceApplicationDays");
    await notifyOrganization(
      tx,
      p,
      district,
      "industrial.reissuance_reminder",
      `Apply to reissue discharge permit ${p.permitNumber} by ${formatDate(payload.deadline)}`,
      `Your wastewater discharge permit ${p.permitNumber} expires on ${formatDate(p.expiresOn!)}. Apply for its reissuance at least ${e.value} days before, by ${formatDate(payload.deadline)} (${e.section}).`,
      payload.publicUrl ?? "",
    );
    await audit(tx, { userId: null }, { action: "industrial.reissuance_reminded", entityType: "IndustrialPermit", entityId: p.id, districtId: p.districtId, details: { deadline: payload.deadline } });
  });
});

registerJobHandler(REPORT_REMINDER_JOB, async (ds, payload: { reportId: string; publicUrl?: string }) => {
  await ds.transaction(async (tx) => {
    const [r] = await tx.query(`SELECT id, permit_id, status, due_on::text AS due_on, period_start::text AS s, period_end::text AS e FROM industrial_report WHERE id = $1`, [payload.reportId]);
    if (!r || r.status === "SIGNED") return;
    const p = await loadPermit(tx, r.permit_id);
    if (!p || p.status !== "ISSUED") return;
    const district = await loadDistrict(tx, p.districtId);
    await notifyOrganization(
      tx,
      p,
      district,
      "industrial.report_reminder",
      `Compliance report due ${formatDate(r.due_on)}: permit ${p.permitNumber}`,
      `The periodic compliance report for ${formatDate(r.s)} to ${formatDate(r.e)} is due by ${formatDate(r.due_on)} (Sewer Use Law 1005(3)). Enter the lab results and have the Authorized Representative sign it in the portal.`,
      payload.publicUrl ?? "",
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Payments and documents

registerPayable(PAYABLE_TYPE, {
  async onPaid(tx: EntityManager, payment: Payment) {
    const [p] = await tx.query(`SELECT id, district_id, payment_id, paid_at FROM industrial_permit WHERE id = $1 FOR UPDATE`, [payment.payableId]);
    if (!p || p.payment_id !== payment.id || p.paid_at) return;
    await tx.query(`UPDATE industrial_permit SET paid_at = $2, updated_at = $3 WHERE id = $1`, [p.id, payment.paidAt ?? clock.now(), clock.now()]);
    await audit(tx, { userId: null }, { action: "industrial.fee_paid", entityType: "IndustrialPermit", entityId: p.id, districtId: p.district_id, details: { paymentId: payment.id } });
  },
  async title(payableId: string, db: DataSource | EntityManager) {
    const [p] = await db.query(`SELECT facility_name FROM industrial_permit WHERE id = $1`, [payableId]);
    return `Wastewater discharge permit application: ${p?.facility_name ?? payableId}`;
  },
  href: (payableId: string) => `/industrial/${payableId}`,
  async titles(ids: string[], db: DataSource | EntityManager) {
    const rows = await db.query(`SELECT id, facility_name FROM industrial_permit WHERE id = ANY($1::uuid[])`, [ids]);
    return new Map(rows.map((r: any) => [r.id, `Wastewater discharge permit application: ${r.facility_name}`]));
  },
});

/** Plans and lab reports filed with an application: the organization's members and the district's staff read them. */
registerDocumentAccess(async (ds, viewer, doc) => {
  const rows: { district_id: string; submitted_at: Date | null; member: boolean }[] = await ds.query(
    `SELECT p.district_id, p.submitted_at, EXISTS (SELECT 1 FROM membership m WHERE m.organization_id = p.organization_id AND m.user_id = $2) AS member
       FROM industrial_permit_document d JOIN industrial_permit p ON p.id = d.permit_id WHERE d.document_id = $1`,
    [doc.id, viewer.userId],
  );
  return rows.some((r) => r.member || (r.submitted_at !== null && isStaff(viewer, r.district_id)));
});

