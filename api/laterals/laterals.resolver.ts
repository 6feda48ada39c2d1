import { forbidden } from "../common/errors.js";
import { microCached } from "../graphql/micro-cache.js";
import DataLoader from "dataloader";
import { Arg, Ctx, Directive, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { In } from "typeorm";
import { hasRole, isStaff } from "../accounts/viewer.js";
import { dateIn, daysBetween } from "../common/dates.js";
import { ContractorStandingType } from "../contractors/contractors.resolver.js";
import { contractorStandings } from "../contractors/contractors.service.js";
import { District } from "../districts/district.entity.js";
import { Rulebook, getDistrict, rulebookOn } from "../districts/districts.service.js";
import { RulebookVersion } from "../districts/rulebook-version.entity.js";
import { Document } from "../documents/document.entity.js";
import { DocumentType, UploadDocumentInput } from "../documents/documents.resolver.js";
import { Access } from "../graphql/access.js";
import { CACHE_PUBLIC } from "../graphql/cache.js";
import type { Context } from "../graphql/context.js";
import { PageOf } from "../graphql/page.js";
import { PaymentType } from "../payments/payments.resolver.js";
import { Payment, Refund, refundsFor } from "../payments/payments.service.js";
import { LateralInspection, LateralPermit, SewerMoratorium, type InspectionKind, type PermitDocumentKind } from "./lateral-permit.entity.js";
import * as laterals from "./laterals.service.js";
import { FEE_CODES, INSPECTION_LABELS, STATUS_LABELS, applicationRequirements, depositHeldCents, latestByKind, nextStep, requestableKinds, requiredInspections, reviewChecklist } from "./rules.js";

// ---------------------------------------------------------------------------------------------
// Types

@ObjectType("LateralFeeLine", { description: "One line of the permit's fee, computed from the rulebook on submission" })
export class LateralFeeLineType {
  @Field(() => String) code: string;
  @Field(() => String) label: string;
  @Field(() => String, { description: 'e.g. "Sewer Use Law 1212"' }) section: string;
  @Field(() => Int, { description: "Integer cents" }) amountCents: number;
  @Field(() => Boolean, { description: "A deposit returned later (SUL 606 B)" }) refundable: boolean;
}

@ObjectType("LateralContractor", { description: "The contractor named on a permit application" })
export class LateralContractorType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "The firm's name" }) name: string;
  @Field(() => ContractorStandingType, { description: "Whether it can be chosen today; an open permit of a contractor that cannot shows a warning" })
  standing: ContractorStandingType;
}

@ObjectType("LateralInspection", { description: "An inspection of the lateral work (SUL 612-613)" })
export class LateralInspectionType {
  @Field(() => ID) id: string;
  @Field(() => ID) permitId: string;
  @Field(() => String, { description: "TRENCH, CONNECTION or LEAKAGE_TEST" }) kind: string;
  @Field(() => String, { description: "REQUESTED, SCHEDULED, PASSED or FAILED" }) status: string;
  @Field(() => Date) requestedAt: Date;
  @Field(() => String, { nullable: true, description: "What the applicant said when asking" }) applicantNotes: string | null;
  @Field(() => String, { nullable: true, description: "The day the applicant would like, YYYY-MM-DD" }) preferredOn: string | null;
  @Field(() => Date, { nullable: true, description: "When the inspection took place (results only)" }) inspectedAt: Date | null;
  @Field(() => Date, { nullable: true }) scheduledFor: Date | null;
  @Field(() => ID, { nullable: true }) inspectorId: string | null;
  @Field(() => String, { nullable: true }) resultNotes: string | null;
  @Field(() => Date, { nullable: true }) recordedAt: Date | null;
}

@ObjectType("LateralRequiredInspection", { description: "An inspection the permit's rulebook requires, and where it stands" })
export class LateralRequiredInspectionType {
  @Field(() => String) kind: string;
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => String, { description: "NOT_REQUESTED, REQUESTED, SCHEDULED, PASSED or FAILED (the latest)" }) status: string;
  @Field(() => Boolean, { description: "The applicant may ask for it now" }) requestable: boolean;
}

@ObjectType("LateralChecklistItem", { description: "A physical minimum the reviewer checks (SUL 603 A, 605-609, 616), from the rulebook" })
export class LateralChecklistItemType {
  @Field(() => String) key: string;
  @Field(() => String) label: string;
  @Field(() => String, { description: 'e.g. "Inside diameter at least 4 inches"' }) requirement: string;
  @Field(() => String) section: string;
}

@ObjectType("LateralNextStep", { description: "What is due next, and by when" })
export class LateralNextStepType {
  @Field(() => String, { nullable: true }) text: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD in the district's time zone" }) dueDate: string | null;
  @Field(() => Int, { nullable: true }) daysLeft: number | null;
}

