import { Arg, Ctx, Field, FieldResolver, Float, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { isStaff } from "../accounts/viewer.js";
import { unauthenticated } from "../common/errors.js";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { PageOf } from "../graphql/page.js";
import type { CapacityRow, CommitmentRow, LedgerLine } from "./capacity.service.js";
import { DOCUMENT_KIND_LABELS, STATUS_LABELS, type ExtensionRow } from "./common.js";
import * as extensions from "./extensions.service.js";
import { REQUIRED_FIELDS, TEST_KIND_LABELS, type TestKind } from "./rules.js";
import type { AttemptRow, SectionRow } from "./tests.service.js";
import { rows, reviewLoader, startLoader } from "./loaders.js";
import { SewerExtensionWorksResolver } from "./works.resolver.js";

// ---------------------------------------------------------------------------------------------
// Types

@ObjectType("SewerExtensionDocument", { description: "A document filed with a sewer extension application (SUL 501, 502 C)", simpleResolvers: true })
export class ExtensionDocumentType {
  @Field(() => ID) documentId: string;
  @Field(() => String, { description: "PLANS, SPECIFICATIONS, CALCULATIONS, STATE_APPROVAL or PIPE_TEST_RESULTS" }) kind: string;
  @Field(() => String) kindLabel: string;
  @Field(() => String) filename: string;
}

@ObjectType("ExtensionTestCriterion", { description: "One thing the law asks of a test, and whether the figures entered meet it", simpleResolvers: true })
export class CriterionType {
  @Field(() => String) text: string;
  @Field(() => String) section: string;
  @Field(() => Boolean) met: boolean;
}

@ObjectType("ExtensionTestFigure", { description: "A figure entered for a test, by its input field's name", simpleResolvers: true })
export class FigureType {
  @Field(() => String) name: string;
  @Field(() => String) value: string;
}

@ObjectType("ExtensionTestAttempt", { description: "One attempt at a test of a section (SUL 505 A-G, 506 B); every attempt is kept", simpleResolvers: true })
export class AttemptType {
  @Field(() => ID) id: string;
  @Field(() => ID) sectionId: string;
  @Field(() => String, { description: "INFILTRATION, EXFILTRATION, DEFLECTION, AIR, SEWER_VACUUM, MANHOLE_VACUUM or FORCE_MAIN" }) kind: string;
  @Field(() => String) kindLabel: string;
  @Field(() => Int, { description: "1 for the first attempt of this kind on the section, 2 for the retest, ..." }) attempt: number;
  @Field(() => String, { description: "PASSED, FAILED or NOT_JUDGED (the rulebook lacks a table the law points to)" }) outcome: string;
  @Field(() => String) outcomeLabel: string;
  @Field(() => [CriterionType]) criteria: CriterionType[];
  @Field(() => String, { nullable: true, description: "Why it was not judged" }) reason: string | null;
  @Field(() => [FigureType]) figures: FigureType[];
  @Field(() => String, { description: "YYYY-MM-DD" }) testedOn: string;
  @Field(() => String, { nullable: true }) notes: string | null;
  @Field(() => Date) recordedAt: Date;
}

@ObjectType("ExtensionTestSection", { description: "A section of the new sewer (or a manhole) as tested", simpleResolvers: true })
export class SectionType {
  @Field(() => ID) id: string;
  @Field(() => String) name: string;
  @Field(() => Boolean, { description: "No kind's latest attempt failed, and a leakage (or manhole vacuum) test passed" }) passed: boolean;
  @Field(() => [AttemptType], { description: "Every attempt, oldest first" }) attempts: AttemptType[];
}

@ObjectType("ExtensionChecklistItem", { description: "An item of the District Operator's review (SUL 501, 502 C, 503 A)", simpleResolvers: true })
export class ChecklistItemType {
  @Field(() => String) key: string;
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => String, { description: "CONFIRM (the Operator ticks it) or COMPUTED (judged from the application and the ledger)" }) kind: string;
  @Field(() => Boolean) met: boolean;
}

@ObjectType("ExtensionReview", { description: "The review checklist and the capacity check of SUL 501, on today's ledger", simpleResolvers: true })
export class ReviewType {
  @Field(() => [ChecklistItemType]) items: ChecklistItemType[];
  @Field(() => Boolean, { description: "The receiving sewer and the plant both have capacity for the design flow" }) hasCapacity: boolean;
  @Field(() => String, { nullable: true, description: "The denial's reason when they do not" }) capacityProblem: string | null;
  @Field(() => Boolean) approvable: boolean;
}

