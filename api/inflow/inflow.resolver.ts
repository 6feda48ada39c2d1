import DataLoader from "dataloader";
import { Arg, Ctx, Field, FieldResolver, Float, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { isStaff } from "../accounts/viewer.js";
import { dateIn } from "../common/dates.js";
import { unauthenticated } from "../common/errors.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { Access } from "../graphql/access.js";
import { metaOf, type Context } from "../graphql/context.js";
import { PageOf } from "../graphql/page.js";
import { groupBy, perRequest } from "../industrial/loaders.js";
import type { InspectionRow, PartyRole } from "./common.js";
import * as inflow from "./inflow.service.js";
import { withdrawDetermination } from "./determinations.service.js";
import type { PublicCertificate } from "./inspections.service.js";
import {
  DETERMINATION_METHODS,
  DETERMINATION_METHOD_LABELS,
  SOURCE_KINDS,
  SOURCE_KIND_LABELS,
  SOURCE_STATE_LABELS,
  articleSection,
  chargeSection,
  chargesInflow,
  enforceable,
  inflowSurcharge,
  inspectsAtSale,
  type DeterminationMethod,
  type SourceKind,
  type SourceState,
} from "./rules.js";
import { rulebookById } from "../districts/districts.service.js";

// ---------------------------------------------------------------------------------------------
// Types

@ObjectType("InflowSource", { description: "A source of inflow as found on a visit (SUL 701; Huron III-8)", simpleResolvers: true })
export class SourceType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "SUMP_PUMP, FOOTING_DRAIN, ROOF_LEADER, ROOF_DRAIN, CELLAR_DRAIN, AREAWAY_DRAIN, CATCH_BASIN, COOLING_WATER or OTHER" }) kind: string;
  @Field(() => String) kindLabel: string;
  @Field(() => String, { nullable: true }) location: string | null;
  @Field(() => String, { description: "CONNECTED, DISCONNECTED or RECONNECTED (after its disconnection: SUL 704)" }) state: string;
  @Field(() => String) stateLabel: string;
  @Field(() => Boolean, { description: "The District Operator may open an enforcement action from it (SUL 704; Huron III-8 and Article V); staff only" }) enforceable: boolean;
  @Field(() => ID, { nullable: true, description: "The enforcement action opened from it; staff only" }) enforcementActionId: string | null;
  @Field(() => String, { nullable: true }) enforcementNumber: string | null;
}

@ObjectType("InflowPhoto", { description: "A photo taken on a visit (a document)", simpleResolvers: true })
export class PhotoType {
  @Field(() => ID) documentId: string;
  @Field(() => String) filename: string;
}

@ObjectType("InflowVisit", { description: "One visit of an inflow inspection and what was found", simpleResolvers: true })
export class VisitType {
  @Field(() => ID) id: string;
  @Field(() => Int, { description: "1 for the first visit, 2 for the re-inspection, ..." }) visitNumber: number;
  @Field(() => String, { description: "YYYY-MM-DD" }) visitedOn: string;
  @Field(() => Float, { nullable: true, description: "Feet from the property line to the nearest separate storm sewer; null when none is available" }) stormSewerFeet: number | null;
  @Field(() => Boolean, { description: "The inspector judged natural drainage sufficient (SUL 702)" }) naturalDrainageAdequate: boolean;
  @Field(() => Boolean, { description: "The law requires connections disconnected (SUL 702; always in Huron, III-8)" }) disconnectionRequired: boolean;
  @Field(() => String, { description: "PASSED, ORDERED (disconnection order) or VIOLATION (Huron III-8)" }) outcome: string;
  @Field(() => String) outcomeLabel: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the disconnection order's date" }) orderDeadline: string | null;
  @Field(() => String, { nullable: true }) notes: string | null;
  @Field(() => String) inspectorName: string;
  @Field(() => [SourceType]) sources: SourceType[];
  @Field(() => [PhotoType]) photos: PhotoType[];
}

