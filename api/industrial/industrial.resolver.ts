import DataLoader from "dataloader";
import { Arg, Ctx, Field, FieldResolver, Float, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { isStaff } from "../accounts/viewer.js";
import { addCalendarDays, daysLeft } from "../common/dates.js";
import { notFound } from "../common/errors.js";
import { getDistrict, rulebookById } from "../districts/districts.service.js";
import { Access } from "../graphql/access.js";
import { PageOf } from "../graphql/page.js";
import type { Context } from "../graphql/context.js";
import type { MembershipRole } from "../organizations/organization.entity.js";
import {
  REVOCATION_REASONS,
  STATUS_LABELS,
  TRADE_SECRET_FIELDS,
  addressOf,
  limitsOf,
  maySeeSecrets,
  mayView,
  rowOf,
  viewablePermit,
  type LimitRow,
  type PermitRow,
  type Relation,
  type RevocationReason,
} from "./common.js";
import { UNIT_LABELS, type Unit } from "./limits.js";
import "./dashboard.js";
import { groupBy, industrialRows, perRequest } from "./loaders.js";
import * as permits from "./permits.service.js";
import * as reports from "./reports.service.js";
import * as labResults from "./results.service.js";
import * as signing from "./signing.service.js";
import { permitSnc, type SncResult } from "./snc.service.js";
import type { CopyOfRecordRow, DutyRow, ReportRow, ResultRow } from "./reports.service.js";

// ---------------------------------------------------------------------------------------------
// Types

@ObjectType("IndustrialConstituent", { description: "A wastewater constituent measured by a certified lab (SUL 1004 A(3)); never confidential (SUL 1014)" })
class ConstituentType {
  @Field(() => String) parameter: string;
  @Field(() => Float) value: number;
  @Field(() => String) unit: string;
}
@ObjectType("IndustrialProduct", { description: "A product, its rate of production and process (SUL 1004 A(8))" })
class ProductType {
  @Field(() => String) name: string;
  @Field(() => Float) amount: number;
  @Field(() => String) unit: string;
  @Field(() => String, { nullable: true }) process: string | null;
}
@ObjectType("IndustrialRawMaterial", { description: "A raw material processed, average and maximum a day (SUL 1004 A(9))" })
class RawMaterialType {
  @Field(() => String) name: string;
  @Field(() => Float) averagePerDay: number;
  @Field(() => Float) maximumPerDay: number;
  @Field(() => String) unit: string;
}
@ObjectType("IndustrialPollutant", { description: "A pollutant limited by a standard, and whether it is met (SUL 1004 A(11))" })
class PollutantType {
  @Field(() => String) parameter: string;
  @Field(() => Float) concentration: number;
  @Field(() => String) unit: string;
  @Field(() => Boolean) standardMet: boolean;
}
@ObjectType("IndustrialMilestone", { description: "A step of the compliance schedule (SUL 1004 A(12))" })
class MilestoneType {
  @Field(() => String) milestone: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) dueOn: string;
}
@ObjectType("IndustrialPermitDocument")
class PermitDocumentType {
  @Field(() => ID) documentId: string;
  @Field(() => String, { description: "PLANS (SUL 1004 A(6)), LAB_REPORT (A(3)) or OTHER" }) kind: string;
}

/** A limit's figures, as the permit holds them and as a modification sets or replaces them. */
@ObjectType() // a base: never a type of its own in the schema (not referenced)
export class LimitFields {
  @Field(() => String) parameter: string;
  @Field(() => String, { description: "CONCENTRATION, MASS (lb/day), PH or TEMPERATURE" }) kind: string;
  @Field(() => String, { description: "mg/L, ug/L, ppm, lb/day, s.u., degF or degC" }) unit: string;
  @Field(() => String, { description: "The unit as shown: µg/L, °F" }) unitLabel: string;
  @Field(() => Float, { nullable: true, description: "Average daily (composite sample) or 24-hour average" }) average: number | null;
  @Field(() => Float, { nullable: true, description: "Maximum instantaneous (grab sample) or any single reading" }) maximum: number | null;
  @Field(() => Float, { nullable: true, description: "Lowest allowed (pH)" }) minimum: number | null;
  @Field(() => String) section: string;
}

@ObjectType("IndustrialLimit", { description: "One of the permit's limits (SUL 903, 904; Huron IV-21)", simpleResolvers: true })
export class LimitType extends LimitFields {
  @Field(() => ID) id: string;
}

@ObjectType("IndustrialDuty", { description: "A duty an exceedance opened (SUL 1005(4)): notify within 24 hours, resample within 30 days", simpleResolvers: true })
export class DutyType {
  @Field(() => ID) id: string;
  @Field(() => ID) reportId: string;
  @Field(() => ID) resultId: string;
  @Field(() => String, { description: "NOTIFY or RESAMPLE" }) kind: string;
  @Field(() => String) text: string;
  @Field(() => String) section: string;
  @Field(() => Date) dueAt: Date;
  @Field(() => String, { description: "YYYY-MM-DD in the district's zone" }) dueOn: string;
  @Field(() => Date, { nullable: true }) doneAt: Date | null;
}