@ObjectType("CapacityCommitment", { description: "Capacity the Town Board committed by resolution (SUL 501)", simpleResolvers: true })
export class CommitmentType {
  @Field(() => ID) id: string;
  @Field(() => ID) capacityId: string;
  @Field(() => ID, { nullable: true }) extensionId: string | null;
  @Field(() => String) committedTo: string;
  @Field(() => Int, { description: "Gallons per day" }) flowGpd: number;
  @Field(() => String) resolutionNumber: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) resolutionAdoptedOn: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the first day it no longer counts" }) expiresOn: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, released by resolution from this day" }) releasedOn: string | null;
  @Field(() => String, { nullable: true }) releaseResolutionNumber: string | null;
  @Field(() => Boolean, { description: "Counts toward current use today" }) inForce: boolean;
}

@ObjectType("SewerCapacityLine", { description: "A sewer segment (SUL 1204) or the plant in the capacity ledger, gallons per day", simpleResolvers: true })
export class CapacityLineType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "SEGMENT or PLANT" }) kind: string;
  @Field(() => String) name: string;
  @Field(() => Int) designGpd: number;
  @Field(() => Int) presentUseGpd: number;
  @Field(() => Int, { description: "Committed by resolution and in force today" }) committedGpd: number;
  @Field(() => Int, { description: "Design capacity less present use and commitments (negative when over)" }) leftGpd: number;
  @Field(() => Date) updatedAt: Date;
  @Field(() => [CommitmentType], { nullable: true, description: "In the ledger only" }) commitments?: CommitmentRow[] | null;
}

@ObjectType("SewerExtension", { description: "A developer's application for a new sewer or sewer extension (SUL Article 5)", simpleResolvers: true })
export class ExtensionType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => ID) organizationId: string;
  @Field(() => String) organizationName: string;
  @Field(() => String, { description: "SUBMITTED (under review), APPROVED or DENIED" }) status: string;
  @Field(() => String) name: string;
  @Field(() => String) location: string;
  @Field(() => String) mapReference: string;
  @Field(() => Int) lots: number;
  @Field(() => Int, { description: "Gallons per day" }) designFlowGpd: number;
  @Field(() => String, { description: "GRAVITY or LOW_PRESSURE" }) sewerType: string;
  @Field(() => Float) pipeDiameterInches: number;
  @Field(() => Boolean) pipePvc: boolean;
  @Field(() => String) designerName: string;
  @Field(() => String) designerLicense: string;
  @Field(() => ID) receivingSegmentId: string;
  @Field(() => ID) plantId: string;
  @Field(() => Date) submittedAt: Date;
  @Field(() => Date, { nullable: true }) decidedAt: Date | null;
  @Field(() => String, { nullable: true }) decisionReason: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the day notice of construction was given (SUL 502 A)" }) noticeGivenOn: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) constructionStartsOn: string | null;
  @Field(() => Int, { nullable: true, description: "Paper copies of the as-built drawings filed, once the District Operator approved them (SUL 507)" }) asBuiltCopies: number | null;
  @Field(() => Date, { nullable: true, description: "When the District Operator approved the as-built drawings (SUL 507)" }) asBuiltApprovedAt: Date | null;
  @Field(() => Date, { nullable: true, description: "The District Operator's final approval and acceptance; the Town Board's concurrence follows (SUL 507)" }) finalApprovedAt: Date | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD: the Town Board's concurrence; the sewer is the Town's from this day (SUL 507)" }) acceptedOn: string | null;
  @Field(() => String, { nullable: true }) acceptanceResolutionNumber: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the guarantee's last day (SUL 507)" }) guaranteeEndsOn: string | null;
  @Field(() => String, { nullable: true, description: "SURETY_BOND or OTHER (security the Town Board approved)" }) securityKind: string | null;
  @Field(() => String, { nullable: true }) suretyName: string | null;
  @Field(() => String, { nullable: true }) bondNumber: string | null;
  @Field(() => Float, { nullable: true, description: "Cents" }) securityAmountCents: number | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) securityExpiresOn: string | null;
  @Field(() => String, { nullable: true }) securityDescription: string | null;
}