@ObjectType("InflowDetermination", { description: "The District Operator's determination of the amount of a property's inflow, billed on its sewer bill (SUL 705)", simpleResolvers: true })
export class DeterminationType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "YYYY-MM-DD, the first day of the inflow determined" }) periodFrom: string;
  @Field(() => String, { description: "YYYY-MM-DD, the last day" }) periodTo: string;
  @Field(() => Int, { description: "Gallons of inflow over the period" }) gallons: number;
  @Field(() => String, { description: "CONTROL_MANHOLE_METER, PUMP_RUN_TIME or ESTIMATE" }) method: string;
  @Field(() => String) methodLabel: string;
  @Field(() => String, { description: "How the amount was determined" }) note: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD: a control manhole is required on the property by this day (SUL 705)" }) controlManholeBy: string | null;
  @Field(() => String) determinedBy: string;
  @Field(() => Date) recordedAt: Date;
  @Field(() => ID, { nullable: true, description: "The issued sewer bill that carries it (each determination is billed once)" }) billId: string | null;
  @Field(() => String, { nullable: true }) billNumber: string | null;
  @Field(() => Date, { nullable: true, description: "When the District Operator withdrew it (never billed then); null while it stands" }) withdrawnAt: Date | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the day it was withdrawn in the district's zone" }) withdrawnOn: string | null;
  @Field(() => String, { nullable: true, description: "Who withdrew it" }) withdrawnBy: string | null;
  @Field(() => String, { nullable: true, description: "Why it was withdrawn" }) withdrawnReason: string | null;
}

@ObjectType("InflowParty", { description: "A seller, buyer or attorney who asked for the inspection or follows it", simpleResolvers: true })
export class PartyType {
  @Field(() => String) name: string;
  @Field(() => String, { description: "SELLER, BUYER or ATTORNEY" }) role: string;
  @Field(() => String) roleLabel: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) closingOn: string | null;
}

@ObjectType("InflowInspection", { description: "The inspection of a property for inflow sources (SUL 702-703; Huron III-8)", simpleResolvers: true })
export class InspectionType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => String) number: string;
  @Field(() => String, { description: "SALE (the Tax Assessor's notice), REQUEST (ahead of closing) or OPERATOR" }) origin: string;
  @Field(() => String, { description: "OPEN, ORDERED, PASSED or VIOLATION" }) status: string;
  @Field(() => ID) propertyId: string;
  @Field(() => String) taxParcel: string;
  @Field(() => String) address: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the sale the Tax Assessor gave notice of" }) soldOn: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the closing the requesters named" }) closingOn: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) orderIssuedOn: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the date the Operator set to disconnect by" }) orderDeadline: string | null;
  @Field(() => String, { nullable: true }) certificateNumber: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) certificateIssuedOn: string | null;
  @Field(() => String, { nullable: true }) certificateBasis: string | null;
  @Field(() => ID, { nullable: true, description: "The certificate's PDF, at /documents/:id" }) certificateDocumentId: string | null;
  @Field(() => Date) openedAt: Date;
}

const InspectionPage = PageOf("InflowInspectionPage", () => InspectionType);

@ObjectType("InflowRowError", { simpleResolvers: true })
export class RowErrorType {
  @Field(() => Int) line: number;
  @Field(() => String) reason: string;
}

@ObjectType("InflowSaleImport", { description: "An import of the Tax Assessor's sales (SUL 703), with its bad rows", simpleResolvers: true })
export class SaleImportType {
  @Field(() => ID) id: string;
  @Field(() => String) fileName: string;
  @Field(() => Int) rowsRead: number;
  @Field(() => Int) rowsImported: number;
  @Field(() => Int) inspectionsOpened: number;
  @Field(() => [RowErrorType]) errors: RowErrorType[];
  @Field(() => Date) createdAt: Date;
}

@ObjectType("InflowSaleRecorded", { simpleResolvers: true })
export class SaleRecordedType {
  @Field(() => ID) saleId: string;
  @Field(() => ID, { nullable: true, description: "The inspection the sale opened, or the one already under way" }) inspectionId: string | null;
}