@ObjectType("IndustrialResult", { description: "A lab result and its evaluation against the permit's limits" })
export class ResultType {
  @Field(() => ID) id: string;
  @Field(() => ID) reportId: string;
  @Field(() => String) parameter: string;
  @Field(() => String, { description: "COMPOSITE or GRAB" }) sampleType: string;
  @Field(() => Date) sampledAt: Date;
  @Field(() => Float, { nullable: true, description: "Null when below the detection limit" }) value: number | null;
  @Field(() => String) unit: string;
  @Field(() => String) unitLabel: string;
  @Field(() => Boolean) belowDetection: boolean;
  @Field(() => Float, { nullable: true }) detectionLimit: number | null;
  @Field(() => Float, { nullable: true, description: "The day's flow, MGD" }) flowMgd: number | null;
  @Field(() => String) lab: string;
  @Field(() => String) method: string;
  @Field(() => String, { description: "OK, EXCEEDS, INCONCLUSIVE or NO_LIMIT" }) status: string;
  @Field(() => String, { nullable: true, description: "AVERAGE, MAXIMUM, MINIMUM or RANGE" }) basis: string | null;
  @Field(() => Float, { nullable: true }) limitValue: number | null;
  @Field(() => String, { nullable: true }) limitUnit: string | null;
  @Field(() => Float, { nullable: true, description: "The value in the limit's unit" }) comparedValue: number | null;
  @Field(() => Float, { nullable: true }) ratio: number | null;
  @Field(() => String, { nullable: true }) section: string | null;
  @Field(() => String, { description: "The evaluation in words" }) message: string;
  @Field(() => String, { nullable: true, description: "The unit conversion made, in words" }) conversion: string | null;
  duties?: DutyRow[];
}

@ObjectType("IndustrialCopyOfRecord", { description: "The copy of record of a signed report (EPA CROMERR): canonical document, signer, time of receipt, SHA-256", simpleResolvers: true })
export class CopyOfRecordType {
  @Field(() => ID) id: string;
  @Field(() => ID) reportId: string;
  @Field(() => String, { description: "Canonical JSON (keys sorted)" }) document: string;
  @Field(() => String) sha256: string;
  @Field(() => String) signerName: string;
  @Field(() => String) signerEmail: string;
  @Field(() => String) certification: string;
  @Field(() => Date) receivedAt: Date;
}

@ObjectType("CopyOfRecordVerification", { simpleResolvers: true })
export class VerificationType {
  @Field(() => Boolean) valid: boolean;
  @Field(() => String) storedSha256: string;
  @Field(() => String) computedSha256: string;
  @Field(() => Boolean, { description: "The report's stored results are those in the copy" }) matchesReport: boolean;
  @Field(() => [String]) problems: string[];
}

@ObjectType("IndustrialReport", { description: "A compliance report for one period (SUL 1005)" })
export class ReportType {
  @Field(() => ID) id: string;
  @Field(() => ID) permitId: string;
  @Field(() => String, { description: "PERIODIC" }) kind: string;
  @Field(() => String) periodStart: string;
  @Field(() => String) periodEnd: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) dueOn: string;
  @Field(() => String, { description: "DUE (nothing entered), DRAFT or SIGNED" }) status: string;
  @Field(() => ID, { nullable: true, description: "The signed report this one amends" }) amendsId: string | null;
  @Field(() => Date, { nullable: true }) signedAt: Date | null;
}

const ReportPageType = PageOf("IndustrialReportPage", () => ReportType);

const ResultPageType = PageOf("IndustrialResultPage", () => ResultType);

@ObjectType("IndustrialSncMeasurement", { simpleResolvers: true })
class SncMeasurementType {
  @Field(() => ID) resultId: string;
  @Field(() => ID) reportId: string;
  @Field(() => Date) sampledAt: Date;
  @Field(() => String) sampleType: string;
  @Field(() => Float, { nullable: true, description: "In the limit's unit; null below detection" }) value: number | null;
  @Field(() => Float, { nullable: true }) limit: number | null;
  @Field(() => Boolean) exceeds: boolean;
  @Field(() => Boolean) atOrAboveTrc: boolean;
}

/** A parameter's counts over an SNC period (SUL 201): on one permit's page and on the district's dashboard. */
@ObjectType() // a base: never a type of its own in the schema (not referenced)
export class SncCountsFields {
  @Field(() => String) parameter: string;
  @Field(() => Int) total: number;
  @Field(() => Int) exceeded: number;
  @Field(() => Int) atOrAboveTrc: number;
  @Field(() => Float) trcFactor: number;
  @Field(() => Boolean) chronic: boolean;
  @Field(() => Boolean) trc: boolean;
}

@ObjectType("IndustrialSncParameter", { simpleResolvers: true })
class SncParameterType extends SncCountsFields {
  @Field(() => [SncMeasurementType]) measurements: SncMeasurementType[];
}

/** A finding of significant non-compliance (SUL 201), per permit and on the dashboard. */
@ObjectType() // a base: never a type of its own in the schema (not referenced)
export class SncFindingFields {
  @Field(() => String, { description: "CHRONIC, TRC, LATE_REPORT or MILESTONE" }) criterion: string;
  @Field(() => String) text: string;
  @Field(() => String) section: string;
  @Field(() => String, { nullable: true }) parameter: string | null;
  @Field(() => ID, { nullable: true }) reportId: string | null;
}

@ObjectType("IndustrialSncFinding", { simpleResolvers: true })
class SncFindingType extends SncFindingFields {}

@ObjectType("IndustrialSnc", { description: "Significant non-compliance of a permit over a period (SUL 201), with the measurements behind it", simpleResolvers: true })
class SncType {
  @Field(() => ID) permitId: string;
  @Field(() => String) periodStart: string;
  @Field(() => String) periodEnd: string;
  @Field(() => Boolean) inSnc: boolean;
  @Field(() => [SncFindingType]) findings: SncFindingType[];
  @Field(() => [SncParameterType]) parameters: SncParameterType[];
  @Field(() => [String], { description: "Criteria the portal does not judge, and why" }) notJudged: string[];
}