@ObjectType("SewerExtensionLateral", { description: "A building lateral permit recorded on the extension; connected only after the tests pass (SUL 502 A)", simpleResolvers: true })
export class LinkedLateralType {
  @Field(() => ID) lateralPermitId: string;
  @Field(() => String, { nullable: true }) permitNumber: string | null;
  @Field(() => String, { description: "The lateral permit's status" }) status: string;
}

@ObjectType("SewerLedgerLineName", { description: "A segment or the plant, by name (its figures are the staff's)", simpleResolvers: true })
export class LineNameType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "SEGMENT or PLANT" }) kind: string;
  @Field(() => String) name: string;
}

@ObjectType("SewerExtensionDistrict", { description: "Whether a district's law provides new sewers built by developers (SUL Article 5), and where they connect", simpleResolvers: true })
export class ExtensionDistrictType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "The district's slug: its public record is /extensions/public/:slug" }) slug: string;
  @Field(() => String) name: string;
  @Field(() => Boolean) provided: boolean;
  @Field(() => String) section: string;
  @Field(() => [LineNameType]) lines: LineNameType[];
}

const ExtensionPage = PageOf("SewerExtensionPage", () => ExtensionType);

// ---------------------------------------------------------------------------------------------
// Inputs

@InputType("SewerExtensionDocumentInput")
export class ExtensionDocumentInput {
  @Field(() => ID, { description: "A document I uploaded" }) documentId: string;
  @Field(() => String, { description: "PLANS, SPECIFICATIONS, CALCULATIONS, STATE_APPROVAL or PIPE_TEST_RESULTS" }) kind: string;
}

@InputType("ApplyForSewerExtensionInput")
export class ApplyInput {
  @Field(() => ID) districtId: string;
  @Field(() => ID, { description: "The developer organization applying (kind DEVELOPER)" }) organizationId: string;
  @Field(() => String, { description: "The subdivision or project" }) name: string;
  @Field(() => String, { description: "Streets and area served" }) location: string;
  @Field(() => String, { description: "Subdivision map or tax map reference" }) mapReference: string;
  @Field(() => Int) lots: number;
  @Field(() => Int, { description: "Gallons per day" }) designFlowGpd: number;
  @Field(() => String, { description: "GRAVITY or LOW_PRESSURE" }) sewerType: string;
  @Field(() => Float) pipeDiameterInches: number;
  @Field(() => Boolean, { description: "Heavy wall PVC to the listed specifications (SUL 503 A(1)); otherwise the Operator's written approval is needed" }) pipePvc: boolean;
  @Field(() => String) designerName: string;
  @Field(() => String) designerLicense: string;
  @Field(() => ID) receivingSegmentId: string;
  @Field(() => ID) plantId: string;
  @Field(() => [ExtensionDocumentInput]) documents: ExtensionDocumentInput[];
}

@InputType("AttachSewerExtensionDocumentsInput")
export class AttachInput {
  @Field(() => ID) id: string;
  @Field(() => [ExtensionDocumentInput]) documents: ExtensionDocumentInput[];
}

@InputType("DecideSewerExtensionInput")
export class DecideInput {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "APPROVE or DENY" }) decision: string;
  @Field(() => [String], { description: "Checklist items the Operator confirms: licensedDesigner, futureFlows, otherMaterialApproved" }) confirmed: string[];
  @Field(() => String, { nullable: true, description: "Required to deny, unless the denial is for lack of capacity (the portal states it)" }) reason?: string | null;
  @Field(() => String, { nullable: true }) notes?: string | null;
}

@InputType("ConstructionNoticeInput")
export class NoticeInput {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "YYYY-MM-DD, at least the law's days after today in the district's zone (SUL 502 A)" }) startsOn: string;
}

@InputType("RecordSewerCapacityInput")
export class CapacityInput {
  @Field(() => ID) districtId: string;
  @Field(() => ID, { nullable: true, description: "Omit to add a line" }) id?: string | null;
  @Field(() => String, { description: "SEGMENT or PLANT" }) kind: string;
  @Field(() => String) name: string;
  @Field(() => Int) designGpd: number;
  @Field(() => Int) presentUseGpd: number;
}

