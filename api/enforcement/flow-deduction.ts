import { Arg, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import type { DataSource, EntityManager } from "typeorm";
import { hasRole, isStaff, type Viewer } from "../accounts/viewer.js";
import { audit } from "../audit/audit.service.js";
import { clock } from "../common/clock.js";
import { badInput, conflict, forbidden, notFound } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { isUuid, registerDocumentAccess } from "../documents/documents.service.js";
import { Access } from "../graphql/access.js";
import { metaOf, type Context } from "../graphql/context.js";
import { enqueueEmail } from "../outbox/outbox.service.js";
import { FlowDeductionDocument, FlowDeductionRequest } from "./enforcement.entity.js";

/**
 * SUL 1205: a user who shows the District Operator that a substantial part of the metered water
 * does not reach the sewer asks for a deduction, filed like a petition (evidence and documents).
 * The Operator sets the percentage of metered water charges are based on, directs a flow meter at
 * the owner's expense, or rejects the request, with reasons. Districts whose law has no such rule
 * (billing.flowDeductionEnabled false, e.g. Huron) refuse it.
 */

type Meta = { requestId?: string; publicUrl: string };
const STATUS_LABELS: Record<string, string> = {
  FILED: "Filed, awaiting the District Operator",
  PERCENTAGE_SET: "Granted: a percentage of metered water",
  METERING_DIRECTED: "A flow meter is to be installed",
  REJECTED: "Rejected",
  WITHDRAWN: "Withdrawn",
};

async function memberOrgIds(db: DataSource | EntityManager, userId: string): Promise<string[]> {
  return (await db.query(`SELECT organization_id FROM membership WHERE user_id = $1`, [userId])).map((r: any) => r.organization_id);
}

async function mayView(db: DataSource | EntityManager, viewer: Viewer, r: FlowDeductionRequest): Promise<boolean> {
  if (isStaff(viewer, r.districtId) || r.filedById === viewer.userId) return true;
  return !!r.organizationId && (await memberOrgIds(db, viewer.userId)).includes(r.organizationId);
}

export async function getFlowDeduction(db: DataSource | EntityManager, viewer: Viewer, id: string, lock = false): Promise<FlowDeductionRequest> {
  if (!isUuid(id)) throw notFound("That request");
  const q = db.getRepository(FlowDeductionRequest).createQueryBuilder("r").where("r.id = :id", { id });
  if (lock) q.setLock("pessimistic_write");
  const r = await q.getOne();
  if (!r || !(await mayView(db, viewer, r))) throw notFound("That request");
  return r;
}

export async function fileFlowDeduction(
  ds: DataSource,
  viewer: Viewer,
  input: { districtId: string; organizationId?: string | null; propertyAddress: string; taxParcel?: string | null; evidence: string; documentIds?: string[] | null },
  meta: Meta,
): Promise<FlowDeductionRequest> {
  const district = isUuid(input.districtId) ? await ds.getRepository(District).findOneBy({ id: input.districtId }) : null;
  if (!district) throw notFound("That district");
  const rb = await rulebookOn(ds, district);
  const rule = rb.entry("billing.flowDeductionEnabled");
  if (!rb.enabled("billing.flowDeductionEnabled")) throw conflict(`${rule.note ?? "This district's law provides no such deduction."} (${rule.section})`);
  const fields: Record<string, string> = {};
  const address = (input.propertyAddress ?? "").trim();
  if (!address) fields.propertyAddress = "Give the address of the property.";
  else if (address.length > 200) fields.propertyAddress = "Use at most 200 characters.";
  const parcel = (input.taxParcel ?? "").trim() || null;
  if (parcel && parcel.length > 50) fields.taxParcel = "Use at most 50 characters.";
  const evidence = (input.evidence ?? "").trim();
  if (!evidence) fields.evidence = "Show how much of the metered water does not reach the sewer (irrigation, a process, evaporation) and how you know.";
  else if (evidence.length > 8000) fields.evidence = "Use at most 8,000 characters.";
  const orgId = (input.organizationId ?? "").trim() || null;
  const orgs = await memberOrgIds(ds, viewer.userId);
  if (orgId && !orgs.includes(orgId)) fields.organizationId = "Choose an organization you belong to.";
  const documentIds = [...new Set((input.documentIds ?? []).map((d) => d.trim()).filter(Boolean))];
  if (documentIds.length > 20 || documentIds.some((d) => !isUuid(d))) fields.documentIds = "Choose up to 20 of your uploaded documents.";
  else if (documentIds.length) {
    const mine = await ds.query(`SELECT id FROM document WHERE id = ANY($1::uuid[]) AND (owner_id = $2 OR organization_id = ANY($3::uuid[]))`, [documentIds, viewer.userId, orgs]);
    if (mine.length !== documentIds.length) fields.documentIds = "Choose documents from your uploaded documents.";
  }
  if (Object.keys(fields).length) throw badInput(fields);
  return ds.transaction(async (tx) => {
    const r = await tx.save(
      tx.create(FlowDeductionRequest, {
        districtId: district.id,
        filedById: viewer.userId,
        organizationId: orgId,
        propertyAddress: address,
        taxParcel: parcel,
        evidence,
        status: "FILED",
        filedAt: clock.now(),
        rulebookVersionId: rb.version.id,
      }),
    );
    for (const [i, documentId] of documentIds.entries()) await tx.insert(FlowDeductionDocument, { requestId: r.id, documentId, position: i });
    await audit(tx, { userId: viewer.userId, requestId: meta.requestId }, { action: "billing.flow_deduction_filed", entityType: "FlowDeductionRequest", entityId: r.id, districtId: district.id, details: { documents: documentIds.length } });
    await enqueueEmail(tx, {
      to: viewer.email,
      recipientId: viewer.userId,
      districtId: district.id,
      kind: "billing.flow_deduction_filed",
      subject: `Request received: metered water not reaching the sewer`,
      body: `Hello ${viewer.displayName},\n\nYour request for ${address} is filed with the District Operator (${rule.section}).\n\nSee it in the portal: ${meta.publicUrl}/petitions/flow\n\n${district.name}\n`,
    });
    return r;
  });
}

export async function decideFlowDeduction(
  ds: DataSource,
  viewer: Viewer,
  input: { id: string; decision: string; sewerPercent?: number | null; reasons: string },
  meta: Meta,
): Promise<FlowDeductionRequest> {
  return ds.transaction(async (tx) => {
    const r = await getFlowDeduction(tx, viewer, input.id, true);
    if (!hasRole(viewer, "OPERATOR", r.districtId)) throw forbidden("Only the District Operator decides this request (Sewer Use Law 1205).");
    if (r.status !== "FILED") throw conflict("The request is already decided or withdrawn.");
    const fields: Record<string, string> = {};
    const reasons = (input.reasons ?? "").trim();
    if (!reasons) fields.reasons = "Give the reasons for the decision.";
    const status = ({ PERCENTAGE: "PERCENTAGE_SET", METER: "METERING_DIRECTED", REJECT: "REJECTED" } as const)[input.decision as "PERCENTAGE"];
    if (!status) fields.decision = "Set a percentage, direct a flow meter, or reject.";
    const pct = input.sewerPercent ?? null;
    if (status === "PERCENTAGE_SET" && (pct === null || !Number.isInteger(pct) || pct < 1 || pct > 99))
      fields.sewerPercent = "Enter the percentage of metered water that reaches the sewer, 1 to 99.";
    if (Object.keys(fields).length) throw badInput(fields);
    await tx.update(FlowDeductionRequest, { id: r.id }, { status, sewerPercent: status === "PERCENTAGE_SET" ? pct : null, decisionReasons: reasons, decidedById: viewer.userId, decidedAt: clock.now() });
    await audit(tx, { userId: viewer.userId, requestId: meta.requestId }, { action: "billing.flow_deduction_decided", entityType: "FlowDeductionRequest", entityId: r.id, districtId: r.districtId, reason: reasons, details: { status, sewerPercent: pct } });
    const [filer] = await tx.query(`SELECT id, email, display_name FROM app_user WHERE id = $1`, [r.filedById]);
    const what =
      status === "PERCENTAGE_SET"
        ? `Charges for ${r.propertyAddress} are based on ${pct}% of the metered water.`
        : status === "METERING_DIRECTED"
          ? `A flow meter is to be installed at ${r.propertyAddress}, at the owner's expense, of a type the Town Board accepts (Sewer Use Law 1205).`
          : `Your request for ${r.propertyAddress} is rejected.`;
    await enqueueEmail(tx, {
      to: filer.email,
      recipientId: filer.id,
      districtId: r.districtId,
      kind: "billing.flow_deduction_decided",
      subject: "Decision: metered water not reaching the sewer",
      body: `Hello ${filer.display_name},\n\n${what}\n\nReasons: ${reasons}\n\nSee it in the portal: ${meta.publicUrl}/petitions/flow\n`,
    });
    return tx.findOneByOrFail(FlowDeductionRequest, { id: r.id });
  });
}

export async function withdrawFlowDeduction(ds: DataSource, viewer: Viewer, id: string, meta: Meta): Promise<FlowDeductionRequest> {
  return ds.transaction(async (tx) => {
    const r = await getFlowDeduction(tx, viewer, id, true);
    if (r.filedById !== viewer.userId) throw forbidden("Only the person who filed the request can withdraw it.");
    if (r.status !== "FILED") throw conflict("Only a request not yet decided can be withdrawn.");
    await tx.update(FlowDeductionRequest, { id: r.id }, { status: "WITHDRAWN" });
    await audit(tx, { userId: viewer.userId, requestId: meta.requestId }, { action: "billing.flow_deduction_withdrawn", entityType: "FlowDeductionRequest", entityId: r.id, districtId: r.districtId });
    return tx.findOneByOrFail(FlowDeductionRequest, { id: r.id });
  });
}

// The District Operator and Clerk of the district read the documents filed with a request.
registerDocumentAccess(async (ds, viewer, doc) => {
  const districts = viewer.staffRoles.filter((r) => r.role === "OPERATOR" || r.role === "CLERK").map((r) => r.districtId);
  if (!districts.length) return false;
  const rows = await ds.query(
    `SELECT 1 FROM flow_deduction_document fd JOIN flow_deduction_request r ON r.id = fd.request_id WHERE fd.document_id = $1 AND r.district_id = ANY($2::uuid[]) LIMIT 1`,
    [doc.id, districts],
  );
  return rows.length > 0;
});

// ---------------------------------------------------------------------------------------------
// GraphQL

@ObjectType("FlowDeductionRequest", { description: "A request to count only part of the metered water (SUL 1205)" })
export class FlowDeductionType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => ID, { nullable: true }) organizationId: string | null;
  @Field(() => String) propertyAddress: string;
  @Field(() => String, { nullable: true }) taxParcel: string | null;
  @Field(() => String) evidence: string;
  @Field(() => String, { description: "FILED, PERCENTAGE_SET, METERING_DIRECTED, REJECTED or WITHDRAWN" }) status: string;
  @Field(() => Int, { nullable: true, description: "Percentage of metered water charges are based on" }) sewerPercent: number | null;
  @Field(() => String, { nullable: true }) decisionReasons: string | null;
  @Field(() => Date, { nullable: true }) decidedAt: Date | null;
  @Field(() => Date) filedAt: Date;
  filedById: string;
  decidedById: string | null;
}

