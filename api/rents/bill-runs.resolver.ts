import { Arg, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { Access } from "../graphql/access.js";
import { metaOf, type Context } from "../graphql/context.js";
import { PageOf } from "../graphql/page.js";
import * as bills from "./bill-runs.service.js";
import DataLoader from "dataloader";
import { perRequest } from "../industrial/loaders.js";
import { BILL_STATUS_LABELS, CYCLE_LABELS, LINE_KIND_LABELS, RUN_STATUS_LABELS, type BillLine } from "./bill-rules.js";

/** GraphQL of bill runs and bills (api/rents/bill-runs.service.ts); thin. */

const STAFF = ["CLERK", "OPERATOR", "BOARD", "ADMIN"] as const;

@ObjectType("BillTask", { description: "A Board figure the bills lack, or a figure left for the Clerk, in words", simpleResolvers: true })
export class BillTaskType {
  @Field(() => String) key: string;
  @Field(() => String) text: string;
}

@ObjectType("BillFlag", { description: "Something a person should look at before issuing", simpleResolvers: true })
export class BillFlagType {
  @Field(() => String, { description: "FAR_FROM_HISTORY, NO_READ, ESTIMATED_READ, ZERO_TOTAL, NEGATIVE_TOTAL, EDU_CHANGED, SHARED_METER_AGREEMENT, NOT_ASSESSED" }) code: string;
  @Field(() => String) text: string;
}

@ObjectType("BillLine", { description: "A line of a bill: what it charges, on what, at what rate, under which section", simpleResolvers: true })
export class BillLineType {
  @Field(() => String) kind: string;
  @Field(() => String) description: string;
  @Field(() => String, { nullable: true }) quantity: string | null;
  @Field(() => String, { nullable: true }) rate: string | null;
  @Field(() => Int) amountCents: number;
  @Field(() => String) section: string;
}

@ObjectType("BillUsagePoint", { description: "An issued bill's period, metered use and total: the usage chart's figures", simpleResolvers: true })
export class UsagePointType {
  @Field(() => String) periodStart: string;
  @Field(() => String) periodEnd: string;
  @Field(() => Int, { nullable: true }) gallons: number | null;
  @Field(() => Int) totalCents: number;
  @Field(() => String) number: string;
}

@ObjectType("SewerBill", { description: "A sewer bill (SUL 1203; Huron VI): previewed, or issued and never changed" })
export class BillType {
  @Field(() => ID) id: string;
  @Field(() => ID) runId: string;
  @Field(() => ID) districtId: string;
  @Field(() => String) districtName: string;
  @Field(() => String) timeZone: string;
  @Field(() => String, { description: "ACCOUNT, or OWNER_EXCESS (Huron VI-2: the owner's excess on a shared meter)" }) kind: string;
  @Field(() => ID, { nullable: true }) accountId: string | null;
  @Field(() => String, { nullable: true }) accountNumber: string | null;
  @Field(() => ID) propertyId: string;
  @Field(() => String) address: string;
  @Field(() => String) taxParcel: string;
  @Field(() => String) billTo: string;
  @Field(() => String) periodStart: string;
  @Field(() => String) periodEnd: string;
  @Field(() => String, { description: "The first day served in the period (a first bill starts later)" }) servedFrom: string;
  @Field(() => String, { description: "The last day served (a final bill ends earlier)" }) servedTo: string;
  @Field(() => Boolean) final: boolean;
  @Field(() => Int, { nullable: true }) gallons: number | null;
  @Field(() => String, { nullable: true }) edus: string | null;
  @Field(() => [BillFlagType]) flags: BillFlagType[];
  @Field(() => Int) totalCents: number;
  @Field(() => String, { description: "PREVIEW or ISSUED" }) status: string;
  @Field(() => String, { nullable: true }) number: string | null;
  @Field(() => String, { nullable: true }) mailedOn: string | null;
  @Field(() => String, { nullable: true }) dueOn: string | null;
  @Field(() => String, { nullable: true }) dueText: string | null;
  @Field(() => Int) rulebookVersion: number;
  // lines: SewerBillsResolver.lines (a list that does not show them does not read them)
}

export const BillPageType = PageOf("SewerBillPage", () => BillType);

@ObjectType("BillRun", { description: "A period's bill run for a billing cycle: previewed, being issued, or issued" })
export class BillRunType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => String, { description: "INDUSTRIAL, OTHER or ALL (SUL 1206; Huron VI-3)" }) cycle: string;
  @Field(() => String) periodStart: string;
  @Field(() => String) periodEnd: string;
  @Field(() => String, { description: "PREVIEW, ISSUING or ISSUED" }) status: string;
  @Field(() => Int) rulebookVersion: number;
  @Field(() => String, { nullable: true }) mailedOn: string | null;
  @Field(() => String, { nullable: true }) dueOn: string | null;
  @Field(() => String, { description: "The first day the bills may be mailed" }) earliestMailing: string;
  @Field(() => [BillTaskType]) tasks: BillTaskType[];
  @Field(() => Int) billCount: number;
  @Field(() => Int) flaggedCount: number;
  @Field(() => Int) issuedCount: number;
  @Field(() => Int) totalCents: number;
  @Field(() => Date) previewedAt: Date;
  @Field(() => Date, { nullable: true }) issuedAt: Date | null;
}

