import DataLoader from "dataloader";
import { Arg, Ctx, Field, FieldResolver, Float, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { clock } from "../common/clock.js";
import { daysLeft, dateIn } from "../common/dates.js";
import { Access } from "../graphql/access.js";
import { PageOf, type Page } from "../graphql/page.js";
import type { Context } from "../graphql/context.js";
import { type PermitRow, type Relation, permitRulebook } from "./common.js";
import * as events from "./events.service.js";
import { DutyType, PermitType, ReportType } from "./industrial.resolver.js";
import { REPORT_TITLES, type DutyRow, type ReportRow } from "./reports.service.js";
import { groupBy, industrialRows, perRequest } from "./loaders.js";

/** GraphQL of the other report kinds (events.service.ts): violation notifications, repeat sampling, slug discharges, 90-day and baseline reports, milestone progress. */

type PermitView = PermitRow & { rel: Relation };
type ReportView = ReportRow & { member: boolean; staff: boolean };
type SlugView = events.SlugRow & { member: boolean; staff: boolean };

@ObjectType("IndustrialViolationNotice", { description: "The notification of a violation the user made (SUL 1005(4))", simpleResolvers: true })
class NoticeType {
  @Field(() => ID) id: string;
  @Field(() => ID) dutyId: string;
  @Field(() => ID) permitId: string;
  @Field(() => String, { description: "The person at the district told" }) notifiedWhom: string;
  @Field(() => String, { description: "PHONE, EMAIL, IN_PERSON or LETTER" }) method: string;
  @Field(() => Date) notifiedAt: Date;
  @Field(() => String) text: string;
  @Field(() => Boolean, { description: "Made within the rulebook's hours of learning of the violation" }) onTime: boolean;
  @Field(() => Date) filedAt: Date;
}

@ObjectType("IndustrialSlugDischarge", { description: "An accidental or slug discharge (SUL 1011): the immediate notification and the written report; never confidential (SUL 1014)" })
class SlugType {
  @Field(() => ID) id: string;
  @Field(() => ID) permitId: string;
  @Field(() => ID, { description: "The written report (kind SLUG), signed by the Authorized Representative" }) reportId: string;
  @Field(() => Date) occurredAt: Date;
  @Field(() => Date) notifiedAt: Date;
  @Field(() => String) notifiedWhom: string;
  @Field(() => String, { description: "What was discharged" }) substance: string;
  @Field(() => Float) estimatedVolumeGallons: number;
  @Field(() => String) description: string;
  @Field(() => String, { description: "YYYY-MM-DD: the written report is due (occurrence + the rulebook's days, SUL 1011)" }) writtenDueOn: string;
  @Field(() => String, { description: "YYYY-MM-DD: analytical results may be appended until" }) analysesDueOn: string;
  @Field(() => Date) filedAt: Date;
}

const SlugPageType = PageOf("IndustrialSlugDischargePage", () => SlugType);

const NoticePageType = PageOf("IndustrialViolationNoticePage", () => NoticeType);

/** A rulebook figure with its section, null when the district's law does not set it. */
@ObjectType("IndustrialRuleFigure", { simpleResolvers: true })
class RuleFigureType {
  @Field(() => Int, { nullable: true }) value: number | null;
  @Field(() => String, { description: "Where the law says it, e.g. SUL 1005(4)" }) section: string;
}

@ObjectType("IndustrialEventRules", { description: "The permit's rulebook figures for violations and accidental discharges, as the portal states them", simpleResolvers: true })
class EventRulesType {
  @Field(() => RuleFigureType, { description: "Hours to notify the District Operator of a violation (SUL 1005(4))" }) notifyHours: RuleFigureType;
  @Field(() => RuleFigureType, { description: "Days to repeat the sampling and send the results (SUL 1005(4))" }) resampleDays: RuleFigureType;
  @Field(() => RuleFigureType, { description: "Days to write the report of an accidental or slug discharge (SUL 1011)" }) slugWrittenReportDays: RuleFigureType;
}

@ObjectType("IndustrialNinetyDayStatement", { description: "The 90-day report's statement and the qualified professional's certification (SUL 1005(2))", simpleResolvers: true })
class StatementType {
  @Field(() => ID) reportId: string;
  @Field(() => Boolean, { description: "The standards are met consistently" }) standardsMet: boolean;
  @Field(() => String, { nullable: true, description: "The additional O&M or pretreatment needed" }) measures: string | null;
  @Field(() => String) professionalName: string;
  @Field(() => String) professionalCredential: string;
}

@ObjectType("IndustrialMilestoneProgress", { description: "A progress report on a compliance-schedule milestone (SUL 1004 A(12)(c))", simpleResolvers: true })
class ProgressType {
  @Field(() => ID) id: string;
  @Field(() => Int) milestoneIndex: number;
  @Field(() => String) milestone: string;
  @Field(() => String) milestoneDueOn: string;
  @Field(() => Boolean) met: boolean;
  @Field(() => String, { nullable: true }) metOn: string | null;
  @Field(() => String, { nullable: true }) reason: string | null;
  @Field(() => String, { nullable: true }) expectedOn: string | null;
  @Field(() => Date) filedAt: Date;
}

@ObjectType("IndustrialScheduleMilestone", { description: "A compliance-schedule milestone with its latest progress report (SUL 1004 A(12))", simpleResolvers: true })
class MilestoneViewType {
  @Field(() => Int) index: number;
  @Field(() => String) milestone: string;
  @Field(() => String) dueOn: string;
  @Field(() => String, { description: "The progress report is due by (milestone date + the rulebook's days)" }) progressDueOn: string;
  @Field(() => Int, { nullable: true, description: "Days left to file the progress report; null once one is filed" }) progressDaysLeft: number | null;
  @Field(() => String, { nullable: true }) metOn: string | null;
  @Field(() => ProgressType, { nullable: true }) latest: events.ProgressRow | null;
}

@InputType("IndustrialViolationNoticeInput")
class NoticeInput {
  @Field(() => ID) dutyId: string;
  @Field(() => String) notifiedWhom: string;
  @Field(() => String, { description: "PHONE, EMAIL, IN_PERSON or LETTER" }) method: string;
  @Field(() => String, { description: "YYYY-MM-DDTHH:MM in the district's zone, or an ISO instant" }) notifiedAt: string;
  @Field(() => String) text: string;
}

@InputType("IndustrialSlugDischargeInput")
class SlugInput {
  @Field(() => ID) permitId: string;
  @Field(() => String, { description: "YYYY-MM-DDTHH:MM in the district's zone, or an ISO instant" }) occurredAt: string;
  @Field(() => String) notifiedAt: string;
  @Field(() => String) notifiedWhom: string;
  @Field(() => String) substance: string;
  @Field(() => Float, { nullable: true }) estimatedVolumeGallons: number | null;
  @Field(() => String, { nullable: true }) description?: string | null;
}

@InputType("IndustrialSlugWrittenReportInput")
class SlugWrittenInput {
  @Field(() => ID) slugId: string;
  @Field(() => String) causes: string;
  @Field(() => String) measures: string;
}

@InputType("IndustrialReportDateInput")
class ReportDateInput {
  @Field(() => ID) permitId: string;
  @Field(() => String, { description: "NINETY_DAY (from final compliance / start of discharge) or BASELINE (from the categorical standard's promulgation)" }) kind: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) basisOn: string;
}