@ObjectType("InflowCertificateCheck", { description: "What anyone can check of an inflow compliance certificate: the property, the day, the result", simpleResolvers: true })
export class CertificateCheckType {
  @Field(() => String) number: string;
  @Field(() => String) districtName: string;
  @Field(() => String) address: string;
  @Field(() => String) taxParcel: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) issuedOn: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) inspectedOn: string;
  @Field(() => String) result: string;
  @Field(() => String) section: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD: a later inspection found an inflow source connected" }) laterFindingOn: string | null;
}

@ObjectType("InflowSourceKind", { simpleResolvers: true })
export class SourceKindType {
  @Field(() => String) kind: string;
  @Field(() => String) label: string;
}

@ObjectType("InflowRules", { description: "A district's law of inflow, from its rulebook in force today", simpleResolvers: true })
export class RulesType {
  @Field(() => ID) districtId: string;
  @Field(() => String) districtName: string;
  @Field(() => String, { description: "District Operator or Superintendent" }) inspectorTitle: string;
  @Field(() => Boolean, { description: "The law has the inspection at sale and the certificate (SUL 702-703; Huron: none)" }) inspectsAtSale: boolean;
  @Field(() => String) prohibitionSection: string;
  @Field(() => String) saleSection: string;
  @Field(() => Float, { nullable: true, description: "Feet (SUL 702: 100)" }) stormSewerWithinFeet: number | null;
  @Field(() => Float, { nullable: true, description: "The Town Board's inflow surcharge, times the normal volume charge (SUL 705); null until set" }) surchargeFactor: number | null;
  @Field(() => Float, { nullable: true, description: "The statute's cap (SUL 705: 5)" }) surchargeMaxFactor: number | null;
  @Field(() => String) surchargeSection: string;
  @Field(() => Boolean, { description: "No fee: the law sets none for the inspection and gives the Board none to set" }) requestFree: boolean;
  @Field(() => Boolean, { description: "The District Operator determines a property's inflow and it is billed on its sewer bill (SUL 705; Huron: none)" }) chargesInflow: boolean;
  @Field(() => String, { description: "The section of that charge" }) chargeSection: string;
  @Field(() => [SourceKindType], { description: "How the amount of inflow is determined (kind, label)" }) determinationMethods: SourceKindType[];
  @Field(() => [SourceKindType]) sourceKinds: SourceKindType[];
}

@ObjectType("InflowDischargingProperty", { description: "A property found discharging inflow in a billing period (SUL 705)", simpleResolvers: true })
export class DischargingType {
  @Field(() => ID) propertyId: string;
  @Field(() => String) taxParcel: string;
  @Field(() => String) address: string;
  @Field(() => String, { description: "YYYY-MM-DD, the first visit that found it" }) foundOn: string;
}

@ObjectType("InflowEnforcementOpened", { simpleResolvers: true })
export class EnforcementOpenedType {
  @Field(() => ID) actionId: string;
  @Field(() => String) number: string;
}

// ---------------------------------------------------------------------------------------------
// Inputs

@InputType("RecordInflowSaleInput")
export class SaleInput {
  @Field(() => ID) districtId: string;
  @Field(() => String) taxParcel: string;
  @Field(() => String, { description: "YYYY-MM-DD or MM/DD/YYYY, not after today" }) soldOn: string;
  @Field(() => String) buyerName: string;
}

@InputType("ImportInflowSalesInput")
export class ImportInput {
  @Field(() => ID) districtId: string;
  @Field(() => String) fileName: string;
  @Field(() => String, { description: "The CSV text: a header line (parcel, sale date, buyer), then one sale a line" }) csv: string;
}

@InputType("RequestInflowInspectionInput")
export class RequestInput {
  @Field(() => ID) districtId: string;
  @Field(() => String) taxParcel: string;
  @Field(() => String, { description: "SELLER, BUYER or ATTORNEY" }) role: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) closingOn?: string | null;
}

@InputType("OpenInflowInspectionInput")
export class OpenInput {
  @Field(() => ID) districtId: string;
  @Field(() => String) taxParcel: string;
}