@InputType("CommitSewerCapacityInput")
export class CommitInput {
  @Field(() => ID) capacityId: string;
  @Field(() => Int) flowGpd: number;
  @Field(() => String) committedTo: string;
  @Field(() => ID, { nullable: true }) extensionId?: string | null;
  @Field(() => String) resolutionNumber: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) resolutionAdoptedOn: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the first day it no longer counts" }) expiresOn?: string | null;
}

@InputType("ReleaseSewerCapacityInput")
export class ReleaseInput {
  @Field(() => ID) commitmentId: string;
  @Field(() => String, { description: "YYYY-MM-DD, the resolution's day" }) releasedOn: string;
  @Field(() => String) resolutionNumber: string;
}

@InputType("AddExtensionTestSectionInput")
export class SectionInput {
  @Field(() => ID) extensionId: string;
  @Field(() => String, { description: 'e.g. "MH-1 to MH-2" or "MH-3"' }) name: string;
}

@InputType("RecordExtensionTestInput", { description: "A test's figures; which a kind needs is in extensionTestFields" })
export class RecordTestInput {
  @Field(() => ID) sectionId: string;
  @Field(() => String, { description: "INFILTRATION, EXFILTRATION, DEFLECTION, AIR, SEWER_VACUUM, MANHOLE_VACUUM or FORCE_MAIN" }) kind: string;
  @Field(() => String, { description: "YYYY-MM-DD, not after today" }) testedOn: string;
  @Field(() => String, { nullable: true }) notes?: string | null;
  @Field(() => Float, { nullable: true }) lengthFeet?: number | null;
  @Field(() => Float, { nullable: true }) nominalDiameterInches?: number | null;
  @Field(() => Int, { nullable: true }) manholes?: number | null;
  @Field(() => Float, { nullable: true }) periodMinutes?: number | null;
  @Field(() => Float, { nullable: true }) gallons?: number | null;
  @Field(() => Float, { nullable: true }) headAbovePipeTopFeet?: number | null;
  @Field(() => Float, { nullable: true, description: "0 or less when groundwater is below the top of the pipe" }) groundwaterAbovePipeTopFeet?: number | null;
  @Field(() => Float, { nullable: true }) downstreamHeadFeet?: number | null;
  @Field(() => Float, { nullable: true }) downstreamFreeboardInches?: number | null;
  @Field(() => Float, { nullable: true }) filledHours?: number | null;
  @Field(() => Float, { nullable: true }) insideDiameterInches?: number | null;
  @Field(() => Float, { nullable: true }) mandrelDiameterInches?: number | null;
  @Field(() => Boolean, { nullable: true }) mandrelPassed?: boolean | null;
  @Field(() => Float, { nullable: true }) greatestDeflectionPercent?: number | null;
  @Field(() => Float, { nullable: true }) testPressurePsi?: number | null;
  @Field(() => Float, { nullable: true }) seconds?: number | null;
  @Field(() => Float, { nullable: true }) depthFeet?: number | null;
  @Field(() => Float, { nullable: true }) manholeDiameterFeet?: number | null;
  @Field(() => Float, { nullable: true }) operatingPressurePsi?: number | null;
}

@InputType("LinkLateralToSewerExtensionInput")
export class LinkLateralInput {
  @Field(() => ID) extensionId: string;
  @Field(() => ID, { nullable: true, description: "The lateral permit, or give its permit number" }) lateralPermitId?: string | null;
  @Field(() => String, { nullable: true, description: "The lateral permit's number, e.g. LKV-LP-2027-0001" }) permitNumber?: string | null;
}

@ObjectType("ExtensionTestFields", { description: "The figures a kind of test is judged from", simpleResolvers: true })
export class TestFieldsType {
  @Field(() => String) kind: string;
  @Field(() => String) label: string;
  @Field(() => [String]) fields: string[];
}

// ---------------------------------------------------------------------------------------------
// Loaders: one query per kind of related row, whatever the number of applications in a response



const OUTCOME_LABELS: Record<string, string> = { PASSED: "Passed", FAILED: "Failed", NOT_JUDGED: "Not judged" };

function attemptView(a: AttemptRow): AttemptType {
  const figures = Object.entries(a.entry)
    .filter(([k]) => k !== "kind")
    .map(([name, v]) => ({ name, value: typeof v === "boolean" ? (v ? "yes" : "no") : String(v) }));
  return { ...a, kindLabel: TEST_KIND_LABELS[a.kind], outcomeLabel: OUTCOME_LABELS[a.outcome], figures };
}