@InputType("IndustrialNinetyDayStatementInput")
class StatementInput {
  @Field(() => ID) reportId: string;
  @Field(() => Boolean) standardsMet: boolean;
  @Field(() => String, { nullable: true }) measures?: string | null;
  @Field(() => String) professionalName: string;
  @Field(() => String) professionalCredential: string;
}

@InputType("IndustrialMilestoneProgressInput")
class ProgressInput {
  @Field(() => ID) permitId: string;
  @Field(() => Int) milestoneIndex: number;
  @Field(() => Boolean) met: boolean;
  @Field(() => String, { nullable: true }) metOn?: string | null;
  @Field(() => String, { nullable: true }) reason?: string | null;
  @Field(() => String, { nullable: true }) expectedOn?: string | null;
}

function loadersFor(ctx: Context) {
  const ds = ctx.ds;
  const group = <T extends { [k: string]: any }>(rows: T[], key: keyof T, ids: readonly string[]) => groupBy(rows, (r) => r[key], ids);
  return {
    notices: new DataLoader<string, events.NoticeRow[]>(async (ids) => group(await events.noticesOfDuties(ds, ids), "dutyId", ids)),
    resample: new DataLoader<string, ReportRow[]>(async (ids) => group(await events.resampleReportsOfDuties(ds, ids), "dutyId" as any, ids)),
    duties: new DataLoader<string, DutyRow[]>(async (ids) => group(await events.dutiesOfPermits(ds, ids), "permitId", ids)),
    slugs: new DataLoader<string, events.SlugRow[]>(async (ids) => group(await events.slugsOfPermits(ds, ids), "permitId", ids)),
    slugOfReport: new DataLoader<string, events.SlugRow[]>(async (ids) => group(await events.slugsOfReports(ds, ids), "reportId", ids)),
    statements: new DataLoader<string, events.StatementRow[]>(async (ids) => group(await events.statementsOf(ds, ids), "reportId", ids)),
    progress: new DataLoader<string, events.ProgressRow[]>(async (ids) => group(await events.progressOfPermits(ds, ids), "permitId", ids)),
    reports: industrialRows(ctx).report,
    permits: industrialRows(ctx).permit,
  };
}
const L = perRequest(loadersFor);
const meta = (ctx: Context) => ({ requestId: ctx.requestId, publicUrl: ctx.config.publicUrl });

