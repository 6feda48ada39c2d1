import DataLoader from "dataloader";
import { Arg, Ctx, Field, FieldResolver, Float, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { isStaff } from "../accounts/viewer.js";
import { addCalendarDays, daysLeft } from "../common/dates.js";
import { rulebookById } from "../districts/districts.service.js";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { STATUS_LABELS, mayView, type PermitRow, type Relation } from "./common.js";
import { UNIT_LABELS, type Limit, type Unit } from "./limits.js";
import { LimitFields, LimitInput, PermitType } from "./industrial.resolver.js";
import * as lifecycle from "./lifecycle.service.js";
import { CHANGE_KINDS, MODIFICATION_CAUSES, type ChangeKind, type ModificationRow } from "./lifecycle.service.js";
import { groupBy, perRequest } from "./loaders.js";

/** GraphQL of the permit after issuance (SUL 1004 B, E, F); rules in lifecycle.service.ts. */

@ObjectType("IndustrialModificationCause", { description: "A just cause of SUL 1004 B (or other just cause, 1004 E)" })
class CauseType {
  @Field(() => String) code: string;
  @Field(() => String, { description: "The law's words" }) label: string;
  @Field(() => String) section: string;
}

@ObjectType("IndustrialModificationLimit", { description: "A limit as a modification sets it, or as it was before" })
class ModLimitType extends LimitFields {}

@ObjectType("IndustrialModificationStep", { description: "A step of the compliance schedule of a modification's new conditions (SUL 1004 A(12), 1004 B)" })
class StepType {
  @Field(() => String) milestone: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) dueOn: string;
}

type ModView = ModificationRow & { timeZone: string };

@ObjectType("IndustrialPermitModification", { description: "A modification of an issued permit by the District Operator on 30 days' notice (SUL 1004 B, E)" })
class ModificationType {
  @Field(() => ID) id: string;
  @Field(() => ID) permitId: string;
  @Field(() => String, { description: "A 1004 B cause code or OTHER" }) cause: string;
  @Field(() => String, { nullable: true, description: "The other just cause, when cause is OTHER" }) causeText: string | null;
  @Field(() => String) explanation: string;
  @Field(() => [Int], { nullable: true, description: "New reporting months; null when unchanged" }) reportingMonths: number[] | null;
  @Field(() => String, { nullable: true, description: "New conditions; null when unchanged" }) conditions: string | null;
  @Field(() => [StepType]) complianceSchedule: StepType[];
  @Field(() => String, { description: "The day the permittee was notified" }) noticeOn: string;
  @Field(() => String) effectiveOn: string;
  @Field(() => String, { description: "PENDING, WITHDRAWN or EFFECTIVE" }) status: string;
  @Field(() => Date) proposedAt: Date;
  @Field(() => Date, { nullable: true }) withdrawnAt: Date | null;
  @Field(() => String, { nullable: true }) withdrawalReason: string | null;
  @Field(() => Date, { nullable: true }) appliedAt: Date | null;
}

@ObjectType("IndustrialReissuance", { description: "The reissuance deadline of an issued permit (SUL 1004 E)" })
class ReissuanceType {
  @Field(() => String, { description: "Apply by this day: expiry minus the rulebook's days (180)" }) deadline: string;
  @Field(() => Int, { description: "Days left until the deadline; negative once passed (a late application is still accepted)" }) daysLeft: number;
  @Field(() => String) section: string;
  @Field(() => ID, { nullable: true, description: "The open reissuance application, if any" }) applicationId: string | null;
}

@ObjectType("IndustrialPermitLink", { description: "A permit or application that follows another (reissuance, 1004 E; change, 1004 F)" })
class PermitLinkType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "REISSUANCE or CHANGE" }) relation: string;
  @Field(() => String) status: string;
  @Field(() => String) statusLabel: string;
  @Field(() => String, { nullable: true }) permitNumber: string | null;
  @Field(() => String, { nullable: true }) effectiveOn: string | null;
  @Field(() => Boolean, { nullable: true, description: "A reissuance applied for after the deadline" }) late: boolean | null;
}