@ObjectType("IndustrialNextReport")
class NextReportType {
  @Field(() => ID) id: string;
  @Field(() => String) periodStart: string;
  @Field(() => String) periodEnd: string;
  @Field(() => String) dueOn: string;
  @Field(() => Int, { description: "0 on the due day, negative once late" }) daysLeft: number;
}

/** A permit as one viewer may see it: trade-secret text withheld from the public (SUL 1014). */
type PermitView = PermitRow & { rel: Relation; withheld: string[] };

@ObjectType("IndustrialPermit", { description: "A wastewater discharge permit and its application (SUL Article 10)" })
export class PermitType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => ID) organizationId: string;
  @Field(() => String, { description: "DRAFT, SUBMITTED, NOTICE_PUBLISHED, ISSUED, REVOKED or WITHDRAWN" }) status: string;
  @Field(() => String, { nullable: true }) facilityName: string | null;
  @Field(() => String, { nullable: true }) street: string | null;
  @Field(() => String, { nullable: true }) city: string | null;
  @Field(() => String, { nullable: true }) zip: string | null;
  @Field(() => String, { nullable: true, description: "Location, if different from the address" }) location: string | null;
  @Field(() => [String]) sicCodes: string[];
  @Field(() => [ConstituentType]) constituents: ConstituentType[];
  @Field(() => String, { nullable: true }) dischargeSchedule: string | null;
  @Field(() => Float, { nullable: true }) dischargeHoursPerDay: number | null;
  @Field(() => Float, { nullable: true }) averageFlowGpd: number | null;
  @Field(() => Float, { nullable: true }) peakFlowGpd: number | null;
  @Field(() => String, { nullable: true }) flowVariations: string | null;
  @Field(() => String, { nullable: true, description: "Null when withheld as a trade secret" }) activities: string | null;
  @Field(() => [ProductType]) products: ProductType[];
  @Field(() => [RawMaterialType]) rawMaterials: RawMaterialType[];
  @Field(() => Int, { nullable: true }) employees: number | null;
  @Field(() => String, { nullable: true }) employeeTypes: string | null;
  @Field(() => String, { nullable: true }) hoursOfOperation: string | null;
  @Field(() => String, { nullable: true }) pretreatmentHours: string | null;
  @Field(() => [PollutantType]) pollutants: PollutantType[];
  @Field(() => Boolean, { nullable: true }) standardsMet: boolean | null;
  @Field(() => [MilestoneType]) complianceSchedule: MilestoneType[];
  @Field(() => String, { nullable: true }) otherInfo: string | null;
  @Field(() => [String], { description: "Fields the user marked as trade secrets (SUL 1014)" }) tradeSecretFields: string[];
  @Field(() => Int, { nullable: true, description: "Integer cents, from the rulebook on submission" }) feeCents: number | null;
  @Field(() => ID, { nullable: true }) paymentId: string | null;
  @Field(() => Date, { nullable: true }) paidAt: Date | null;
  @Field(() => Date, { nullable: true }) submittedAt: Date | null;
  @Field(() => String, { nullable: true, description: "When the notice of intent was published (SUL 1004 H)" }) noticePublishedOn: string | null;
  @Field(() => String, { nullable: true }) noticeText: string | null;
  @Field(() => String, { nullable: true }) permitNumber: string | null;
  @Field(() => Date, { nullable: true }) issuedAt: Date | null;
  @Field(() => String, { nullable: true }) effectiveOn: string | null;
  @Field(() => String, { nullable: true }) expiresOn: string | null;
  @Field(() => [Int], { description: "Months the periodic reports are due (SUL 1005(3)(a))" }) reportingMonths: number[];
  @Field(() => Date, { nullable: true }) revokedAt: Date | null;
  @Field(() => String, { nullable: true, description: "A SUL 1004 G reason code" }) revocationReason: string | null;
  @Field(() => String, { nullable: true }) revocationNotes: string | null;
  @Field(() => Date) createdAt: Date;
}

export const PermitPageType = PageOf("IndustrialPermitPage", () => PermitType);

// ---------------------------------------------------------------------------------------------
// Inputs

@InputType("IndustrialConstituentInput")
class ConstituentInput {
  @Field(() => String) parameter: string;
  @Field(() => Float) value: number;
  @Field(() => String) unit: string;
}
@InputType("IndustrialProductInput")
class ProductInput {
  @Field(() => String) name: string;
  @Field(() => Float) amount: number;
  @Field(() => String) unit: string;
  @Field(() => String, { nullable: true }) process: string | null;
}
@InputType("IndustrialRawMaterialInput")
class RawMaterialInput {
  @Field(() => String) name: string;
  @Field(() => Float) averagePerDay: number;
  @Field(() => Float) maximumPerDay: number;
  @Field(() => String) unit: string;
}
@InputType("IndustrialPollutantInput")
class PollutantInput {
  @Field(() => String) parameter: string;
  @Field(() => Float) concentration: number;
  @Field(() => String) unit: string;
  @Field(() => Boolean) standardMet: boolean;
}
@InputType("IndustrialMilestoneInput")
class MilestoneInput {
  @Field(() => String) milestone: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) dueOn: string;
}