async function zoneOf(ctx: Context, permitId: string): Promise<string> {
  const p = await L(ctx).permits.load(permitId);
  const d = await ctx.loaders.district.load(p!.districtId);
  return d!.timeZone;
}

@Resolver(() => NoticeType)
export class IndustrialNoticesResolver {
  @FieldResolver(() => String)
  methodLabel(@Root() n: events.NoticeRow): string {
    return events.NOTICE_METHOD_LABELS[n.method] ?? n.method;
  }

  @FieldResolver(() => Date, { description: "When the notification was due: the rulebook's hours after the exceedance was entered (SUL 1005(4))" })
  async dueAt(@Root() n: events.NoticeRow, @Ctx() ctx: Context): Promise<Date> {
    return (await industrialRows(ctx).duty.load(n.dutyId))!.dueAt;
  }
}

@Resolver(() => DutyType)
export class IndustrialDutyEventsResolver {
  @FieldResolver(() => NoticeType, { nullable: true, description: "The notification recorded for a NOTIFY duty (SUL 1005(4))" })
  async notification(@Root() d: DutyRow, @Ctx() ctx: Context): Promise<events.NoticeRow | null> {
    return d.kind === "NOTIFY" ? ((await L(ctx).notices.load(d.id))[0] ?? null) : null;
  }

  @FieldResolver(() => ID, { nullable: true, description: "The repeat sampling report started from a RESAMPLE duty" })
  async resampleReportId(@Root() d: DutyRow, @Ctx() ctx: Context): Promise<string | null> {
    return d.kind === "RESAMPLE" ? ((await L(ctx).resample.load(d.id))[0]?.id ?? null) : null;
  }

  @FieldResolver(() => Boolean, { nullable: true, description: "Done within the time the law gives (24 hours to notify, 30 days to resample); null while open" })
  async onTime(@Root() d: DutyRow, @Ctx() ctx: Context): Promise<boolean | null> {
    const notice = d.kind === "NOTIFY" ? (await L(ctx).notices.load(d.id))[0] : undefined;
    return events.dutyOnTime(d, notice, await zoneOf(ctx, d.permitId));
  }

  @FieldResolver(() => Int, { nullable: true, description: "Calendar days left to the due date (negative once late); null once done" })
  async daysLeft(@Root() d: DutyRow, @Ctx() ctx: Context): Promise<number | null> {
    return d.doneAt ? null : daysLeft(d.dueOn, await zoneOf(ctx, d.permitId));
  }