@ObjectType("LateralDepositRefund", { description: "The as-built deposit due back once the record drawings are approved (SUL 606 B)" })
export class LateralDepositRefundType {
  @Field(() => Int, { description: "Integer cents" }) amountCents: number;
  @Field(() => Boolean) refunded: boolean;
  @Field(() => String, { nullable: true, description: "The refund receipt, once the Clerk refunded it" }) receiptNumber: string | null;
  @Field(() => Date, { nullable: true }) refundedAt: Date | null;
}

@ObjectType("LateralPermit", {
  description: "A building lateral (sewer connection) permit and its application (SUL Article 6; Huron Article III)",
  simpleResolvers: true, // plain properties are read by graphql-js directly (the @FieldResolvers below are unaffected)
})
export class LateralPermitType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => ID) applicantId: string;
  @Field(() => String, { description: "DRAFT, SUBMITTED, CHANGES_REQUESTED, APPROVED (permit issued), CONNECTED, CLOSED or WITHDRAWN" }) status: string;
  @Field(() => String, { nullable: true, description: "RESIDENTIAL_COMMERCIAL_INSTITUTIONAL (class 1) or INDUSTRIAL (class 2), SUL 602" })
  permitClass: string | null;
  @Field(() => String, { nullable: true, description: "RESIDENTIAL, COMMERCIAL, INSTITUTIONAL or INDUSTRIAL" }) buildingUse: string | null;
  @Field(() => Int, { nullable: true }) floorAreaSqft: number | null;
  @Field(() => String, { nullable: true, description: "NEW_BUILDING or EXISTING_LATERAL (SUL 604)" }) workKind: string | null;
  @Field(() => String, { nullable: true }) streetNumber: string | null;
  @Field(() => String, { nullable: true }) street: string | null;
  @Field(() => String, { nullable: true }) city: string | null;
  @Field(() => String, { nullable: true }) zip: string | null;
  @Field(() => String, { nullable: true }) taxParcel: string | null;
  @Field(() => String, { nullable: true }) ownerName: string | null;
  @Field(() => String, { nullable: true }) agentName: string | null;
  @Field(() => ID, { nullable: true }) contractorId: string | null;
  @Field(() => String, { nullable: true, description: "Who does the work, where the district keeps no list of approved contractors (Huron III-2)" }) workDoneBy: string | null;
  @Field(() => Int, { nullable: true, description: "Sheets of plans showing lateral connections (the deposit is per sheet, SUL 606 B)" })
  asBuiltSheets: number | null;
  @Field(() => ID, { nullable: true, description: "The rulebook version the fees were computed from" }) rulebookVersionId: string | null;
  @Field(() => [LateralFeeLineType]) feeLines: LateralFeeLineType[];
  @Field(() => Int, { description: "Integer cents" }) feeTotalCents: number;
  @Field(() => ID, { nullable: true }) paymentId: string | null;
  @Field(() => Date, { nullable: true, description: "When the fees were paid" }) paidAt: Date | null;
  @Field(() => String, { nullable: true, description: 'e.g. "LKV-LP-2026-0001", once issued' }) permitNumber: string | null;
  @Field(() => Date, { nullable: true }) submittedAt: Date | null;
  @Field(() => Date, { nullable: true }) changesRequestedAt: Date | null;
  @Field(() => String, { nullable: true, description: "The District Operator's request for changes" }) reviewNotes: string | null;
  @Field(() => Date, { nullable: true }) approvedAt: Date | null;
  @Field(() => Date, { nullable: true, description: "When the connection was accepted" }) connectedAt: Date | null;
  @Field(() => Date, { nullable: true, description: "When the applicant filed the as-built drawings in the portal" }) asBuiltFiledAt: Date | null;
  @Field(() => Date, { nullable: true }) asBuiltApprovedAt: Date | null;
  @Field(() => Date, { nullable: true }) withdrawnAt: Date | null;
  @Field(() => Date, { nullable: true }) closedAt: Date | null;
  @Field(() => Date) createdAt: Date;
  @Field(() => Date) updatedAt: Date;
}

export const LateralPermitPageType = PageOf("LateralPermitPage", () => LateralPermitType);

@ObjectType("SewerMoratorium", { description: "A moratorium on new connections for a sewer segment (SUL 310)" })
export class SewerMoratoriumType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => String) segmentName: string;
  @Field(() => [String], { description: "Street names, normalised (lower case, abbreviated suffixes)" }) streets: string[];
  @Field(() => String) reason: string;
  @Field(() => String, { description: 'The section it rests on, e.g. "Sewer Use Law 310"' }) section: string;
  @Field(() => Date) declaredAt: Date;
  @Field(() => Date, { nullable: true }) liftedAt: Date | null;
  @Field(() => String, { nullable: true }) liftReason: string | null;
}