const viewerOf = (ctx: Context) => {
  if (!ctx.viewer) throw unauthenticated();
  return ctx.viewer;
};

// ---------------------------------------------------------------------------------------------
// Resolver

@Resolver(() => ExtensionType)
export class SewerExtensionsResolver extends SewerExtensionWorksResolver {
  @FieldResolver(() => String, { description: "The status in words" })
  statusLabel(@Root() e: ExtensionRow): string {
    return STATUS_LABELS[e.status];
  }

  @FieldResolver(() => [ExtensionDocumentType])
  async documents(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<ExtensionDocumentType[]> {
    return (await rows(ctx).documents.load(e.id)).map((d) => ({ ...d, kindLabel: DOCUMENT_KIND_LABELS[d.kind] }));
  }

  @FieldResolver(() => [SectionType], { description: "Test sections with every attempt" })
  async sections(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<SectionType[]> {
    const [sections, attempts] = await Promise.all([rows(ctx).sections.load(e.id), rows(ctx).attempts.load(e.id)]);
    return sections.map((s: SectionRow) => {
      const mine = attempts.filter((a) => a.sectionId === s.id);
      return { id: s.id, name: s.name, passed: extensions.sectionStanding(mine).passed, attempts: mine.map(attemptView) };
    });
  }

  @FieldResolver(() => Boolean, { description: "Every section has passed its tests, so laterals may be connected (SUL 502 A)" })
  async testsPassed(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<boolean> {
    const sections = await this.sections(e, ctx);
    return sections.length > 0 && sections.every((s) => s.passed);
  }

  @FieldResolver(() => String, { nullable: true, description: "YYYY-MM-DD: the first day construction may start with notice given today (SUL 502 A); approved applications only" })
  async earliestConstructionStart(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<string | null> {
    if (e.status !== "APPROVED") return null;
    return startLoader(ctx).load(e.districtId);
  }

  @FieldResolver(() => [LinkedLateralType], { description: "Lateral permits recorded on the extension" })
  async laterals(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<LinkedLateralType[]> {
    return rows(ctx).laterals.load(e.id);
  }

  @FieldResolver(() => ReviewType, { nullable: true, description: "The review checklist and capacity check; the district's staff only" })
  async review(@Root() e: ExtensionRow, @Ctx() ctx: Context): Promise<ReviewType | null> {
    if (!isStaff(ctx.viewer, e.districtId)) return null;
    return reviewLoader(ctx).load(e);
  }

  @Query(() => ExtensionType, { description: "A sewer extension: the developer's members and the district's staff" })
  @Access("SIGNED_IN")
  async sewerExtension(@Arg("id", () => ID) id: string, @Ctx() ctx: Context): Promise<ExtensionRow> {
    return extensions.getExtension(ctx.ds, viewerOf(ctx), id);
  }

  @Query(() => [ExtensionType], { description: "The sewer extensions of every organization I belong to, newest first" })
  @Access("SIGNED_IN")
  async mySewerExtensions(@Ctx() ctx: Context): Promise<ExtensionRow[]> {
    return extensions.myExtensions(ctx.ds, viewerOf(ctx));
  }

  @Query(() => ExtensionPage, { description: "The district's sewer extensions, newest first (its staff)" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async districtSewerExtensions(
    @Arg("districtId", () => ID) districtId: string,
    @Arg("status", () => String, { nullable: true, description: "SUBMITTED, APPROVED, DENIED, ACCEPTED, or AWAITING_BOARD: approved with the District Operator's final approval, for the Town Board's acceptance (SUL 507)" })
    status: string | null,
    @Arg("first", () => Int, { nullable: true }) first: number | null,
    @Arg("after", () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: Context,
  ) {
    return extensions.districtExtensions(ctx.ds, viewerOf(ctx), { districtId, status, first, after });
  }

  @Query(() => [CapacityLineType], { description: "The capacity ledger of the district's sewer segments and plant (SUL 501, 1204); its staff" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async sewerCapacityLedger(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context): Promise<LedgerLine[]> {
    return extensions.capacityLedger(ctx.ds, viewerOf(ctx), districtId);
  }

  @Query(() => [ExtensionDistrictType], { description: "Each district: whether its law provides sewer extensions, and its segments and plant by name" })
  @Access("PUBLIC")
  async sewerExtensionDistricts(@Ctx() ctx: Context): Promise<ExtensionDistrictType[]> {
    return extensions.extensionDistricts(ctx.ds);
  }

  @Query(() => [TestFieldsType], { description: "The figures each kind of test is judged from" })
  @Access("PUBLIC")
  extensionTestFields(): TestFieldsType[] {
    return Object.entries(REQUIRED_FIELDS).map(([kind, fields]) => ({ kind, label: TEST_KIND_LABELS[kind as TestKind], fields }));
  }

  @Mutation(() => ExtensionType, { description: "A developer organization's member applies for a sewer extension (SUL 501, 502)" })
  @Access("SIGNED_IN")
  async applyForSewerExtension(@Arg("input", () => ApplyInput) input: ApplyInput, @Ctx() ctx: Context): Promise<ExtensionRow> {
    return extensions.applyForExtension(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => ExtensionType, { description: "Adds documents to an application (the State's approval, pipe test results)" })
  @Access("SIGNED_IN")
  async attachSewerExtensionDocuments(@Arg("input", () => AttachInput) input: AttachInput, @Ctx() ctx: Context): Promise<ExtensionRow> {
    return extensions.attachDocuments(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => ExtensionType, { description: "The District Operator approves or denies (SUL 501)" })
  @Access("OPERATOR")
  async decideSewerExtension(@Arg("input", () => DecideInput) input: DecideInput, @Ctx() ctx: Context): Promise<ExtensionRow> {
    return extensions.decideExtension(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => ExtensionType, { description: "The developer gives notice of the start of construction (SUL 502 A)" })
  @Access("SIGNED_IN")
  async giveConstructionNotice(@Arg("input", () => NoticeInput) input: NoticeInput, @Ctx() ctx: Context): Promise<ExtensionRow> {
    return extensions.giveConstructionNotice(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => CapacityLineType, { description: "Adds or updates a segment or the plant in the capacity ledger" })
  @Access("OPERATOR", "ADMIN")
  async recordSewerCapacity(@Arg("input", () => CapacityInput) input: CapacityInput, @Ctx() ctx: Context): Promise<CapacityRow> {
    return extensions.recordCapacity(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => CommitmentType, { description: "Enters capacity the Town Board committed by resolution (SUL 501)" })
  @Access("ADMIN")
  async commitSewerCapacity(@Arg("input", () => CommitInput) input: CommitInput, @Ctx() ctx: Context): Promise<CommitmentRow> {
    return extensions.commitCapacity(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => CommitmentType, { description: "Enters the Town Board's release of a commitment" })
  @Access("ADMIN")
  async releaseSewerCapacity(@Arg("input", () => ReleaseInput) input: ReleaseInput, @Ctx() ctx: Context): Promise<CommitmentRow> {
    return extensions.releaseCommitment(ctx.ds, viewerOf(ctx), input, ctx.requestId);
  }

  @Mutation(() => ExtensionType, { description: "The District Operator records a lateral permit on the extension: its connection waits for the tests (SUL 502 A)" })
  @Access("OPERATOR")
  async linkLateralToSewerExtension(@Arg("input", () => LinkLateralInput) input: LinkLateralInput, @Ctx() ctx: Context): Promise<ExtensionRow> {
    await extensions.linkLateral(ctx.ds, viewerOf(ctx), input, ctx.requestId);
    return extensions.getExtension(ctx.ds, viewerOf(ctx), input.extensionId);
  }

  @Mutation(() => SectionType, { description: "The District Operator names a test section" })
  @Access("OPERATOR")
  async addExtensionTestSection(@Arg("input", () => SectionInput) input: SectionInput, @Ctx() ctx: Context): Promise<SectionType> {
    const s = await extensions.addTestSection(ctx.ds, viewerOf(ctx), input, ctx.requestId);
    return { id: s.id, name: s.name, passed: false, attempts: [] };
  }

  @Mutation(() => AttemptType, { description: "The District Operator enters a test; it is judged at once and kept (a retest is another attempt)" })
  @Access("OPERATOR")
  async recordExtensionTest(@Arg("input", () => RecordTestInput) input: RecordTestInput, @Ctx() ctx: Context): Promise<AttemptType> {
    return attemptView(await extensions.recordTest(ctx.ds, viewerOf(ctx), input as extensions.RecordTestInputType, ctx.requestId));
  }
}