  @FieldResolver(() => Int, { nullable: true, description: "Whole minutes left to the due time (negative once late, from the first minute); null once done. For the 24-hour notification" })
  minutesLeft(@Root() d: DutyRow): number | null {
    if (d.doneAt) return null;
    const ms = d.dueAt.getTime() - clock.now().getTime();
    return ms >= 0 ? Math.floor(ms / 60_000) : -Math.ceil(-ms / 60_000);
  }
}

@Resolver(() => PermitType)
export class IndustrialPermitEventsResolver {
  @FieldResolver(() => [DutyType], { description: "Every duty of exceedances, open or done, newest first (members and staff only)" })
  async duties(@Root() p: PermitView, @Ctx() ctx: Context): Promise<DutyRow[]> {
    if (!p.rel.role && !p.rel.staff) return [];
    return L(ctx).duties.load(p.id);
  }

  @FieldResolver(() => [SlugType], { description: "Accidental or slug discharges reported (SUL 1011), newest first; public (SUL 1014)" })
  async slugDischarges(@Root() p: PermitView, @Ctx() ctx: Context): Promise<SlugView[]> {
    return (await L(ctx).slugs.load(p.id)).map((s) => ({ ...s, member: p.rel.role !== null, staff: p.rel.staff }));
  }

  @FieldResolver(() => [MilestoneViewType], { description: "The compliance schedule's milestones with their progress reports (members and staff only)" })
  async milestones(@Root() p: PermitView, @Ctx() ctx: Context): Promise<events.MilestoneView[]> {
    if ((!p.rel.role && !p.rel.staff) || !p.complianceSchedule?.length) return [];
    const district = await ctx.loaders.district.load(p.districtId);
    const rb = await permitRulebook(ctx.ds, p, district!);
    // A permit with a schedule needs the rulebook's days (SUL 1004 A(12)(c)); without them the answer says which entry is blank.
    return events.milestonesOf(p, await L(ctx).progress.load(p.id), rb.require("industrial.progressReportDays").value, district!.timeZone);
  }

  @FieldResolver(() => EventRulesType, { description: "The figures the permit's rulebook sets for violations and accidental discharges" })
  async eventRules(@Root() p: PermitView, @Ctx() ctx: Context): Promise<EventRulesType> {
    const rb = await permitRulebook(ctx.ds, p, (await ctx.loaders.district.load(p.districtId))!);
    const figure = (key: "industrial.violationNotifyHours" | "industrial.resampleDays" | "industrial.slugWrittenReportDays") => {
      const e = rb.entry(key);
      return { value: typeof e.value === "number" ? e.value : null, section: e.section };
    };
    return { notifyHours: figure("industrial.violationNotifyHours"), resampleDays: figure("industrial.resampleDays"), slugWrittenReportDays: figure("industrial.slugWrittenReportDays") };
  }

  @FieldResolver(() => [ProgressType], { description: "Every progress report filed, oldest first (members and staff only)" })
  async progressReports(@Root() p: PermitView, @Ctx() ctx: Context): Promise<events.ProgressRow[]> {
    if (!p.rel.role && !p.rel.staff) return [];
    return L(ctx).progress.load(p.id);
  }
}

@Resolver(() => ReportType)
export class IndustrialReportEventsResolver {
  @FieldResolver(() => String, { description: "What the report is, with its section" })
  kindLabel(@Root() r: ReportRow): string {
    return REPORT_TITLES[r.kind] ?? r.kind;
  }

  @FieldResolver(() => ID, { nullable: true, description: "RESAMPLE: the duty it meets" })
  dutyId(@Root() r: ReportRow): string | null {
    return events.dutyIdOf(r);
  }

  @FieldResolver(() => String, { nullable: true, description: "NINETY_DAY / BASELINE: the date the due date counts from" })
  basisOn(@Root() r: ReportRow): string | null {
    return events.basisOnOf(r);
  }

  @FieldResolver(() => SlugType, { nullable: true, description: "SLUG: the discharge this written report is about" })
  async slugDischarge(@Root() r: ReportView, @Ctx() ctx: Context): Promise<SlugView | null> {
    if (r.kind !== "SLUG") return null;
    const [s] = await L(ctx).slugOfReport.load((await events.rootReport(ctx.ds, r)).id);
    return s ? { ...s, member: r.member, staff: r.staff } : null;
  }