@ObjectType("BillingCycle", { description: "A billing cycle of the district (SUL 1206; Huron VI-3)", simpleResolvers: true })
export class CycleType {
  @Field(() => String) cycle: string;
  @Field(() => String) label: string;
  @Field(() => Int) months: number;
  @Field(() => String) section: string;
  @Field(() => [String]) classes: string[];
}

@ObjectType("BillRuns", { description: "A district's bill runs, its billing cycles and what the Board has not set", simpleResolvers: true })
export class RunsType {
  @Field(() => [BillRunType]) runs: BillRunType[];
  @Field(() => [CycleType]) cycles: CycleType[];
  @Field(() => [BillTaskType]) tasks: BillTaskType[];
}

@ObjectType("BillAdjustment", { description: "A credit (below zero) or debit with its reason, shown on the account's next bill", simpleResolvers: true })
export class AdjustmentType {
  @Field(() => ID) id: string;
  @Field(() => ID) accountId: string;
  @Field(() => Int) amountCents: number;
  @Field(() => String) reason: string;
}

@InputType("PreviewBillRunInput")
export class PreviewInput {
  @Field(() => ID) districtId: string;
  @Field(() => String, { description: "INDUSTRIAL, OTHER or ALL, as the district's cycles" }) cycle: string;
  @Field(() => String, { description: "YYYY-MM-DD, the first day of the period" }) periodStart: string;
}

@InputType("IssueBillRunInput")
export class IssueInput {
  @Field(() => ID) runId: string;
  @Field(() => String, { description: "YYYY-MM-DD, the mailing (billing) date; kept from the first issue when resuming" }) mailedOn: string;
  @Field(() => Boolean, { description: "The Clerk confirms: an issued bill is never changed" }) confirm: boolean;
  @Field(() => Int, { nullable: true, description: "Issue at most this many now (the rest on the next call)" }) maxBills?: number | null;
}

@InputType("BillAdjustmentInput")
export class AdjustmentInput {
  @Field(() => ID) accountId: string;
  @Field(() => Int, { description: "Cents: below zero a credit, above zero a debit" }) amountCents: number;
  @Field(() => String) reason: string;
}

@Resolver(() => BillRunType)
export class BillRunsResolver {
  @Access(...STAFF)
  @Query(() => RunsType, { description: "The district's bill runs, newest period first, with its billing cycles" })
  billRuns(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context) {
    return bills.listBillRuns(ctx.ds, ctx.viewer!, districtId).then((r) => ({ ...r, cycles: r.cycles.map((c) => ({ ...c, label: CYCLE_LABELS[c.cycle] })) }));
  }

  @Access(...STAFF)
  @Query(() => BillRunType, { description: "A bill run" })
  billRun(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return bills.getBillRun(ctx.ds, ctx.viewer!, id);
  }