@ObjectType("LateralRequirement")
@Directive(CACHE_PUBLIC)
export class LateralRequirementType {
  @Field(() => Boolean) required: boolean;
  @Field(() => String, { description: 'The section it rests on, e.g. "Sewer Use Law 602"' }) section: string;
}

@ObjectType("LateralAsBuiltRequirement")
@Directive(CACHE_PUBLIC)
export class LateralAsBuiltRequirementType extends LateralRequirementType {
  @Field(() => Int, { nullable: true, description: "Copies of the as-built drawing to file" }) copies: number | null;
  @Field(() => Int, { nullable: true, description: "Refundable deposit per sheet of plans, integer cents" }) depositPerSheetCents: number | null;
}

@ObjectType("LateralApplicationRequirements", { description: "What a lateral permit application carries in a district, from its rulebook (SUL 601 A, 602, 606 B, 1212; Huron III-2, III-3)" })
@Directive(CACHE_PUBLIC)
export class LateralApplicationRequirementsType {
  @Field(() => LateralRequirementType, { description: "Plans and specifications filed with the application" }) plans: LateralRequirementType;
  @Field(() => LateralRequirementType, { description: "required: the contractor comes from the district's approved list; otherwise the applicant names who does the work" })
  approvedContractor: LateralRequirementType;
  @Field(() => LateralAsBuiltRequirementType, { description: "As-built (record) drawings after the connection, and sheets of plans counted for their deposit" })
  asBuiltDrawings: LateralAsBuiltRequirementType;
  @Field(() => Boolean, { description: "Commercial, institutional and industrial buildings state their floor area (their fee is per square foot)" }) floorArea: boolean;
}

const requirementsType = (rb: Rulebook): LateralApplicationRequirementsType => {
  const r = applicationRequirements(rb);
  return {
    plans: r.plans,
    approvedContractor: { required: r.contractor.fromApprovedList, section: r.contractor.section },
    asBuiltDrawings: { required: r.asBuiltDrawings.required, section: r.asBuiltDrawings.section, copies: r.asBuiltDrawings.copies, depositPerSheetCents: r.asBuiltDrawings.depositPerSheetCents },
    floorArea: r.floorAreaFee,
  };
};

@ObjectType("CalendarInspection", { description: "An inspection on the operator's calendar" })
export class CalendarInspectionType {
  @Field(() => ID) id: string;
  @Field(() => ID) permitId: string;
  @Field(() => String) kind: string;
  @Field(() => String) kindLabel: string;
  @Field(() => String) status: string;
  @Field(() => Date) requestedAt: Date;
  @Field(() => Date, { nullable: true }) scheduledFor: Date | null;
  @Field(() => String, { nullable: true }) inspectorName: string | null;
  @Field(() => String, { nullable: true }) applicantNotes: string | null;
  @Field(() => String, { nullable: true, description: "The day the applicant would like, YYYY-MM-DD" }) preferredOn: string | null;
  @Field(() => String, { nullable: true }) resultNotes: string | null;
  @Field(() => String, { nullable: true }) permitNumber: string | null;
  @Field(() => String) address: string;
  @Field(() => String) applicantName: string;
}

@ObjectType("InspectionCalendarDay")
export class InspectionCalendarDayType {
  @Field(() => String, { description: "YYYY-MM-DD" }) date: string;
  @Field(() => [CalendarInspectionType]) inspections: CalendarInspectionType[];
}

@ObjectType("InspectionCalendar", { description: "A week of lateral inspections in a district (Monday to Sunday, its time zone)" })
export class InspectionCalendarType {
  @Field(() => String) weekStart: string;
  @Field(() => String) weekEnd: string;
  @Field(() => String) previousWeek: string;
  @Field(() => String) nextWeek: string;
  @Field(() => String) timeZone: string;
  @Field(() => [InspectionCalendarDayType]) days: InspectionCalendarDayType[];
  @Field(() => [CalendarInspectionType], { description: "Requested, not yet scheduled (any week)" }) unscheduled: CalendarInspectionType[];
}