@InputType("InflowSourceInput")
export class SourceInput {
  @Field(() => String) kind: string;
  @Field(() => String, { nullable: true, description: "Where it is, e.g. basement, north corner" }) location?: string | null;
  @Field(() => String, { description: "CONNECTED, DISCONNECTED or RECONNECTED" }) state: string;
}

@InputType("InflowPhotoInput")
export class PhotoInput {
  @Field(() => String) filename: string;
  @Field(() => String) contentBase64: string;
}

@InputType("RecordInflowVisitInput")
export class VisitInput {
  @Field(() => ID) inspectionId: string;
  @Field(() => String, { description: "YYYY-MM-DD, not after today" }) visitedOn: string;
  @Field(() => Float, { nullable: true, description: "Feet from the property line to the nearest separate storm sewer; omit when none" }) stormSewerFeet?: number | null;
  @Field(() => Boolean) naturalDrainageAdequate: boolean;
  @Field(() => [SourceInput]) sources: SourceInput[];
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD: required when connections must be disconnected" }) orderDeadline?: string | null;
  @Field(() => String, { nullable: true }) notes?: string | null;
  @Field(() => [PhotoInput], { nullable: true }) photos?: PhotoInput[] | null;
}

@InputType("RecordInflowDeterminationInput")
export class DeterminationInput {
  @Field(() => ID) inspectionId: string;
  @Field(() => String, { description: "YYYY-MM-DD, the first day of the inflow determined" }) periodFrom: string;
  @Field(() => String, { description: "YYYY-MM-DD, the last day, not after today" }) periodTo: string;
  @Field(() => Int, { description: "Gallons of inflow over the period, from 1" }) gallons: number;
  @Field(() => String, { description: "CONTROL_MANHOLE_METER, PUMP_RUN_TIME or ESTIMATE" }) method: string;
  @Field(() => String, { description: "How the amount was determined: the readings, the run time and the pump's rate, or what the estimate rests on" }) note: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, after today: a control manhole is required by this day" }) controlManholeBy?: string | null;
}

@InputType("WithdrawInflowDeterminationInput")
export class WithdrawDeterminationInput {
  @Field(() => ID) determinationId: string;
  @Field(() => String, { description: "Why it is withdrawn (up to 1,000 characters); the owner reads it" }) reason: string;
}

@InputType("OpenInflowEnforcementInput")
export class EnforcementInput {
  @Field(() => ID) sourceId: string;
  @Field(() => String, { nullable: true, description: "The enforcement action's kind; NOTICE_OF_VIOLATION when omitted" }) kind?: string | null;
  @Field(() => String, { nullable: true, description: "The person served; the owner of record when omitted and in the portal" }) respondentEmail?: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD" }) correctBy?: string | null;
  @Field(() => String, { nullable: true }) requirements?: string | null;
}

// ---------------------------------------------------------------------------------------------
// Loaders: one query per kind of related row, whatever the number of inspections in a response

const rows = perRequest((ctx: Context) => ({
  visits: new DataLoader(async (ids: readonly string[]) => groupBy(await inflow.visitsOf(ctx.ds, ids), (r) => r.inspectionId, ids)),
  sources: new DataLoader(async (ids: readonly string[]) => groupBy(await inflow.sourcesOf(ctx.ds, ids), (r) => r.inspectionId, ids)),
  photos: new DataLoader(async (ids: readonly string[]) => groupBy(await inflow.photosOf(ctx.ds, ids), (r) => r.inspectionId, ids)),
  parties: new DataLoader(async (ids: readonly string[]) => groupBy(await inflow.partiesOf(ctx.ds, ids), (r) => r.inspectionId, ids)),
  determinations: new DataLoader(async (ids: readonly string[]) => groupBy(await inflow.determinationsOf(ctx.ds, ids), (r) => r.inspectionId, ids)),
}));

const OUTCOME_LABELS: Record<string, string> = { PASSED: "Passed", ORDERED: "Disconnection ordered", VIOLATION: "Prohibited connection found" };