@InputType("IndustrialApplicationInput", { description: "The application (SUL 1004 A); every field may be empty in a draft" })
export class ApplicationInput {
  @Field(() => ID, { nullable: true, description: "Omit to start a new application" }) id?: string | null;
  @Field(() => ID, { nullable: true, description: "The industrial user (organization); required to start" }) organizationId?: string | null;
  @Field(() => ID, { nullable: true, description: "Required to start" }) districtId?: string | null;
  @Field(() => String, { nullable: true }) facilityName?: string | null;
  @Field(() => String, { nullable: true }) street?: string | null;
  @Field(() => String, { nullable: true }) city?: string | null;
  @Field(() => String, { nullable: true }) zip?: string | null;
  @Field(() => String, { nullable: true }) location?: string | null;
  @Field(() => [String], { nullable: true }) sicCodes?: string[] | null;
  @Field(() => [ConstituentInput], { nullable: true }) constituents?: ConstituentInput[] | null;
  @Field(() => String, { nullable: true }) dischargeSchedule?: string | null;
  @Field(() => Float, { nullable: true }) dischargeHoursPerDay?: number | null;
  @Field(() => Float, { nullable: true }) averageFlowGpd?: number | null;
  @Field(() => Float, { nullable: true }) peakFlowGpd?: number | null;
  @Field(() => String, { nullable: true }) flowVariations?: string | null;
  @Field(() => String, { nullable: true }) activities?: string | null;
  @Field(() => [ProductInput], { nullable: true }) products?: ProductInput[] | null;
  @Field(() => [RawMaterialInput], { nullable: true }) rawMaterials?: RawMaterialInput[] | null;
  @Field(() => Int, { nullable: true }) employees?: number | null;
  @Field(() => String, { nullable: true }) employeeTypes?: string | null;
  @Field(() => String, { nullable: true }) hoursOfOperation?: string | null;
  @Field(() => String, { nullable: true }) pretreatmentHours?: string | null;
  @Field(() => [PollutantInput], { nullable: true }) pollutants?: PollutantInput[] | null;
  @Field(() => Boolean, { nullable: true }) standardsMet?: boolean | null;
  @Field(() => [MilestoneInput], { nullable: true }) complianceSchedule?: MilestoneInput[] | null;
  @Field(() => String, { nullable: true }) otherInfo?: string | null;
  @Field(() => [String], { nullable: true, description: "activities, products, rawMaterials, otherInfo, employeeTypes, pretreatmentHours" }) tradeSecretFields?: string[] | null;
  @Field(() => [ID], { nullable: true, description: "Site, floor, mechanical and plumbing plans (SUL 1004 A(6))" }) planDocumentIds?: string[] | null;
  @Field(() => [ID], { nullable: true, description: "The certified lab's report (SUL 1004 A(3))" }) labReportDocumentIds?: string[] | null;
}

@InputType("IndustrialLimitInput")
export class LimitInput {
  @Field(() => String) parameter: string;
  @Field(() => String, { description: "CONCENTRATION, MASS, PH or TEMPERATURE" }) kind: string;
  @Field(() => String) unit: string;
  @Field(() => Float, { nullable: true }) average?: number | null;
  @Field(() => Float, { nullable: true }) maximum?: number | null;
  @Field(() => Float, { nullable: true }) minimum?: number | null;
  @Field(() => String, { nullable: true, description: "Defaults to a permit condition under SUL 904" }) section?: string | null;
}

@InputType("IssueIndustrialPermitInput")
class IssueInput {
  @Field(() => ID) id: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD; today by default" }) effectiveOn?: string | null;
  @Field(() => String, { description: "YYYY-MM-DD; at most the rulebook's term (SUL 1004 D)" }) expiresOn: string;
  @Field(() => [Int], { nullable: true, description: "Reporting months, 1-12; the rulebook's (June and December) by default" }) reportingMonths?: number[] | null;
}

@InputType("RevokeIndustrialPermitInput")
class RevokeInput {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "A SUL 1004 G reason: FALSIFIED_REPORTS, TAMPERING, REFUSED_ACCESS, EFFLUENT_LIMITS, UNPAID_FINES, UNPAID_CHARGES, COMPLIANCE_SCHEDULE" }) reason: string;
  @Field(() => String) notes: string;
}

@InputType("IndustrialResultInput")
class ResultInput {
  @Field(() => String) parameter: string;
  @Field(() => String, { description: "COMPOSITE or GRAB" }) sampleType: string;
  @Field(() => String, { description: 'Local date and time "2026-11-10T08:30", or an ISO instant' }) sampledAt: string;
  @Field(() => Float, { nullable: true }) value?: number | null;
  @Field(() => String, { description: "mg/L, ug/L, ppm, lb/day, s.u., degF or degC" }) unit: string;
  @Field(() => Boolean, { nullable: true }) belowDetection?: boolean | null;
  @Field(() => Float, { nullable: true }) detectionLimit?: number | null;
  @Field(() => Float, { nullable: true }) flowMgd?: number | null;
  @Field(() => String) lab: string;
  @Field(() => String) method: string;
}

@InputType("SignIndustrialReportInput")
class SignInput {
  @Field(() => ID) reportId: string;
  @Field(() => String, { description: "The signer's password, entered again" }) password: string;
  @Field(() => Boolean, { description: "The certification is made" }) certify: boolean;
  @Field(() => String, { description: "contentHash of the copy the signer reviewed" }) reviewedHash: string;
}

// ---------------------------------------------------------------------------------------------
// Per-request loaders and the viewer's relation to permits (one query for all its memberships)