@InputType("LateralPermitDraftInput", { description: "The application form; every field may be left empty in a draft" })
export class LateralPermitDraftInput {
  @Field(() => ID, { nullable: true, description: "Omit to start a new application" }) id?: string | null;
  @Field(() => ID, { nullable: true, description: "Required for a new application" }) districtId?: string | null;
  @Field(() => String, { nullable: true }) permitClass?: string | null;
  @Field(() => String, { nullable: true }) buildingUse?: string | null;
  @Field(() => Int, { nullable: true, description: "Square feet; required for commercial, institutional and industrial buildings" }) floorAreaSqft?: number | null;
  @Field(() => String, { nullable: true }) workKind?: string | null;
  @Field(() => String, { nullable: true }) streetNumber?: string | null;
  @Field(() => String, { nullable: true }) street?: string | null;
  @Field(() => String, { nullable: true }) city?: string | null;
  @Field(() => String, { nullable: true }) zip?: string | null;
  @Field(() => String, { nullable: true }) taxParcel?: string | null;
  @Field(() => String, { nullable: true }) ownerName?: string | null;
  @Field(() => String, { nullable: true, description: "The owner's agent, if the applicant is not the owner (SUL 201)" }) agentName?: string | null;
  @Field(() => ID, { nullable: true, description: "From approvedContractors(districtSlug), where the district keeps a list (SUL 601 A)" }) contractorId?: string | null;
  @Field(() => String, { nullable: true, description: "Who does the work (the owner, or the plumber or contractor the owner hires), where the district keeps no list of approved contractors (Huron III-2)" })
  workDoneBy?: string | null;
  @Field(() => Int, { nullable: true, description: "Sheets of plans showing lateral connections, where the district counts them for the as-built deposit (SUL 606 B)" }) asBuiltSheets?: number | null;
  @Field(() => [ID], { nullable: true, description: "Plans and specifications: documents I uploaded" }) documentIds?: string[] | null;
  @Field(() => [UploadDocumentInput], { nullable: true, description: "Plans uploaded with the form: stored and attached in one transaction, so a refused form leaves none behind" })
  newPlans?: UploadDocumentInput[] | null;
}

@InputType()
export class ScheduleInspectionInput {
  @Field(() => ID) inspectionId: string;
  @Field(() => String, { description: 'The district\'s local date and time, "2026-12-07T09:30", or an ISO instant' }) scheduledFor: string;
  @Field(() => ID, { nullable: true, description: "An operator of the district; the caller by default" }) inspectorId?: string | null;
}

@InputType()
export class RecordInspectionResultInput {
  @Field(() => ID) inspectionId: string;
  @Field(() => String, { description: "PASSED or FAILED" }) result: string;
  @Field(() => String, { nullable: true, description: "Required when it failed" }) notes?: string | null;
  @Field(() => String, { nullable: true, description: 'When the inspection took place, the district\'s local date and time ("2026-12-07T09:30") or an ISO instant; now when omitted, never later' })
  inspectedAt?: string | null;
}

@InputType()
export class FileRecordDrawingsInput {
  @Field(() => ID) permitId: string;
  @Field(() => [ID], { nullable: true, description: "Drawings I uploaded before" }) documentIds?: string[] | null;
  @Field(() => [UploadDocumentInput], { nullable: true, description: "Drawings uploaded with the form, stored and filed in one transaction" }) newDrawings?: UploadDocumentInput[] | null;
}

@InputType()
export class DeclareMoratoriumInput {
  @Field(() => ID) districtId: string;
  @Field(() => String) segmentName: string;
  @Field(() => [String]) streets: string[];
  @Field(() => String, { description: "Shown to applicants whose application it refuses" }) reason: string;
}

// ---------------------------------------------------------------------------------------------
// Per-request loaders: one query per kind of record for a whole page, never one per row.

function loadersFor(ctx: Context) {
  const ds = ctx.ds;
  return {
    inspections: new DataLoader<string, LateralInspection[]>(async (ids) => {
      const rows = await laterals.inspectionsOf(ds, [...ids]);
      return ids.map((id) => rows.filter((r) => r.permitId === id));
    }),
    /** Plans and record drawings of each permit, by kind. */
    documents: new DataLoader<string, { kind: PermitDocumentKind; document: Document }[]>(async (ids) => {
      const rows: { permitId: string; documentId: string; kind: PermitDocumentKind }[] = await ds.query(
        `SELECT pd.permit_id AS "permitId", pd.document_id AS "documentId", pd.kind FROM lateral_permit_document pd WHERE pd.permit_id = ANY($1::uuid[]) ORDER BY pd.position`,
        [[...ids]],
      );
      const docs = rows.length ? await ds.getRepository(Document).findBy({ id: In(rows.map((r) => r.documentId)) }) : [];
      const byId = new Map(docs.map((d) => [d.id, d]));
      return ids.map((id) => rows.filter((r) => r.permitId === id && byId.has(r.documentId)).map((r) => ({ kind: r.kind, document: byId.get(r.documentId)! })));
    }),
    contractorName: new DataLoader<string, string | null>(async (ids) => {
      const rows: { id: string; name: string }[] = await ds.query(
        `SELECT c.id, o.name FROM contractor c JOIN organization o ON o.id = c.organization_id WHERE c.id = ANY($1::uuid[])`,
        [[...ids]],
      );
      const m = new Map(rows.map((r) => [r.id, r.name]));
      return ids.map((id) => m.get(id) ?? null);
    }),
    standing: new DataLoader<string, { choosable: boolean; reasons: string[]; districtId: string } | null>(async (ids) => {
      const m = await contractorStandings(ds, [...ids]);
      return ids.map((id) => m.get(id) ?? null);
    }),
    payment: new DataLoader<string, Payment | null>(async (ids) => {
      const rows = await ds.getRepository(Payment).findBy({ id: In([...ids]) });
      const m = new Map(rows.map((r) => [r.id, r]));
      return ids.map((id) => m.get(id) ?? null);
    }),
    refunds: new DataLoader<string, Refund[]>(async (ids) => {
      const rows = await refundsFor(ds, [...ids]);
      return ids.map((id) => rows.filter((r) => r.paymentId === id));
    }),
    rulebook: new DataLoader<string, Rulebook>(async (ids) => {
      const rows = await ds.getRepository(RulebookVersion).findBy({ id: In([...ids]) });
      const m = new Map(rows.map((r) => [r.id, new Rulebook(r)]));
      return ids.map((id) => m.get(id) ?? new Error(`rulebook version ${id} not found`));
    }),
  };
}
const perRequest = new WeakMap<Context, ReturnType<typeof loadersFor>>();
function loaders(ctx: Context) {
  let l = perRequest.get(ctx);
  if (!l) perRequest.set(ctx, (l = loadersFor(ctx)));
  return l;
}