const viewerOf = (ctx: Context) => {
  if (!ctx.viewer) throw unauthenticated();
  return ctx.viewer;
};

async function rulesOf(ctx: Context, d: District): Promise<RulesType> {
  const rb = await rulebookOn(ctx.ds, d);
  const s = inflowSurcharge(rb);
  const within = rb.entry("inflow.stormSewerWithinFeet").value;
  return {
    districtId: d.id,
    districtName: d.name,
    inspectorTitle: d.operatorTitle,
    inspectsAtSale: inspectsAtSale(rb),
    prohibitionSection: rb.entry("inflow.newSourcesProhibited").section,
    saleSection: inspectsAtSale(rb) ? articleSection(rb, 703) : rb.entry("inflow.disconnectOnSaleEnabled").section,
    stormSewerWithinFeet: typeof within === "number" ? within : null,
    surchargeFactor: s.factor,
    surchargeMaxFactor: s.maxFactor,
    surchargeSection: s.section,
    requestFree: true,
    chargesInflow: chargesInflow(rb),
    chargeSection: chargeSection(rb),
    determinationMethods: DETERMINATION_METHODS.map((kind) => ({ kind, label: DETERMINATION_METHOD_LABELS[kind] })),
    sourceKinds: SOURCE_KINDS.map((kind) => ({ kind, label: SOURCE_KIND_LABELS[kind] })),
  };
}

// ---------------------------------------------------------------------------------------------
// Resolver

@Resolver(() => InspectionType)
export class InflowResolver {
  @FieldResolver(() => String, { description: "The status in words" })
  statusLabel(@Root() i: InspectionRow): string {
    return inflow.STATUS_LABELS[i.status];
  }

  @FieldResolver(() => String)
  originLabel(@Root() i: InspectionRow): string {
    return inflow.ORIGIN_LABELS[i.origin];
  }

  @FieldResolver(() => String, { nullable: true, description: "YYYY-MM-DD: the order's date while ordered, the closing date while to inspect" })
  dueOn(@Root() i: InspectionRow): string | null {
    return inflow.dueOn(i);
  }

  @FieldResolver(() => Int, { nullable: true, description: "Calendar days left to dueOn in the district's zone (negative when past)" })
  daysLeft(@Root() i: InspectionRow): number | null {
    return inflow.daysLeftOf(i);
  }

  @FieldResolver(() => String, { description: "YYYY-MM-DD: today in the district's zone (a form's default day)" })
  today(@Root() i: InspectionRow): string {
    return dateIn(i.timeZone);
  }

  @FieldResolver(() => String, { nullable: true, description: "The owner of record; the district's staff only" })
  ownerName(@Root() i: InspectionRow, @Ctx() ctx: Context): string | null {
    return isStaff(ctx.viewer, i.districtId) ? i.ownerName : null;
  }

  @FieldResolver(() => String, { nullable: true, description: "The buyer the Tax Assessor named; the district's staff only" })
  buyerName(@Root() i: InspectionRow, @Ctx() ctx: Context): string | null {
    return isStaff(ctx.viewer, i.districtId) ? i.buyerName : null;
  }

  @FieldResolver(() => [VisitType], { description: "Every visit, oldest first, with its sources and photos" })
  async visits(@Root() i: InspectionRow, @Ctx() ctx: Context): Promise<VisitType[]> {
    const staff = isStaff(ctx.viewer, i.districtId);
    const [visits, sources, photos] = await Promise.all([rows(ctx).visits.load(i.id), rows(ctx).sources.load(i.id), rows(ctx).photos.load(i.id)]);
    const rb = visits.length ? await rulebookById(ctx.ds, i.rulebookVersionId) : null;
    return visits.map((v) => ({
      ...v,
      outcomeLabel: OUTCOME_LABELS[v.outcome],
      sources: sources
        .filter((s) => s.visitId === v.id)
        .map((s) => ({
          id: s.id,
          kind: s.kind,
          kindLabel: SOURCE_KIND_LABELS[s.kind as SourceKind],
          location: s.location,
          state: s.state,
          stateLabel: SOURCE_STATE_LABELS[s.state as SourceState],
          enforceable: staff && !!rb && enforceable(rb, s.state).ok && !s.enforcementActionId,
          enforcementActionId: staff ? s.enforcementActionId : null,
          enforcementNumber: staff ? s.enforcementNumber : null,
        })),
      photos: photos.filter((p) => p.visitId === v.id).map((p) => ({ documentId: p.documentId, filename: p.filename })),
    }));
  }

