import { Ctx, Field, Int, ObjectType, Query, Resolver } from "type-graphql";
import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { Access } from "../graphql/access.js";
import { microCached } from "../graphql/micro-cache.js";
import type { Context } from "../graphql/context.js";
import { MyOrganization } from "../organizations/organizations.resolver.js";

@ObjectType({ description: "Something of mine in progress: an application, a permit, a licence, an order", simpleResolvers: true })
export class DashboardItem {
  @Field(() => String, { description: "LateralPermit, HaulerLicense, DischargePermit, ..." }) kind: string;
  @Field(() => String) id: string;
  @Field(() => String) title: string;
  @Field(() => String) status: string;
  @Field(() => String, { nullable: true, description: "What is due next" }) nextStep: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD in the district's time zone" }) dueDate: string | null;
  @Field(() => Int, { nullable: true }) daysLeft: number | null;
  @Field(() => String, { description: "Where the portal shows it" }) href: string;
  @Field(() => String, { nullable: true, description: "Where the next step is done (the item's page when the feature names no closer place); null when there is no next step" })
  nextStepHref?: string | null;
}

@ObjectType({ simpleResolvers: true })
export class Dashboard {
  @Field(() => [DashboardItem]) items: DashboardItem[];
  @Field(() => [MyOrganization]) organizations: MyOrganization[];
  @Field(() => Int, { description: "Emails in my outbox this week" }) recentEmails: number;
}

/** Each feature registers what it puts on a person's dashboard; all run in parallel, each with one query. */
export type DashboardProvider = (ds: DataSource, viewer: Viewer) => Promise<DashboardItem[]>;
const providers: DashboardProvider[] = [];
export const registerDashboardProvider = (p: DashboardProvider) => providers.push(p);

@Resolver()
export class DashboardResolver {
  @Access("SIGNED_IN")
  @Query(() => Dashboard, { description: 'The "My applications" dashboard' })
  myDashboard(@Ctx() ctx: Context): Promise<Dashboard> {
    return microCached(`dashboard:${ctx.viewer!.userId}`, () => this.build(ctx));
  }

  private async build(ctx: Context): Promise<Dashboard> {
    const v = ctx.viewer!;
    // One query for the parts every dashboard has; each feature's provider adds one of its own.
    const [lists, [row]] = await Promise.all([
      Promise.all(providers.map((p) => p(ctx.ds, v))),
      ctx.ds.query(
        `SELECT (SELECT count(*)::int FROM outbox_email WHERE recipient_id = $1 AND created_at > now() - interval '7 days') AS recent_emails,
                coalesce((SELECT json_agg(json_build_object('role', m.role, 'organization',
                            json_build_object('id', o.id, 'name', o.name, 'kind', o.kind, 'createdAt', o.created_at)) ORDER BY o.name)
                            FROM membership m JOIN organization o ON o.id = m.organization_id WHERE m.user_id = $1), '[]'::json) AS organizations`,
        [v.userId],
      ),
    ]);
    // Every task links to where it is done.
    const items = lists
      .flat()
      .map((i) => ({ ...i, nextStepHref: i.nextStep ? (i.nextStepHref ?? i.href) : null }))
      .sort((a, b) => (a.dueDate ?? "9999").localeCompare(b.dueDate ?? "9999"));
    const organizations = row.organizations.map((m: any) => ({ role: m.role, organization: { ...m.organization, createdAt: new Date(m.organization.createdAt) } }));
    return { items, organizations, recentEmails: row.recent_emails };
  }
}