@InputType()
export class FileFlowDeductionInput {
  @Field(() => ID) districtId: string;
  @Field(() => ID, { nullable: true }) organizationId?: string | null;
  @Field(() => String) propertyAddress: string;
  @Field(() => String, { nullable: true }) taxParcel?: string | null;
  @Field(() => String) evidence: string;
  @Field(() => [ID], { nullable: true }) documentIds?: string[] | null;
}

@InputType()
export class DecideFlowDeductionInput {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "PERCENTAGE, METER or REJECT" }) decision: string;
  @Field(() => Int, { nullable: true }) sewerPercent?: number | null;
  @Field(() => String) reasons: string;
}

@Resolver(() => FlowDeductionType)
export class FlowDeductionResolver {
  @FieldResolver(() => String) statusLabel(@Root() r: FlowDeductionType) {
    return STATUS_LABELS[r.status];
  }
  @FieldResolver(() => String, { nullable: true }) async filedByName(@Root() r: FlowDeductionType, @Ctx() ctx: Context) {
    return (await ctx.loaders.user.load(r.filedById))?.displayName ?? null;
  }
  @FieldResolver(() => String, { nullable: true }) async decidedByName(@Root() r: FlowDeductionType, @Ctx() ctx: Context) {
    return r.decidedById ? ((await ctx.loaders.user.load(r.decidedById))?.displayName ?? null) : null;
  }
  @FieldResolver(() => District) async district(@Root() r: FlowDeductionType, @Ctx() ctx: Context) {
    return ctx.loaders.district.load(r.districtId);
  }