  @Access(...STAFF)
  @Query(() => BillPageType, { description: "A run's bills with their lines and flags, by id" })
  billRunBills(
    @Arg("runId", () => ID) runId: string,
    @Ctx() ctx: Context,
    @Arg("flaggedOnly", () => Boolean, { nullable: true }) flaggedOnly?: boolean | null,
    @Arg("first", () => Int, { nullable: true }) first?: number | null,
    @Arg("after", () => String, { nullable: true }) after?: string | null,
  ) {
    return bills.billRunBills(ctx.ds, ctx.viewer!, runId, { flaggedOnly, first, after });
  }

  @Access("CLERK")
  @Mutation(() => BillRunType, { description: "The Town Clerk previews a period's bills (again, while not issued)" })
  previewBillRun(@Arg("input", () => PreviewInput) input: PreviewInput, @Ctx() ctx: Context) {
    return bills.previewBillRun(ctx.ds, ctx.viewer!, input, { requestId: ctx.requestId });
  }

  @Access("CLERK")
  @Mutation(() => BillRunType, { description: "The Town Clerk issues a previewed run, or resumes one being issued: numbered, frozen, emailed" })
  issueBillRun(@Arg("input", () => IssueInput) input: IssueInput, @Ctx() ctx: Context) {
    return bills.issueBillRun(ctx.ds, ctx.viewer!, input, metaOf(ctx));
  }

  @Access("CLERK")
  @Mutation(() => AdjustmentType, { description: "The Town Clerk records a credit or debit on an account, shown on its next bill" })
  recordBillAdjustment(@Arg("input", () => AdjustmentInput) input: AdjustmentInput, @Ctx() ctx: Context) {
    return bills.recordBillAdjustment(ctx.ds, ctx.viewer!, input, { requestId: ctx.requestId });
  }

  @FieldResolver(() => String)
  statusLabel(@Root() r: bills.RunView) {
    return RUN_STATUS_LABELS[r.status];
  }

  @FieldResolver(() => String)
  cycleLabel(@Root() r: bills.RunView) {
    return CYCLE_LABELS[r.cycle];
  }
}

/** The lines of the bills a request lists without them (mySewerBills), read together when asked. */
const billLines = perRequest(
  (ctx: Context) =>
    new DataLoader<string, BillLine[]>(async (ids) => {
      const by = await bills.linesOfBills(ctx.ds, ids);
      return ids.map((id) => by.get(id) ?? []);
    }),
);

@Resolver(() => BillType)
export class SewerBillsResolver {
  @Access("SIGNED_IN")
  @Query(() => BillType, { description: "A bill: its district's staff; an issued bill its account's occupant or the property's owner of record" })
  sewerBill(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return bills.getBill(ctx.ds, ctx.viewer!, id);
  }

  @Access("SIGNED_IN")
  @Query(() => [BillType], { description: "The signed-in person's issued bills (the accounts they occupy, the properties they own), newest first" })
  mySewerBills(@Ctx() ctx: Context) {
    return bills.myBills(ctx.ds, ctx.viewer!);
  }

  @Access("SIGNED_IN")
  @Query(() => [BillType], { description: "An account's issued bills, newest first" })
  serviceAccountBills(@Arg("accountId", () => ID) accountId: string, @Ctx() ctx: Context) {
    return bills.accountBills(ctx.ds, ctx.viewer!, accountId);
  }

  @FieldResolver(() => [UsagePointType], { description: "The issued bills of the two years up to this one, oldest first" })
  usage(@Root() b: bills.BillView, @Ctx() ctx: Context) {
    return bills.billUsage(ctx.ds, b);
  }

  @FieldResolver(() => [BillLineType])
  lines(@Root() b: bills.BillView | bills.ListedBill, @Ctx() ctx: Context) {
    return b.lines ?? billLines(ctx).load(b.id);
  }

  @FieldResolver(() => String)
  statusLabel(@Root() b: bills.BillView) {
    return b.status === "PREVIEW" ? "Preview, not issued" : BILL_STATUS_LABELS[b.status];
  }
}

@Resolver(() => BillLineType)
export class BillLinesResolver {
  @FieldResolver(() => String)
  kindLabel(@Root() l: { kind: keyof typeof LINE_KIND_LABELS }) {
    return LINE_KIND_LABELS[l.kind];
  }
}