@InputType("IndustrialModificationStepInput")
class StepInput {
  @Field(() => String) milestone: string;
  @Field(() => String) dueOn: string;
}
/** The same fields as a permit's limits (one parser, checkLimits), under the modification's name. */
@InputType("IndustrialModificationLimitInput")
class ModLimitInput extends LimitInput {}

@InputType("ProposeIndustrialModificationInput")
class ProposeInput {
  @Field(() => ID) permitId: string;
  @Field(() => String, { description: "CATEGORICAL_STANDARD, CATEGORICAL_REVISION, LOCAL_LIMITS, PROCESS_CHANGE, POTW_CHANGE, PASS_THROUGH, SEWAGE_CHARACTER or OTHER" }) cause: string;
  @Field(() => String, { nullable: true, description: "Required with OTHER (SUL 1004 E)" }) causeText?: string | null;
  @Field(() => String) explanation: string;
  @Field(() => [ModLimitInput], { nullable: true, description: "The permit's whole new list of limits; omit to keep them" }) limits?: ModLimitInput[] | null;
  @Field(() => [Int], { nullable: true, description: "New reporting months; omit to keep them" }) reportingMonths?: number[] | null;
  @Field(() => String, { nullable: true, description: "New conditions (free text); omit to keep them" }) conditions?: string | null;
  @Field(() => String, { description: "YYYY-MM-DD; at least the rulebook's notice days (30) from today" }) effectiveOn: string;
  @Field(() => [StepInput], { nullable: true }) complianceSchedule?: StepInput[] | null;
}

@InputType("ReportIndustrialPermitChangeInput")
class ChangeInput {
  @Field(() => ID) permitId: string;
  @Field(() => String, { description: "OWNER, USER, PREMISES or OPERATION (SUL 1004 F)" }) kind: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) changeOn: string;
  @Field(() => String) description: string;
  @Field(() => ID, { nullable: true, description: "The organization that will hold the new permit; the permit's own by default" }) organizationId?: string | null;
}

type View = PermitRow & { rel: Relation; withheld: string[] };

function loaders(ctx: Context) {
  const group = groupBy;
  return {
    modifications: new DataLoader<string, ModificationRow[]>(async (ids) => group(await lifecycle.modificationsOf(ctx.ds, ids), (r) => r.permitId, ids)),
    followers: new DataLoader<string, PermitRow[]>(async (ids) => group(await lifecycle.followersOf(ctx.ds, ids), (r) => r.previousPermitId!, ids)),
    numbers: new DataLoader<string, string | null>(async (ids) => {
      const rows = await ctx.ds.query(`SELECT id, permit_number FROM industrial_permit WHERE id = ANY($1::uuid[])`, [[...ids]]);
      const m = new Map(rows.map((r: any) => [r.id, r.permit_number]));
      return ids.map((id) => (m.get(id) as string) ?? null);
    }),
  };
}
const L = perRequest(loaders);

const limitOut = (l: Limit) => ({ ...l, unitLabel: UNIT_LABELS[l.unit as Unit] ?? l.unit });
const meta = (ctx: Context) => ({ requestId: ctx.requestId, publicUrl: ctx.config.publicUrl });
const members = (p: View) => p.rel.role !== null || p.rel.staff;

@Resolver(() => ModificationType)
export class IndustrialModificationsResolver {
  @Access("PUBLIC")
  @Query(() => [CauseType], { description: "The just causes of a permit modification (SUL 1004 B(1)-(7), and other just cause, 1004 E)" })
  industrialModificationCauses(): CauseType[] {
    return Object.entries(MODIFICATION_CAUSES).map(([code, c]) => ({ code, ...c }));
  }

  @Access("OPERATOR")
  @Mutation(() => ModificationType, { description: "Operator: modify an issued permit for just cause, effective at least 30 days after this notice (SUL 1004 B, E)" })
  async proposeIndustrialPermitModification(@Arg("input", () => ProposeInput) input: ProposeInput, @Ctx() ctx: Context): Promise<ModView> {
    const m = await lifecycle.proposeModification(ctx.ds, ctx.viewer!, input, meta(ctx));
    return this.view(m, ctx);
  }

