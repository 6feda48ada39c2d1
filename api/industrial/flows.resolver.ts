import DataLoader from "dataloader";
import { Arg, Ctx, Field, FieldResolver, Float, ID, InputType, Mutation, ObjectType, Resolver, Root } from "type-graphql";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { dailyFlowsOf, flowFinding, setDailyFlows, type DailyFlowRow } from "./flows.service.js";
import { ReportType } from "./industrial.resolver.js";
import { groupBy, perRequest } from "./loaders.js";
import type { ReportRow } from "./reports.service.js";

@ObjectType("IndustrialDailyFlow", { description: "A day's flow in a periodic compliance report, against the application's average (SUL 1005(3)(a))" })
class DailyFlowType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) day: string;
  @Field(() => Float, { description: "Gallons per day" }) flowGpd: number;
  @Field(() => Float) enteredValue: number;
  @Field(() => String, { description: "gpd or MGD, as entered" }) enteredUnit: string;
  @Field(() => Float, { nullable: true, description: "The average daily flow in the application (SUL 1004 A(4)), gpd" }) averageGpd: number | null;
  @Field(() => Boolean, { description: "Above the application's average: a flow the report must record (SUL 1005(3)(a))" }) aboveAverage: boolean;
  @Field(() => String) finding: string;
}

@InputType("IndustrialDailyFlowInput")
class DailyFlowInput {
  @Field(() => String, { description: "YYYY-MM-DD, within the report's period" }) day: string;
  @Field(() => Float, { nullable: true }) flow: number | null;
  @Field(() => String, { description: "gpd or MGD" }) unit: string;
}

const view = (f: DailyFlowRow) => ({ ...f, finding: flowFinding(f) });

const flowsLoader = perRequest(
  (ctx) => new DataLoader<string, DailyFlowRow[]>(async (ids) => groupBy(await dailyFlowsOf(ctx.ds, ids), (r) => r.reportId, ids)),
);

@Resolver(() => ReportType)
export class IndustrialDailyFlowsResolver {
  @FieldResolver(() => [DailyFlowType], { description: "The period's daily flows, for the periodic report (SUL 1005(3)(a)); whoever may read the report may read them" })
  async dailyFlows(@Root() r: ReportRow, @Ctx() ctx: Context) {
    return (await flowsLoader(ctx).load(r.id)).map(view);
  }

  @Access("SIGNED_IN")
  @Mutation(() => [DailyFlowType], { description: "Replaces a periodic report's daily flows (all or none); each is judged against the application's average daily flow (SUL 1005(3)(a))" })
  async setIndustrialDailyFlows(@Arg("reportId", () => ID) reportId: string, @Arg("flows", () => [DailyFlowInput]) flows: DailyFlowInput[], @Ctx() ctx: Context) {
    return (await setDailyFlows(ctx.ds, ctx.viewer!, reportId, flows, ctx.requestId)).map(view);
  }
}