  @FieldResolver(() => [PartyType], { description: "Who asked for it or follows it; the district's staff only" })
  async parties(@Root() i: InspectionRow, @Ctx() ctx: Context): Promise<PartyType[]> {
    if (!isStaff(ctx.viewer, i.districtId)) return [];
    return (await rows(ctx).parties.load(i.id)).map((p) => ({ name: p.name, role: p.role, roleLabel: inflow.PARTY_ROLE_LABELS[p.role as PartyRole], closingOn: p.closingOn }));
  }

  @FieldResolver(() => [DeterminationType], { description: "The District Operator's determinations of the amount of inflow, oldest first, with the bill carrying each (SUL 705)" })
  async determinations(@Root() i: InspectionRow, @Ctx() ctx: Context): Promise<DeterminationType[]> {
    return (await rows(ctx).determinations.load(i.id)).map((d) => ({ ...d, methodLabel: DETERMINATION_METHOD_LABELS[d.method as DeterminationMethod] ?? d.method }));
  }

  @FieldResolver(() => Boolean, { description: "The viewer is the district's District Operator (records findings, opens enforcement)" })
  canInspect(@Root() i: InspectionRow, @Ctx() ctx: Context): boolean {
    return !!ctx.viewer?.staffRoles.some((r) => r.role === "OPERATOR" && r.districtId === i.districtId);
  }

  @Query(() => InspectionType, { description: "An inflow inspection: the district's staff, the owner of record and its parties" })
  @Access("SIGNED_IN")
  async inflowInspection(@Arg("id", () => ID) id: string, @Ctx() ctx: Context): Promise<InspectionRow> {
    return inflow.getInspection(ctx.ds, viewerOf(ctx), id);
  }

  @Query(() => [InspectionType], { description: "Inspections of properties I own of record, or that I asked for, newest first" })
  @Access("SIGNED_IN")
  async myInflowInspections(@Ctx() ctx: Context): Promise<InspectionRow[]> {
    return inflow.myInspections(ctx.ds, viewerOf(ctx));
  }