  @Access("OPERATOR")
  @Mutation(() => ModificationType, { description: "Operator: withdraw a modification before it takes effect" })
  async withdrawIndustrialPermitModification(@Arg("id", () => ID) id: string, @Arg("reason", () => String) reason: string, @Ctx() ctx: Context): Promise<ModView> {
    return this.view(await lifecycle.withdrawModification(ctx.ds, ctx.viewer!, { id, reason }, meta(ctx)), ctx);
  }

  private async view(m: ModificationRow, ctx: Context): Promise<ModView> {
    const [p] = await ctx.ds.query(`SELECT district_id FROM industrial_permit WHERE id = $1`, [m.permitId]);
    const d = await ctx.loaders.district.load(p.district_id);
    return { ...m, timeZone: d!.timeZone };
  }

  @FieldResolver(() => String, { description: "The cause in the law's words" })
  causeLabel(@Root() m: ModView): string {
    return MODIFICATION_CAUSES[m.cause].label;
  }
  @FieldResolver(() => String)
  causeSection(@Root() m: ModView): string {
    return MODIFICATION_CAUSES[m.cause].section;
  }
  @FieldResolver(() => [ModLimitType], { nullable: true, description: "The new limits; null when unchanged" })
  limits(@Root() m: ModView) {
    return m.limits?.map(limitOut) ?? null;
  }
  @FieldResolver(() => Int, { nullable: true, description: "Days until it takes effect, while pending" })
  daysLeft(@Root() m: ModView): number | null {
    return m.status === "PENDING" ? daysLeft(m.effectiveOn, m.timeZone) : null;
  }
  @FieldResolver(() => [ModLimitType], { nullable: true, description: "The limits it replaced, once in effect" })
  replacedLimits(@Root() m: ModView) {
    return m.replaced?.limits?.map(limitOut) ?? null;
  }
  @FieldResolver(() => [Int], { nullable: true, description: "The reporting months it replaced, once in effect" })
  replacedReportingMonths(@Root() m: ModView): number[] | null {
    return m.replaced?.reportingMonths ?? null;
  }
}

@Resolver(() => PermitType)
export class IndustrialLifecycleResolver {
  @Access("SIGNED_IN")
  @Mutation(() => PermitType, { description: "Owner or Authorized Representative: start the reissuance application of an issued permit (SUL 1004 E), a draft copied from it" })
  async startIndustrialReissuance(@Arg("permitId", () => ID) permitId: string, @Ctx() ctx: Context): Promise<View> {
    const p = await lifecycle.startReissuance(ctx.ds, ctx.viewer!, permitId, ctx.requestId);
    return { ...p, rel: { role: "OWNER", staff: isStaff(ctx.viewer, p.districtId) }, withheld: [] };
  }

  @Access("SIGNED_IN")
  @Mutation(() => PermitType, {
    description: "Owner or Authorized Representative: report a change of owner, user, premises or operation; a permit is not transferred (SUL 1004 F), so this starts a new-permit application (a draft) for the organization that will hold it",
  })
  async reportIndustrialPermitChange(@Arg("input", () => ChangeInput) input: ChangeInput, @Ctx() ctx: Context): Promise<View> {
    const p = await lifecycle.reportChange(ctx.ds, ctx.viewer!, input, ctx.requestId);
    return { ...p, rel: { role: "OWNER", staff: isStaff(ctx.viewer, p.districtId) }, withheld: [] };
  }

  @FieldResolver(() => String, { nullable: true, description: "The permit's conditions besides its limits (as modified, SUL 1004 B, C)" })
  conditions(@Root() p: View): string | null {
    return p.conditions;
  }