const meta = (ctx: Context) => ({ requestId: ctx.requestId, publicUrl: ctx.config.publicUrl });

async function districtOf(ctx: Context, p: LateralPermit): Promise<District> {
  return (await ctx.loaders.district.load(p.districtId))!;
}

/** The permit's rulebook: the version its fees used, or (a draft) the one in force today. */
async function rulebookOf(ctx: Context, p: LateralPermit): Promise<Rulebook> {
  if (p.rulebookVersionId) return loaders(ctx).rulebook.load(p.rulebookVersionId);
  return rulebookOn(ctx.ds, await districtOf(ctx, p));
}

// ---------------------------------------------------------------------------------------------

@Resolver(() => LateralPermitType)
export class LateralPermitsResolver {
  @Access("SIGNED_IN")
  @Query(() => [LateralPermitType], { description: "My lateral permit applications, newest first" })
  myLateralPermits(@Ctx() ctx: Context) {
    return laterals.myPermits(ctx.ds, ctx.viewer!);
  }

  @Access("SIGNED_IN")
  @Query(() => LateralPermitType, { description: "A permit: for its applicant, or (once submitted) staff of its district; NOT_FOUND otherwise" })
  lateralPermit(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return laterals.getPermit(ctx.ds, ctx.viewer!, id);
  }

  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  @Query(() => LateralPermitPageType, {
    description: "Staff: the district's applications by status (open ones by default), oldest submission first; keyset-paginated",
  })
  lateralPermitQueue(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("status", () => String, { nullable: true }) status?: string,
    @Arg("first", () => Int, { nullable: true }) first?: number,
    @Arg("after", () => String, { nullable: true }) after?: string,
  ) {
    // Authorization first, then the short-lived cache shared by the district's staff.
    if (!isStaff(ctx.viewer, districtId)) throw forbidden("You are not staff of that district.");
    return microCached(`lateral-queue:${districtId}:${status ?? ""}:${first ?? ""}:${after ?? ""}`, () =>
      laterals.queue(ctx.ds, ctx.viewer!, { districtId, status, first, after }),
    );
  }

  @Access("OPERATOR")
  @Query(() => InspectionCalendarType, { description: "Operator: the week's inspections (the week containing weekOf, YYYY-MM-DD; this week by default)" })
  async inspectionCalendar(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("weekOf", () => String, { nullable: true }) weekOf?: string,
  ): Promise<InspectionCalendarType> {
    const c = await laterals.inspectionCalendar(ctx.ds, ctx.viewer!, districtId, weekOf);
    const withLabel = (i: any) => ({ ...i, kindLabel: INSPECTION_LABELS[i.kind as InspectionKind] });
    return { ...c, days: c.days.map((d) => ({ date: d.date, inspections: d.inspections.map(withLabel) })), unscheduled: c.unscheduled.map(withLabel) };
  }

  @Access("PUBLIC")
  @Query(() => LateralApplicationRequirementsType, { description: "What a lateral permit application carries in the district today, from its rulebook" })
  async lateralApplicationRequirements(@Arg("districtSlug", () => String) districtSlug: string, @Ctx() ctx: Context): Promise<LateralApplicationRequirementsType> {
    return requirementsType(await rulebookOn(ctx.ds, await getDistrict(ctx.ds, { slug: districtSlug })));
  }