  @FieldResolver(() => StatementType, { nullable: true, description: "NINETY_DAY: the statement and the qualified professional's certification" })
  async statement(@Root() r: ReportView, @Ctx() ctx: Context): Promise<events.StatementRow | null> {
    return r.kind === "NINETY_DAY" ? ((await L(ctx).statements.load(r.id))[0] ?? null) : null;
  }
}

@Resolver(() => SlugType)
export class IndustrialSlugResolver {
  @Access("PUBLIC")
  @Query(() => SlugType, { description: "An accidental or slug discharge: public once recorded, as its permit is (SUL 1014)" })
  async industrialSlugDischarge(@Arg("id", () => ID) id: string, @Ctx() ctx: Context): Promise<SlugView> {
    const { s, member, staff } = await events.viewableSlug(ctx.ds, ctx.viewer, id);
    return { ...s, member, staff };
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => SlugPageType, { description: "Staff: the district's accidental or slug discharges, newest first, a page at a time" })
  async industrialSlugDischarges(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("first", () => Int, { nullable: true, description: "Page size, 1-200 (50)" }) first?: number,
    @Arg("after", () => String, { nullable: true, description: "The previous page's nextCursor" }) after?: string | null,
  ): Promise<Page<SlugView>> {
    const page = await events.districtSlugs(ctx.ds, ctx.viewer!, districtId, first ?? 50, after ?? null);
    return { items: page.items.map((s) => ({ ...s, member: false, staff: true })), nextCursor: page.nextCursor };
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => NoticePageType, { description: "Staff: the district's violation notifications (SUL 1005(4)), newest first, a page at a time" })
  industrialViolationNotices(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("first", () => Int, { nullable: true, description: "Page size, 1-200 (50)" }) first?: number,
    @Arg("after", () => String, { nullable: true, description: "The previous page's nextCursor" }) after?: string | null,
  ): Promise<Page<events.NoticeRow>> {
    return events.districtNotices(ctx.ds, ctx.viewer!, districtId, first ?? 50, after ?? null);
  }