  @FieldResolver(() => ID, { nullable: true, description: "The permit this application reissues (SUL 1004 E) or replaces after a change (1004 F)" })
  previousPermitId(@Root() p: View): string | null {
    return p.previousPermitId;
  }
  @FieldResolver(() => String, { nullable: true, description: "REISSUANCE or CHANGE" })
  previousRelation(@Root() p: View): string | null {
    return p.previousRelation;
  }
  @FieldResolver(() => String, { nullable: true })
  async previousPermitNumber(@Root() p: View, @Ctx() ctx: Context): Promise<string | null> {
    return p.previousPermitId ? L(ctx).numbers.load(p.previousPermitId) : null;
  }
  @FieldResolver(() => String, { nullable: true, description: "A reissuance: the day it was due (expiry minus 180 days, SUL 1004 E)" })
  reissuanceDueOn(@Root() p: View): string | null {
    return p.reissuanceDueOn;
  }
  @FieldResolver(() => Boolean, { nullable: true, description: "A reissuance submitted after its due day (accepted, marked late)" })
  reissuanceLate(@Root() p: View): boolean | null {
    return p.reissuanceLate;
  }
  @FieldResolver(() => String, { nullable: true, description: "After a change (SUL 1004 F): OWNER, USER, PREMISES or OPERATION" })
  changeKind(@Root() p: View): string | null {
    return p.changeKind;
  }
  @FieldResolver(() => String, { nullable: true })
  changeKindLabel(@Root() p: View): string | null {
    return p.changeKind ? CHANGE_KINDS[p.changeKind as ChangeKind] : null;
  }
  @FieldResolver(() => String, { nullable: true })
  changeOn(@Root() p: View): string | null {
    return p.changeOn;
  }
  @FieldResolver(() => String, { nullable: true, description: "The change as reported (members and staff only)" })
  changeDescription(@Root() p: View): string | null {
    return members(p) ? p.changeDescription : null;
  }
  @FieldResolver(() => String, { nullable: true, description: "SUPERSEDED: the day the permit ended (SUL 1004 F)" })
  supersededOn(@Root() p: View): string | null {
    return p.supersededOn;
  }
  @FieldResolver(() => ID, { nullable: true, description: "SUPERSEDED: the permit that replaced it" })
  supersededById(@Root() p: View): string | null {
    return p.supersededById;
  }

  @FieldResolver(() => [ModificationType], { description: "Modifications, pending and past, newest first: the permit's history (members and staff)" })
  async modifications(@Root() p: View, @Ctx() ctx: Context): Promise<ModView[]> {
    if (!members(p)) return [];
    const d = await ctx.loaders.district.load(p.districtId);
    return (await L(ctx).modifications.load(p.id)).map((m) => ({ ...m, timeZone: d!.timeZone }));
  }

  @FieldResolver(() => ReissuanceType, { nullable: true, description: "An issued permit: the reissuance deadline and the open application (members and staff)" })
  async reissuance(@Root() p: View, @Ctx() ctx: Context) {
    if (p.status !== "ISSUED" || !members(p) || !p.rulebookVersionId) return null;
    const rb = await rulebookById(ctx.ds, p.rulebookVersionId);
    const e = rb.entry("industrial.reissuanceApplicationDays");
    if (typeof e.value !== "number") return null;
    const deadline = addCalendarDays(p.expiresOn!, -e.value);
    const d = await ctx.loaders.district.load(p.districtId);
    const open = (await L(ctx).followers.load(p.id)).find((x) => x.previousRelation === "REISSUANCE" && x.status !== "WITHDRAWN");
    return { deadline, daysLeft: daysLeft(deadline, d!.timeZone), section: e.section, applicationId: open?.id ?? null };
  }

  @FieldResolver(() => [PermitLinkType], { description: "Applications and permits that follow this one: reissuance (1004 E), new permit after a change (1004 F); those the viewer may see" })
  async followingPermits(@Root() p: View, @Ctx() ctx: Context) {
    if (!members(p)) return [];
    const rows = await L(ctx).followers.load(p.id);
    const out = [];
    for (const x of rows) {
      // a new holder's draft is theirs alone; staff see it once submitted
      const role = x.organizationId === p.organizationId ? p.rel.role : null;
      const rel = { role, staff: p.rel.staff };
      if (!mayView(rel, x) && !(x.applicantId === ctx.viewer?.userId)) continue;
      out.push({ id: x.id, relation: x.previousRelation!, status: x.status, statusLabel: STATUS_LABELS[x.status], permitNumber: x.permitNumber, effectiveOn: x.effectiveOn, late: x.reissuanceLate });
    }
    return out;
  }
}