function loadersFor(ctx: Context) {
  const ds = ctx.ds;
  const group = <T extends { [k: string]: any }>(rows: T[], key: keyof T, ids: readonly string[]) => groupBy(rows, (r) => r[key], ids);
  return {
    memberships: null as Promise<Map<string, MembershipRole>> | null,
    limits: new DataLoader<string, LimitRow[]>(async (ids) => group(await limitsOf(ds, ids), "permitId", ids)),
    reports: new DataLoader<string, ReportRow[]>(async (ids) => group(await reports.reportsOf(ds, ids), "permitId", ids)),
    openDuties: new DataLoader<string, DutyRow[]>(async (ids) => group(await reports.openDutiesOfPermits(ds, ids), "permitId", ids)),
    documents: new DataLoader<string, { permitId: string; documentId: string; kind: string }[]>(async (ids) => group(await permits.documentsOf(ds, ids), "permitId", ids)),
    results: new DataLoader<string, ResultRow[]>(async (ids) => group(await reports.resultsOf(ds, ids), "reportId", ids)),
    reportDuties: new DataLoader<string, DutyRow[]>(async (ids) => group(await reports.dutiesOfReports(ds, ids), "reportId", ids)),
    resultDuties: new DataLoader<string, DutyRow[]>(async (ids) => {
      const rows = await ds.query(`SELECT * FROM industrial_duty WHERE result_id = ANY($1::uuid[]) ORDER BY due_at, kind`, [[...ids]]);
      return group(rows.map((r: any) => rowOf<DutyRow>(r)), "resultId", ids);
    }),
    reportById: industrialRows(ctx).report,
    permit: industrialRows(ctx).permit,
  };
}
const L = perRequest(loadersFor);

async function relationsFor(ctx: Context): Promise<Map<string, MembershipRole>> {
  const l = L(ctx);
  if (!ctx.viewer) return new Map();
  return (l.memberships ??= ctx.ds
    .query(`SELECT organization_id, role FROM membership WHERE user_id = $1`, [ctx.viewer.userId])
    .then((rows: any[]) => new Map(rows.map((r) => [r.organization_id as string, r.role as MembershipRole]))));
}

function present(p: PermitRow, rel: Relation): PermitView {
  const secrets = maySeeSecrets(rel);
  const withheld = secrets ? [] : p.tradeSecretFields.filter((f) => (TRADE_SECRET_FIELDS as readonly string[]).includes(f));
  const view: any = { ...p, rel, withheld };
  for (const f of withheld) view[f] = f === "products" || f === "rawMaterials" ? [] : null;
  if (!secrets) view.tradeSecretFields = p.tradeSecretFields;
  return view as PermitView;
}

async function presentAll(ctx: Context, rows: PermitRow[]): Promise<PermitView[]> {
  const roles = await relationsFor(ctx);
  return rows
    .map((p) => ({ p, rel: { role: roles.get(p.organizationId) ?? null, staff: isStaff(ctx.viewer, p.districtId) } }))
    .filter(({ p, rel }) => mayView(rel, p))
    .map(({ p, rel }) => present(p, rel));
}

const meta = (ctx: Context) => ({ requestId: ctx.requestId, publicUrl: ctx.config.publicUrl });

async function districtIdOf(ctx: Context, slug: string | null | undefined): Promise<string | null> {
  if (!slug) return null;
  return (await getDistrict(ctx.ds, { slug })).id;
}

// ---------------------------------------------------------------------------------------------
// Permits

@Resolver(() => PermitType)
export class IndustrialPermitsResolver {
  @Access("PUBLIC")
  @Query(() => PermitType, { description: "A permit: public once its notice is published (SUL 1014), trade-secret text only to its organization and staff" })
  async industrialPermit(@Arg("id", () => ID) id: string, @Ctx() ctx: Context): Promise<PermitView> {
    const { p, rel } = await viewablePermit(ctx.ds, ctx.viewer, id);
    return present(p, rel);
  }

  @Access("SIGNED_IN")
  @Query(() => [PermitType], { description: "Permits and applications of the organizations I belong to, newest first" })
  async myIndustrialPermits(@Ctx() ctx: Context): Promise<PermitView[]> {
    return presentAll(ctx, await permits.myPermits(ctx.ds, ctx.viewer!));
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => PermitPageType, { description: "Staff: a district's applications, notices and permits (optionally one status), newest submission first" })
  async industrialPermitQueue(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("status", () => String, { nullable: true }) status?: string,
    @Arg("first", () => Int, { nullable: true, description: "Page size, 1-200 (50)" }) first?: number,
    @Arg("after", () => String, { nullable: true }) after?: string,
  ): Promise<{ items: PermitView[]; nextCursor: string | null }> {
    const page = await permits.districtPermits(ctx.ds, ctx.viewer!, districtId, status ?? null, { first, after });
    return { items: await presentAll(ctx, page.items), nextCursor: page.nextCursor };
  }

  @Access("PUBLIC")
  @Query(() => [PermitType], { description: "Notices of intent to issue a discharge permit (SUL 1004 H), newest first" })
  async industrialNotices(@Ctx() ctx: Context, @Arg("districtSlug", () => String, { nullable: true }) districtSlug?: string): Promise<PermitView[]> {
    return presentAll(ctx, await permits.notices(ctx.ds, await districtIdOf(ctx, districtSlug)));
  }

  @Access("PUBLIC")
  @Query(() => [PermitType], { description: "Public records (SUL 1014): permits by facility, organization or permit number" })
  async publicIndustrialPermits(
    @Ctx() ctx: Context,
    @Arg("search", () => String, { nullable: true }) search?: string,
    @Arg("districtSlug", () => String, { nullable: true }) districtSlug?: string,
  ): Promise<PermitView[]> {
    return presentAll(ctx, await permits.publicPermits(ctx.ds, search ?? null, await districtIdOf(ctx, districtSlug)));
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => SncType, { description: "Staff: significant non-compliance of a permit over a period (SUL 201); the current half-year by default" })
  industrialPermitSnc(
    @Arg("permitId", () => ID) permitId: string,
    @Ctx() ctx: Context,
    @Arg("periodStart", () => String, { nullable: true, description: "First day of a month, YYYY-MM-01" }) periodStart?: string,
  ): Promise<SncResult> {
    return permitSnc(ctx.ds, ctx.viewer!, { permitId, periodStart });
  }