  @Access("SIGNED_IN")
  @Query(() => [FlowDeductionType], { description: "My requests about metered water not reaching the sewer, and my organizations'" })
  async myFlowDeductionRequests(@Ctx() ctx: Context) {
    return ctx.ds
      .getRepository(FlowDeductionRequest)
      .createQueryBuilder("r")
      .where("r.filed_by_id = :u OR r.organization_id IN (SELECT organization_id FROM membership WHERE user_id = :u)", { u: ctx.viewer!.userId })
      .orderBy("r.filed_at", "DESC")
      .limit(100)
      .getMany();
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => [FlowDeductionType], { description: "Staff: the district's requests, oldest first, open ones unless `all`" })
  async districtFlowDeductionRequests(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context, @Arg("all", () => Boolean, { nullable: true }) all?: boolean) {
    if (!isStaff(ctx.viewer, districtId)) throw forbidden("You are not staff of that district.");
    const q = ctx.ds.getRepository(FlowDeductionRequest).createQueryBuilder("r").where("r.district_id = :d", { d: districtId }).orderBy("r.filed_at", "ASC").limit(200);
    if (!all) q.andWhere("r.status = 'FILED'");
    return q.getMany();
  }

  @Access("SIGNED_IN")
  @Mutation(() => FlowDeductionType, { description: "Ask the District Operator to count only part of the metered water (SUL 1205)" })
  fileFlowDeductionRequest(@Arg("input", () => FileFlowDeductionInput) input: FileFlowDeductionInput, @Ctx() ctx: Context) {
    return fileFlowDeduction(ctx.ds, ctx.viewer!, input, metaOf(ctx));
  }

  @Access("SIGNED_IN")
  @Mutation(() => FlowDeductionType, { description: "Withdraw my request before it is decided" })
  withdrawFlowDeductionRequest(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return withdrawFlowDeduction(ctx.ds, ctx.viewer!, id, metaOf(ctx));
  }

  @Access("OPERATOR")
  @Mutation(() => FlowDeductionType, { description: "District Operator: set the percentage of metered water, direct a flow meter, or reject (SUL 1205)" })
  decideFlowDeductionRequest(@Arg("input", () => DecideFlowDeductionInput) input: DecideFlowDeductionInput, @Ctx() ctx: Context) {
    return decideFlowDeduction(ctx.ds, ctx.viewer!, input, metaOf(ctx));
  }
}