  @Access("PUBLIC")
  @Query(() => [SewerMoratoriumType], { description: "Moratoria on new connections in force in a district (SUL 310); with includeLifted, past ones too" })
  moratoria(
    @Arg("districtSlug", () => String) districtSlug: string,
    @Ctx() ctx: Context,
    @Arg("includeLifted", () => Boolean, { nullable: true }) includeLifted?: boolean,
  ): Promise<SewerMoratorium[]> {
    // Those in force: the same for everyone and read by every lateral permit form (issue 20), kept as
    // the hot lists are (api/graphql/micro-cache.ts), dropped on every instance when a moratorium is
    // declared or lifted (any mutation).
    if (includeLifted === true) return laterals.listMoratoria(ctx.ds, districtSlug, true);
    return microCached(`moratoria:${districtSlug}`, () => laterals.listMoratoria(ctx.ds, districtSlug, false));
  }

  // Applicant

  @Access("SIGNED_IN")
  @Mutation(() => LateralPermitType, { description: "Starts an application (no id) or saves my draft, or my application sent back for changes" })
  saveLateralPermitDraft(@Arg("input", () => LateralPermitDraftInput) input: LateralPermitDraftInput, @Ctx() ctx: Context) {
    return laterals.saveDraft(ctx.ds, ctx.config, ctx.viewer!, input, ctx.requestId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => LateralPermitType, { description: "Submits my application: checks it, computes the fees from the rulebook and opens the payment" })
  submitLateralPermit(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return laterals.submit(ctx.ds, ctx.viewer!, id, meta(ctx));
  }

  @Access("SIGNED_IN")
  @Mutation(() => LateralPermitType, { description: "Withdraws my application, until the permit is issued" })
  withdrawLateralPermit(@Arg("id", () => ID) id: string, @Ctx() ctx: Context, @Arg("reason", () => String, { nullable: true }) reason?: string) {
    return laterals.withdraw(ctx.ds, ctx.viewer!, id, reason ?? null, meta(ctx));
  }

  @Access("SIGNED_IN")
  @Mutation(() => LateralInspectionType, { description: "Applicant: ask for an inspection once the permit is issued (TRENCH, CONNECTION or LEAKAGE_TEST)" })
  requestInspection(
    @Arg("permitId", () => ID) permitId: string,
    @Ctx() ctx: Context,
    @Arg("kind", () => String, { nullable: true, description: "TRENCH, CONNECTION or LEAKAGE_TEST; the next one the work needs when omitted (a later one is refused before the earlier have passed)" }) kind?: string,
    @Arg("notes", () => String, { nullable: true }) notes?: string,
    @Arg("preferredOn", () => String, { nullable: true, description: "The day I would like it, YYYY-MM-DD in the district's zone, from today on" }) preferredOn?: string,
  ) {
    return laterals.requestInspection(ctx.ds, ctx.viewer!, { permitId, kind, notes, preferredOn }, meta(ctx));
  }

  @Access("SIGNED_IN")
  @Mutation(() => LateralPermitType, { description: "Files the as-built (record) drawings of a connected lateral for the District Operator's approval (SUL 606 B)" })
  fileRecordDrawings(@Arg("input", () => FileRecordDrawingsInput) input: FileRecordDrawingsInput, @Ctx() ctx: Context) {
    return laterals.fileRecordDrawings(ctx.ds, ctx.config, ctx.viewer!, input, meta(ctx));
  }

  // District Operator

  @Access("OPERATOR")
  @Mutation(() => LateralPermitType, { description: "Operator: send the application back to the applicant with the changes needed" })
  requestLateralPermitChanges(@Arg("id", () => ID) id: string, @Arg("notes", () => String) notes: string, @Ctx() ctx: Context) {
    return laterals.requestChanges(ctx.ds, ctx.viewer!, id, notes, meta(ctx));
  }

  @Access("OPERATOR")
  @Mutation(() => LateralPermitType, { description: "Operator: approve and issue the permit (PAYMENT_REQUIRED while the fees are unpaid)" })
  approveLateralPermit(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return laterals.approve(ctx.ds, ctx.viewer!, id, meta(ctx));
  }

  @Access("OPERATOR")
  @Mutation(() => LateralInspectionType, { description: "Operator: schedule (or move) a requested inspection" })
  scheduleInspection(@Arg("input", () => ScheduleInspectionInput) input: ScheduleInspectionInput, @Ctx() ctx: Context) {
    return laterals.scheduleInspection(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("OPERATOR")
  @Mutation(() => LateralInspectionType, { description: "Operator: record PASSED or FAILED; when every required inspection passed the connection is accepted" })
  async recordInspectionResult(@Arg("input", () => RecordInspectionResultInput) input: RecordInspectionResultInput, @Ctx() ctx: Context) {
    return (await laterals.recordInspectionResult(ctx.ds, ctx.viewer!, input, meta(ctx))).inspection;
  }

  @Access("OPERATOR")
  @Mutation(() => LateralPermitType, { description: "Operator: approve the as-built drawings of a connected lateral; the permit closes and the deposit is due back" })
  approveRecordDrawings(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return laterals.approveRecordDrawings(ctx.ds, ctx.viewer!, id, meta(ctx));
  }

  // ADMIN

  @Access("ADMIN")
  @Mutation(() => SewerMoratoriumType, { description: "ADMIN: stop new connections on a sewer segment (SUL 310)" })
  declareMoratorium(@Arg("input", () => DeclareMoratoriumInput) input: DeclareMoratoriumInput, @Ctx() ctx: Context) {
    return laterals.declareMoratorium(ctx.ds, ctx.viewer!, input, ctx.requestId);
  }

  @Access("ADMIN")
  @Mutation(() => SewerMoratoriumType, { description: "ADMIN: lift a moratorium, with the reason" })
  liftMoratorium(@Arg("id", () => ID) id: string, @Arg("reason", () => String) reason: string, @Ctx() ctx: Context) {
    return laterals.liftMoratorium(ctx.ds, ctx.viewer!, { id, reason }, ctx.requestId);
  }

  // Fields

  @FieldResolver(() => String, { description: "The status in words" })
  statusLabel(@Root() p: LateralPermit): string {
    return STATUS_LABELS[p.status];
  }

  @FieldResolver(() => String, { description: "Street address, city and ZIP" })
  address(@Root() p: LateralPermit): string {
    return laterals.addressOf(p);
  }

  @FieldResolver(() => Boolean, { description: "True when the caller is the applicant" })
  viewerIsApplicant(@Root() p: LateralPermit, @Ctx() ctx: Context): boolean {
    return p.applicantId === ctx.viewer?.userId;
  }

  @FieldResolver(() => District)
  district(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<District> {
    return districtOf(ctx, p);
  }

  @FieldResolver(() => String, { description: "The applicant's name" })
  async applicantName(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<string> {
    return (await ctx.loaders.user.load(p.applicantId))?.displayName ?? "";
  }

  @FieldResolver(() => [LateralFeeLineType])
  feeLines(@Root() p: LateralPermit): LateralFeeLineType[] {
    return p.feeLines.map((l) => ({ ...l, refundable: l.refundable === true }));
  }

  @FieldResolver(() => LateralContractorType, { nullable: true })
  async contractor(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<LateralContractorType | null> {
    if (!p.contractorId) return null;
    const l = loaders(ctx);
    const [name, standing] = await Promise.all([l.contractorName.load(p.contractorId), l.standing.load(p.contractorId)]);
    if (name === null) return null;
    const s =
      standing && standing.districtId === p.districtId
        ? { choosable: standing.choosable, reasons: standing.reasons }
        : { choosable: false, reasons: ["This contractor is not on the district's list of approved contractors."] };
    return { id: p.contractorId, name, standing: s };
  }

  @FieldResolver(() => PaymentType, { nullable: true, description: "The payment of the fees (pay it at /payments/<id>)" })
  payment(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<Payment | null> | null {
    return p.paymentId ? loaders(ctx).payment.load(p.paymentId) : null;
  }

  @FieldResolver(() => [DocumentType], { description: "Plans and specifications (the applicant, and the district's Operator and Clerk)" })
  async documents(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<Document[]> {
    const v = ctx.viewer!;
    const mayRead = p.applicantId === v.userId || hasRole(v, "OPERATOR", p.districtId) || hasRole(v, "CLERK", p.districtId);
    return mayRead ? (await loaders(ctx).documents.load(p.id)).filter((d) => d.kind === "PLAN").map((d) => d.document) : [];
  }

  @FieldResolver(() => [DocumentType], { description: "The as-built (record) drawings the applicant filed after the connection (SUL 606 B): the applicant, and the district's Operator and Clerk" })
  async recordDrawings(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<Document[]> {
    const v = ctx.viewer!;
    const mayRead = p.applicantId === v.userId || hasRole(v, "OPERATOR", p.districtId) || hasRole(v, "CLERK", p.districtId);
    return mayRead ? (await loaders(ctx).documents.load(p.id)).filter((d) => d.kind === "AS_BUILT").map((d) => d.document) : [];
  }

  @FieldResolver(() => [LateralInspectionType], { description: "Every inspection asked for, oldest first (a failed one stays, its new request follows)" })
  inspections(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<LateralInspection[]> {
    return loaders(ctx).inspections.load(p.id);
  }

  @FieldResolver(() => [LateralRequiredInspectionType], { description: "The inspections the rulebook requires (SUL 612-613), and where each stands" })
  async requiredInspections(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<LateralRequiredInspectionType[]> {
    const [rb, inspections] = await Promise.all([rulebookOf(ctx, p), loaders(ctx).inspections.load(p.id)]);
    const required = requiredInspections(rb);
    const latest = latestByKind(inspections);
    const requestable = p.status === "APPROVED" ? new Set(requestableKinds(required.map((r) => r.kind), inspections)) : new Set<InspectionKind>();
    return required.map((r) => ({
      kind: r.kind,
      label: r.label,
      section: r.section,
      status: inspections.some((i) => i.kind === r.kind && i.status === "PASSED") ? "PASSED" : (latest.get(r.kind)?.status ?? "NOT_REQUESTED"),
      requestable: requestable.has(r.kind),
    }));
  }

  @FieldResolver(() => LateralApplicationRequirementsType, { description: "What this application carries, from its rulebook (the version its fees used once submitted)" })
  async requirements(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<LateralApplicationRequirementsType> {
    return requirementsType(await rulebookOf(ctx, p));
  }

  @FieldResolver(() => [LateralChecklistItemType], { description: "The reviewer's checklist: physical minimums from the rulebook, with sections" })
  async checklist(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<LateralChecklistItemType[]> {
    return reviewChecklist(await rulebookOf(ctx, p));
  }

  @FieldResolver(() => LateralNextStepType, { description: "What is due next and by when" })
  async nextStep(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<LateralNextStepType> {
    const [rb, inspections, district, refunds] = await Promise.all([
      rulebookOf(ctx, p),
      loaders(ctx).inspections.load(p.id),
      districtOf(ctx, p),
      p.paymentId && p.depositRefundDueCents ? loaders(ctx).refunds.load(p.paymentId) : Promise.resolve([] as Refund[]),
    ]);
    const refunded = refunds.some((r) => r.lineCodes.includes(FEE_CODES.deposit));
    const s = nextStep(
      {
        status: p.status,
        feeTotalCents: p.feeTotalCents,
        paid: p.paidAt !== null,
        depositRefundDueCents: refunded ? 0 : p.depositRefundDueCents,
        asBuiltRequired: applicationRequirements(rb).asBuiltDrawings.required,
        asBuiltFiled: p.asBuiltFiledAt !== null,
        depositHeldCents: depositHeldCents(p.feeLines),
      },
      district.operatorTitle,
      inspections,
      requiredInspections(rb).map((r) => r.kind),
      district.timeZone,
    );
    return { text: s.text, dueDate: s.dueDate, daysLeft: s.daysLeft };
  }

  @FieldResolver(() => LateralDepositRefundType, { nullable: true, description: "The as-built deposit due back (once the record drawings are approved)" })
  async depositRefund(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<LateralDepositRefundType | null> {
    if (!p.depositRefundDueCents || !p.paymentId) return null;
    const r = (await loaders(ctx).refunds.load(p.paymentId)).find((x) => x.lineCodes.includes(FEE_CODES.deposit));
    return { amountCents: p.depositRefundDueCents, refunded: !!r, receiptNumber: r?.receiptNumber ?? null, refundedAt: r?.createdAt ?? null };
  }

  @FieldResolver(() => Int, { nullable: true, description: "Calendar days since submission, in the district's zone (the queue's age)" })
  async daysWaiting(@Root() p: LateralPermit, @Ctx() ctx: Context): Promise<number | null> {
    if (!p.submittedAt) return null;
    const tz = (await districtOf(ctx, p)).timeZone;
    return daysBetween(dateIn(tz, p.submittedAt), dateIn(tz));
  }

  @FieldResolver(() => String, { nullable: true, description: "GET this path for the printable permit (PDF), once issued" })
  pdfUrl(@Root() p: LateralPermit): string | null {
    return p.permitNumber ? `/permits/${p.id}/permit.pdf` : null;
  }

  @FieldResolver(() => Boolean, { description: "The caller may act as the district's Operator on it" })
  viewerIsOperator(@Root() p: LateralPermit, @Ctx() ctx: Context): boolean {
    return hasRole(ctx.viewer, "OPERATOR", p.districtId);
  }

  @FieldResolver(() => Boolean, { description: "The caller is staff of the permit's district" })
  viewerIsStaff(@Root() p: LateralPermit, @Ctx() ctx: Context): boolean {
    return isStaff(ctx.viewer, p.districtId);
  }
}

@Resolver(() => LateralInspectionType)
export class LateralInspectionsResolver {
  @FieldResolver(() => String, { description: "The kind in words" })
  kindLabel(@Root() i: LateralInspection): string {
    return INSPECTION_LABELS[i.kind];
  }

  @FieldResolver(() => String, { nullable: true })
  async inspectorName(@Root() i: LateralInspection, @Ctx() ctx: Context): Promise<string | null> {
    return i.inspectorId ? ((await ctx.loaders.user.load(i.inspectorId))?.displayName ?? null) : null;
  }

  @FieldResolver(() => LateralPermitType, { description: "The permit, as it stands after the change" })
  permit(@Root() i: LateralInspection, @Ctx() ctx: Context): Promise<LateralPermit> {
    return laterals.getPermit(ctx.ds, ctx.viewer!, i.permitId);
  }
}