  @Access("SIGNED_IN")
  @Mutation(() => PermitType, { description: "Owner or Authorized Representative: start (no id) or save a draft application (SUL 1004 A)" })
  async saveIndustrialApplication(@Arg("input", () => ApplicationInput) input: ApplicationInput, @Ctx() ctx: Context) {
    const p = await permits.saveApplication(ctx.ds, ctx.viewer!, input, ctx.requestId);
    return present(p, { role: "OWNER", staff: false });
  }

  @Access("SIGNED_IN")
  @Mutation(() => PermitType, { description: "Submits the application: checks SUL 1004 A, takes the fee from the rulebook and opens the payment" })
  async submitIndustrialApplication(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return present(await permits.submitApplication(ctx.ds, ctx.viewer!, id, meta(ctx)), { role: "OWNER", staff: false });
  }

  @Access("SIGNED_IN")
  @Mutation(() => PermitType, { description: "Withdraws the application, until the permit is issued" })
  async withdrawIndustrialApplication(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return present(await permits.withdrawApplication(ctx.ds, ctx.viewer!, id, ctx.requestId), { role: "OWNER", staff: false });
  }

  @Access("OPERATOR")
  @Mutation(() => PermitType, { description: "Operator: publish the notice of intent on the public notices page (SUL 1004 H)" })
  async publishIndustrialNotice(@Arg("id", () => ID) id: string, @Ctx() ctx: Context, @Arg("text", () => String, { nullable: true }) text?: string) {
    return present(await permits.publishNotice(ctx.ds, ctx.viewer!, { id, text }, meta(ctx)), { role: null, staff: true });
  }

  @Access("OPERATOR")
  @Mutation(() => PermitType, { description: "Operator: set the permit's limits before issuance (SUL 904, 1004 C(2))" })
  async setIndustrialPermitLimits(@Arg("id", () => ID) id: string, @Arg("limits", () => [LimitInput]) limits: LimitInput[], @Ctx() ctx: Context) {
    return present(await permits.setLimits(ctx.ds, ctx.viewer!, id, limits, ctx.requestId), { role: null, staff: true });
  }

  @Access("OPERATOR")
  @Mutation(() => PermitType, { description: "Operator: issue the permit, at least the notice days after the notice (SUL 1004 H), for at most the term (1004 D)" })
  async issueIndustrialPermit(@Arg("input", () => IssueInput) input: IssueInput, @Ctx() ctx: Context) {
    return present(await permits.issuePermit(ctx.ds, ctx.viewer!, input, meta(ctx)), { role: null, staff: true });
  }

  @Access("OPERATOR")
  @Mutation(() => PermitType, { description: "Operator: revoke the permit for a reason of SUL 1004 G" })
  async revokeIndustrialPermit(@Arg("input", () => RevokeInput) input: RevokeInput, @Ctx() ctx: Context) {
    return present(await permits.revokePermit(ctx.ds, ctx.viewer!, input, meta(ctx)), { role: null, staff: true });
  }

  @FieldResolver(() => String)
  statusLabel(@Root() p: PermitView): string {
    return STATUS_LABELS[p.status];
  }

  @FieldResolver(() => String)
  address(@Root() p: PermitView): string {
    return addressOf(p);
  }

  @FieldResolver(() => String, { description: "The industrial user's name" })
  async organizationName(@Root() p: PermitView, @Ctx() ctx: Context): Promise<string> {
    return (await ctx.loaders.organization.load(p.organizationId))?.name ?? "";
  }

  @FieldResolver(() => String)
  async districtName(@Root() p: PermitView, @Ctx() ctx: Context): Promise<string> {
    return (await ctx.loaders.district.load(p.districtId))?.name ?? "";
  }

  @FieldResolver(() => String, { description: "The district's time zone (IANA): the permit's times are shown on its clock" })
  async timeZone(@Root() p: PermitView, @Ctx() ctx: Context): Promise<string> {
    return (await ctx.loaders.district.load(p.districtId))?.timeZone ?? "UTC";
  }

  @FieldResolver(() => [String], { description: "Fields withheld from this viewer as trade secrets (SUL 1014)" })
  withheldFields(@Root() p: PermitView): string[] {
    return p.withheld;
  }

  @FieldResolver(() => String, { nullable: true, description: "My role in the permit's organization, if any" })
  viewerRole(@Root() p: PermitView): string | null {
    return p.rel.role;
  }

  @FieldResolver(() => Boolean, { description: "I am staff of the permit's district" })
  viewerIsStaff(@Root() p: PermitView): boolean {
    return p.rel.staff;
  }

  @FieldResolver(() => String, { nullable: true, description: "The first day the permit may be issued (notice date + the rulebook's days, SUL 1004 H)" })
  async earliestIssueOn(@Root() p: PermitView, @Ctx() ctx: Context): Promise<string | null> {
    if (!p.noticePublishedOn || !p.rulebookVersionId) return null;
    const rb = await rulebookById(ctx.ds, p.rulebookVersionId);
    const days = rb.entry("industrial.publicNoticeDays").value;
    return typeof days === "number" ? addCalendarDays(p.noticePublishedOn, days) : null;
  }