  @Query(() => InspectionPage, { description: "The district's inflow inspections, newest first (its staff)" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async districtInflowInspections(
    @Arg("districtId", () => ID) districtId: string,
    @Arg("status", () => String, { nullable: true }) status: string | null,
    @Arg("first", () => Int, { nullable: true }) first: number | null,
    @Arg("after", () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: Context,
  ) {
    return inflow.districtInspections(ctx.ds, viewerOf(ctx), { districtId, status, first, after });
  }

  @Query(() => SaleImportType, { description: "One import of the Tax Assessor's sales with its report (the district's staff)" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async inflowSaleImport(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return inflow.getSaleImport(ctx.ds, viewerOf(ctx), id);
  }

  @Query(() => CertificateCheckType, { nullable: true, description: "Anyone checks an inflow compliance certificate by its number; null when no certificate has it" })
  @Access("PUBLIC")
  async inflowCertificate(@Arg("number", () => String) number: string, @Ctx() ctx: Context): Promise<PublicCertificate | null> {
    return inflow.publicCertificate(ctx.ds, number);
  }

  @Query(() => [RulesType], { description: "Each district's law of inflow (SUL 701-705; Huron III-8)" })
  @Access("PUBLIC")
  async inflowRules(@Ctx() ctx: Context): Promise<RulesType[]> {
    const districts = await ctx.ds.getRepository(District).find({ order: { name: "ASC" } });
    return Promise.all(districts.map((d) => rulesOf(ctx, d)));
  }

  @Query(() => [DischargingType], { description: "Properties found discharging inflow in a period, for the bill's 705 surcharge (the district's staff)" })
  @Access("CLERK", "OPERATOR", "BOARD", "ADMIN")
  async propertiesDischargingInflow(@Arg("districtId", () => ID) districtId: string, @Arg("from", () => String) from: string, @Arg("to", () => String) to: string, @Ctx() ctx: Context) {
    return inflow.propertiesDischargingInflow(ctx.ds, viewerOf(ctx), { districtId, from, to });
  }

  @Mutation(() => SaleRecordedType, { description: "The District Operator enters a sale the Tax Assessor gave notice of; it opens the property's inspection (SUL 703)" })
  @Access("OPERATOR")
  async recordInflowSale(@Arg("input", () => SaleInput) input: SaleInput, @Ctx() ctx: Context) {
    return inflow.recordSale(ctx.ds, viewerOf(ctx), input, metaOf(ctx));
  }

  @Mutation(() => SaleImportType, { description: "The District Operator imports the Tax Assessor's CSV of sales: the good rows open inspections, each bad row is reported with its line" })
  @Access("OPERATOR")
  async importInflowSales(@Arg("input", () => ImportInput) input: ImportInput, @Ctx() ctx: Context) {
    return inflow.importSales(ctx.ds, viewerOf(ctx), input, metaOf(ctx));
  }

  @Mutation(() => InspectionType, { description: "A seller, buyer or attorney asks for the inspection ahead of closing (no fee: none is set)" })
  @Access("SIGNED_IN")
  async requestInflowInspection(@Arg("input", () => RequestInput) input: RequestInput, @Ctx() ctx: Context): Promise<InspectionRow> {
    return inflow.requestInspection(ctx.ds, viewerOf(ctx), input, metaOf(ctx));
  }

  @Mutation(() => InspectionType, { description: "The District Operator opens an inspection of a property without a sale" })
  @Access("OPERATOR")
  async openInflowInspection(@Arg("input", () => OpenInput) input: OpenInput, @Ctx() ctx: Context): Promise<InspectionRow> {
    return inflow.openInspection(ctx.ds, viewerOf(ctx), input, metaOf(ctx));
  }

  @Mutation(() => InspectionType, { description: "The District Operator records a visit's findings: a pass (and its certificate), a disconnection order, or a violation" })
  @Access("OPERATOR")
  async recordInflowVisit(@Arg("input", () => VisitInput) input: VisitInput, @Ctx() ctx: Context): Promise<InspectionRow> {
    return inflow.recordVisit(ctx.ds, ctx.config, viewerOf(ctx), input, metaOf(ctx));
  }

  @Mutation(() => InspectionType, { description: "The District Operator records the amount of inflow determined on an inspection that found a source connected, billed on the property's sewer bill (SUL 705)" })
  @Access("OPERATOR")
  async recordInflowDetermination(@Arg("input", () => DeterminationInput) input: DeterminationInput, @Ctx() ctx: Context): Promise<InspectionRow> {
    return inflow.recordDetermination(ctx.ds, viewerOf(ctx), input, metaOf(ctx));
  }

  @Mutation(() => InspectionType, {
    description: "The District Operator withdraws a determination of inflow no issued bill carries (a wrong figure or days), with the reason: kept on the record, never billed, its days free to determine again",
  })
  @Access("OPERATOR")
  async withdrawInflowDetermination(@Arg("input", () => WithdrawDeterminationInput) input: WithdrawDeterminationInput, @Ctx() ctx: Context): Promise<InspectionRow> {
    return withdrawDetermination(ctx.ds, viewerOf(ctx), input, metaOf(ctx));
  }

  @Mutation(() => EnforcementOpenedType, { description: "The District Operator opens an enforcement action from a finding (SUL 704; Huron III-8, Article V)" })
  @Access("OPERATOR")
  async openInflowEnforcement(@Arg("input", () => EnforcementInput) input: EnforcementInput, @Ctx() ctx: Context) {
    return inflow.openEnforcement(ctx.ds, viewerOf(ctx), input, metaOf(ctx));
  }
}