  @Access("SIGNED_IN")
  @Mutation(() => NoticeType, { description: "Records the notification of a violation (who, how, when, what); completes the NOTIFY duty, late ones marked late (SUL 1005(4))" })
  fileViolationNotice(@Arg("input", () => NoticeInput) input: NoticeInput, @Ctx() ctx: Context) {
    return events.fileViolationNotice(ctx.ds, ctx.viewer!, input, ctx.requestId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => ReportType, { description: "Starts the repeat sampling report of a RESAMPLE duty (SUL 1005(4)); signing it completes the duty" })
  async startResampleReport(@Arg("dutyId", () => ID) dutyId: string, @Ctx() ctx: Context): Promise<ReportView> {
    return { ...(await events.startResampleReport(ctx.ds, ctx.viewer!, dutyId, ctx.requestId)), member: true, staff: false };
  }

  @Access("SIGNED_IN")
  @Mutation(() => SlugType, { description: "Records an accidental or slug discharge and its immediate notification (SUL 1011); emails the District Operator" })
  async reportSlugDischarge(@Arg("input", () => SlugInput) input: SlugInput, @Ctx() ctx: Context): Promise<SlugView> {
    return { ...(await events.reportSlugDischarge(ctx.ds, ctx.viewer!, input, meta(ctx))), member: true, staff: false };
  }

  @Access("SIGNED_IN")
  @Mutation(() => SlugType, { description: "Saves the written report's causes and measures (SUL 1011); the Authorized Representative then signs the SLUG report" })
  async saveSlugWrittenReport(@Arg("input", () => SlugWrittenInput) input: SlugWrittenInput, @Ctx() ctx: Context): Promise<SlugView> {
    return { ...(await events.saveSlugWrittenReport(ctx.ds, ctx.viewer!, input, ctx.requestId)), member: true, staff: false };
  }

  @Access("OPERATOR")
  @Mutation(() => ReportType, { description: "Operator: sets the date a 90-day compliance report (SUL 1005(2)) or baseline report (1005(1)) counts from; makes the report with its due date" })
  async setIndustrialReportDate(@Arg("input", () => ReportDateInput) input: ReportDateInput, @Ctx() ctx: Context): Promise<ReportView> {
    return { ...(await events.setDatedReport(ctx.ds, ctx.viewer!, input, meta(ctx))), member: false, staff: true };
  }

  @Access("SIGNED_IN")
  @Mutation(() => StatementType, { description: "Saves the 90-day report's statement and the qualified professional's certification (SUL 1005(2))" })
  saveNinetyDayStatement(@Arg("input", () => StatementInput) input: StatementInput, @Ctx() ctx: Context) {
    return events.saveNinetyDayStatement(ctx.ds, ctx.viewer!, input, ctx.requestId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => ProgressType, { description: "Files a progress report on a compliance-schedule milestone: met on a date, or not met with reason and expected date (SUL 1004 A(12)(c))" })
  fileMilestoneProgress(@Arg("input", () => ProgressInput) input: ProgressInput, @Ctx() ctx: Context) {
    return events.fileProgressReport(ctx.ds, ctx.viewer!, input, ctx.requestId);
  }

  @FieldResolver(() => String, { nullable: true, description: "The causes (SUL 1011): to the organization and staff, and to anyone once the written report is signed" })
  async causes(@Root() s: SlugView, @Ctx() ctx: Context): Promise<string | null> {
    return (await this.written(s, ctx)) ? s.causes : null;
  }

  @FieldResolver(() => String, { nullable: true, description: "The measures taken to prevent recurrence (SUL 1011); as causes" })
  async measures(@Root() s: SlugView, @Ctx() ctx: Context): Promise<string | null> {
    return (await this.written(s, ctx)) ? s.measures : null;
  }

  @FieldResolver(() => String, { description: "DUE, DRAFT or SIGNED: the written report's state" })
  async writtenStatus(@Root() s: SlugView, @Ctx() ctx: Context): Promise<string> {
    return (await this.report(s, ctx)).status;
  }

  @FieldResolver(() => Date, { nullable: true, description: "When the written report was signed and received" })
  async writtenSignedAt(@Root() s: SlugView, @Ctx() ctx: Context): Promise<Date | null> {
    return (await this.report(s, ctx)).signedAt;
  }

  @FieldResolver(() => Int, { nullable: true, description: "Days left for the written report (negative once late); null once signed" })
  async writtenDaysLeft(@Root() s: SlugView, @Ctx() ctx: Context): Promise<number | null> {
    const r = await this.report(s, ctx);
    return r.status === "SIGNED" ? null : daysLeft(s.writtenDueOn, await zoneOf(ctx, s.permitId));
  }

  @FieldResolver(() => Boolean, { description: "The written report was signed after its due date, or is past it unsigned" })
  async writtenLate(@Root() s: SlugView, @Ctx() ctx: Context): Promise<boolean> {
    const r = await this.report(s, ctx);
    const zone = await zoneOf(ctx, s.permitId);
    return r.signedAt ? dateIn(zone, r.signedAt) > s.writtenDueOn : daysLeft(s.writtenDueOn, zone) < 0;
  }

  @FieldResolver(() => Int, { description: "Days left to append analytical results (negative once past)" })
  async analysesDaysLeft(@Root() s: SlugView, @Ctx() ctx: Context): Promise<number> {
    return daysLeft(s.analysesDueOn, await zoneOf(ctx, s.permitId));
  }

  @FieldResolver(() => String, { nullable: true })
  async permitNumber(@Root() s: SlugView, @Ctx() ctx: Context): Promise<string | null> {
    return (await L(ctx).permits.load(s.permitId))?.permitNumber ?? null;
  }

  @FieldResolver(() => String, { nullable: true })
  async facilityName(@Root() s: SlugView, @Ctx() ctx: Context): Promise<string | null> {
    return (await L(ctx).permits.load(s.permitId))?.facilityName ?? null;
  }

  private async report(s: SlugView, ctx: Context): Promise<ReportRow> {
    return (await L(ctx).reports.load(s.reportId))!;
  }

  private async written(s: SlugView, ctx: Context): Promise<boolean> {
    if (s.member || s.staff) return true;
    return (await this.report(s, ctx)).status === "SIGNED";
  }
}