  @FieldResolver(() => String, { nullable: true })
  revocationReasonLabel(@Root() p: PermitView): string | null {
    return p.revocationReason ? REVOCATION_REASONS[p.revocationReason as RevocationReason] : null;
  }

  @FieldResolver(() => [LimitType])
  async limits(@Root() p: PermitView, @Ctx() ctx: Context) {
    return (await L(ctx).limits.load(p.id)).map((l) => ({ ...l, unitLabel: UNIT_LABELS[l.unit as Unit] ?? l.unit }));
  }

  @FieldResolver(() => [ReportType], { description: "Report periods with their due dates, oldest first" })
  async reports(@Root() p: PermitView, @Ctx() ctx: Context): Promise<ReportRow[]> {
    return L(ctx).reports.load(p.id);
  }

  @FieldResolver(() => NextReportType, { nullable: true, description: "The next report not yet signed, and days left" })
  async nextReport(@Root() p: PermitView, @Ctx() ctx: Context) {
    if (p.status !== "ISSUED") return null;
    const rows = await L(ctx).reports.load(p.id);
    const signed = new Set(rows.filter((r) => r.status === "SIGNED").map((r) => r.amendsId ?? r.id));
    const next = rows.find((r) => r.status !== "SIGNED" && !r.amendsId && !signed.has(r.id));
    if (!next) return null;
    const district = await ctx.loaders.district.load(p.districtId);
    return { ...next, daysLeft: daysLeft(next.dueOn, district!.timeZone) };
  }

  @FieldResolver(() => [DutyType], { description: "Open duties of exceedances (members and staff only)" })
  async openDuties(@Root() p: PermitView, @Ctx() ctx: Context): Promise<DutyRow[]> {
    if (!p.rel.role && !p.rel.staff) return [];
    return L(ctx).openDuties.load(p.id);
  }

  @FieldResolver(() => [PermitDocumentType], { description: "Plans and lab reports filed (members and staff only)" })
  async documents(@Root() p: PermitView, @Ctx() ctx: Context) {
    if (!p.rel.role && !p.rel.staff) return [];
    return L(ctx).documents.load(p.id);
  }
}

// ---------------------------------------------------------------------------------------------
// Reports

type ReportView = ReportRow & { member: boolean; staff: boolean };

@Resolver(() => ReportType)
export class IndustrialReportsResolver {
  @Access("PUBLIC")
  @Query(() => ReportType, { description: "A report: its organization and staff always; anyone once signed (SUL 1014)" })
  async industrialReport(@Arg("id", () => ID) id: string, @Ctx() ctx: Context): Promise<ReportView> {
    const { r, member, staff } = await reports.viewableReport(ctx.ds, ctx.viewer, id);
    return { ...r, member, staff };
  }

  @Access("PUBLIC")
  @Query(() => VerificationType, { description: "Verifies a signed report's copy of record against its SHA-256 and the stored results" })
  verifyCopyOfRecord(@Arg("reportId", () => ID) reportId: string, @Ctx() ctx: Context) {
    return signing.verifyCopyOfRecord(ctx.ds, ctx.viewer, reportId);
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => ReportPageType, { description: "Staff: the district's reports, RECEIVED (signed, newest first) or LATE (past due, not signed, most overdue first)" })
  async industrialReportInbox(
    @Arg("districtId", () => ID) districtId: string,
    @Arg("view", () => String) view: string,
    @Ctx() ctx: Context,
    @Arg("first", () => Int, { nullable: true }) first?: number,
    @Arg("after", () => String, { nullable: true }) after?: string,
  ) {
    const page = await reports.reportInbox(ctx.ds, ctx.viewer!, { districtId, view, first, after });
    return { items: page.items.map((r) => ({ ...r, member: false, staff: true })), nextCursor: page.nextCursor };
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => ResultPageType, { description: "Staff: results over a limit in the district, newest sample first (amended reports' replaced results left out)" })
  industrialExceedances(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("first", () => Int, { nullable: true }) first?: number,
    @Arg("after", () => String, { nullable: true }) after?: string,
  ) {
    return reports.exceedances(ctx.ds, ctx.viewer!, { districtId, first, after });
  }

  @Access("SIGNED_IN")
  @Mutation(() => [ResultType], { description: "Saves lab results (all or none); each comes back judged against the permit's limits, with the duties of any exceedance" })
  async addIndustrialResults(
    @Arg("reportId", () => ID) reportId: string,
    // The service checks every field of every result and answers line by line; class-validator
    // would only add the cost of 500 more instances to a report's save.
    @Arg("results", () => [ResultInput], { validate: false }) results: ResultInput[],
    @Ctx() ctx: Context,
  ) {
    return labResults.addResults(ctx.ds, ctx.viewer!, reportId, results, meta(ctx));
  }

  @Access("SIGNED_IN")
  @Mutation(() => [ResultType], { description: "Uploads lab results as CSV; a file with a bad line is refused line by line and nothing from it is saved" })
  async uploadIndustrialResultsCsv(@Arg("reportId", () => ID) reportId: string, @Arg("csv", () => String) csv: string, @Ctx() ctx: Context) {
    return labResults.uploadCsv(ctx.ds, ctx.viewer!, reportId, csv, meta(ctx));
  }

  @Access("SIGNED_IN")
  @Mutation(() => ReportType, { description: "Deletes a result from a report not yet signed" })
  async deleteIndustrialResult(@Arg("id", () => ID) id: string, @Ctx() ctx: Context): Promise<ReportView> {
    return { ...(await labResults.deleteResult(ctx.ds, ctx.viewer!, id, ctx.requestId)), member: true, staff: false };
  }

  @Access("SIGNED_IN")
  @Mutation(() => CopyOfRecordType, { description: "Authorized Representative: sign and certify the report (password re-entered); stores the copy of record" })
  signIndustrialReport(@Arg("input", () => SignInput) input: SignInput, @Ctx() ctx: Context): Promise<CopyOfRecordRow> {
    return signing.signReport(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("SIGNED_IN")
  @Mutation(() => ReportType, { description: "Starts an amendment of a signed report: a new draft with its results" })
  async amendIndustrialReport(@Arg("id", () => ID) id: string, @Ctx() ctx: Context): Promise<ReportView> {
    return { ...(await reports.amendReport(ctx.ds, ctx.viewer!, id, ctx.requestId)), member: true, staff: false };
  }

  @Access("SIGNED_IN")
  @Mutation(() => DutyType, { description: "Records that a NOTIFY duty is done (better: fileViolationNotice); a RESAMPLE duty is done by signing its repeat sampling report" })
  completeIndustrialDuty(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return reports.completeDuty(ctx.ds, ctx.viewer!, id, ctx.requestId);
  }

  @FieldResolver(() => String)
  statusLabel(@Root() r: ReportView): string {
    return r.status === "DUE" ? "Not started" : r.status === "DRAFT" ? "Draft, not signed" : "Signed and received";
  }

  @FieldResolver(() => Int, { description: "Days until due (0 on the due day, negative once late); null once signed" , nullable: true })
  async daysLeft(@Root() r: ReportView, @Ctx() ctx: Context): Promise<number | null> {
    if (r.status === "SIGNED") return null;
    const p = await L(ctx).permit.load(r.permitId);
    const d = await ctx.loaders.district.load(p!.districtId);
    return daysLeft(r.dueOn, d!.timeZone);
  }

  @FieldResolver(() => PermitType)
  async permit(@Root() r: ReportView, @Ctx() ctx: Context): Promise<PermitView> {
    const p = await L(ctx).permit.load(r.permitId);
    if (!p) throw notFound("That permit");
    const roles = await relationsFor(ctx);
    return present(p, { role: roles.get(p.organizationId) ?? null, staff: isStaff(ctx.viewer, p.districtId) });
  }

  @FieldResolver(() => [ResultType])
  async results(@Root() r: ReportRow, @Ctx() ctx: Context): Promise<ResultRow[]> {
    return L(ctx).results.load(r.id);
  }

  @FieldResolver(() => [DutyType], { description: "Duties the report's exceedances opened (its organization and staff)" })
  async duties(@Root() r: ReportView, @Ctx() ctx: Context): Promise<DutyRow[]> {
    if (!r.member && !r.staff) return [];
    return L(ctx).reportDuties.load(r.id);
  }

  @FieldResolver(() => String, { description: "The certification the Authorized Representative makes (40 CFR 403.6(a)(2)(ii); SUL 1115)" })
  certification(): string {
    return signing.CERTIFICATION;
  }

  @FieldResolver(() => String, { nullable: true, description: "SHA-256 of the report's content as it stands: the signer sends it back as reviewedHash" })
  async contentHash(@Root() r: ReportView, @Ctx() ctx: Context): Promise<string | null> {
    if (!r.member || r.status === "SIGNED") return null;
    const p = await L(ctx).permit.load(r.permitId);
    return signing.contentHash(ctx.ds, r, p!);
  }

  @FieldResolver(() => CopyOfRecordType, { nullable: true })
  async copyOfRecord(@Root() r: ReportRow, @Ctx() ctx: Context): Promise<CopyOfRecordRow | null> {
    return r.status === "SIGNED" ? reports.copyOfRecord(ctx.ds, r.id) : null;
  }

  @FieldResolver(() => ID, { nullable: true, description: "The amendment that corrects this report, if any" })
  async amendedById(@Root() r: ReportRow, @Ctx() ctx: Context): Promise<string | null> {
    const rows = await L(ctx).reports.load(r.permitId);
    return rows.find((x) => x.amendsId === r.id)?.id ?? null;
  }
}

@Resolver(() => ResultType)
export class IndustrialResultsResolver {
  @FieldResolver(() => String)
  unitLabel(@Root() r: ResultRow): string {
    return UNIT_LABELS[r.unit] ?? r.unit;
  }

  @FieldResolver(() => ReportType, { description: "The report the result belongs to" })
  async report(@Root() r: ResultRow, @Ctx() ctx: Context): Promise<ReportView> {
    const rows = await L(ctx).reportById.load(r.reportId);
    const p = await L(ctx).permit.load(r.permitId);
    const roles = await relationsFor(ctx);
    return { ...rows!, member: !!(p && roles.get(p.organizationId)), staff: !!p && isStaff(ctx.viewer, p.districtId) };
  }

  @FieldResolver(() => [DutyType], { description: "Duties this result opened (SUL 1005(4))" })
  duties(@Root() r: ResultRow & { duties?: DutyRow[] }, @Ctx() ctx: Context): DutyRow[] | Promise<DutyRow[]> {
    // Results just saved carry their duties: answered without a promise (500 of them in a save).
    return r.duties ?? this.loadDuties(r, ctx);
  }

  private async loadDuties(r: ResultRow, ctx: Context): Promise<DutyRow[]> {
    const p = await L(ctx).permit.load(r.permitId);
    const roles = await relationsFor(ctx);
    if (!p || (!roles.get(p.organizationId) && !isStaff(ctx.viewer, p.districtId))) return [];
    return L(ctx).resultDuties.load(r.id);
  }
}

