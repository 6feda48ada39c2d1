import { Arg, Ctx, Field, FieldResolver, Float, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { PageOf } from "../graphql/page.js";
import type { AccountView } from "./common.js";
import { loadPart } from "./owners-page.js";
import { myPropertiesPart } from "./register.service.js";
import * as rents from "./rents.service.js";
import { CLASS_LABELS, CLOSE_REASON_LABELS, OCCUPANCY_LABELS, formatEdus } from "./rules.js";

// ---------------------------------------------------------------------------------------------
// Types

@ObjectType("SewerPropertyOwner", { description: "An owner of record of a property, from one day to another (the present one has no last day)", simpleResolvers: true })
export class OwnerType {
  @Field(() => ID) id: string;
  @Field(() => String) ownerName: string;
  @Field(() => String, { nullable: true }) mailingAddress: string | null;
  @Field(() => String, { description: "YYYY-MM-DD" }) fromDate: string;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, the last day; null for the present owner" }) toDate: string | null;
}

@ObjectType("ServiceMeter", { description: "A water meter serving the account (SUL 1205); one meter may serve several users (Huron VI-2)", simpleResolvers: true })
export class MeterType {
  @Field(() => ID) id: string;
  @Field(() => String) meterNumber: string;
  @Field(() => String) installedOn: string;
  @Field(() => String, { nullable: true }) removedOn: string | null;
  @Field(() => Int, { description: "Open accounts this meter serves (more than one: a shared meter)" }) sharedWith: number;
}

@ObjectType("ServiceAssessmentRow", { description: "A row of the SUL 1203 EDU table as assessed: the count entered and its EDUs", simpleResolvers: true })
export class AssessedRowType {
  @Field(() => String) key: string;
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => String) unit: string;
  @Field(() => Float) perUnit: number;
  @Field(() => Int) count: number;
  @Field(() => String, { description: "count × the table's figure, to the thousandth" }) edus: string;
}

@ObjectType("ServiceAssessment", { description: "An account's assessment from a day on: EDUs under SUL 1203, or one user under Huron VI-2", simpleResolvers: true })
export class AssessmentType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "EDU or USER" }) basis: string;
  @Field(() => String) effectiveOn: string;
  @Field(() => [AssessedRowType]) rows: AssessedRowType[];
  @Field(() => String, { nullable: true, description: "EDUs of the account (EDU basis), e.g. 1.75" }) edus: string | null;
  @Field(() => String, { nullable: true, description: "EDUs determined from water usage (SUL 1203)" }) waterUsageEdus: string | null;
  @Field(() => String, { nullable: true }) waterUsageBasis: string | null;
  @Field(() => Int, { description: "The rulebook version whose table was used" }) rulebookVersion: number;
  @Field(() => Date) enteredAt: Date;
  @Field(() => String, { nullable: true }) enteredByName: string | null;
}

@ObjectType("ServiceFinalBill", { description: "What the final bill of a closed account will need", simpleResolvers: true })
export class FinalBillType {
  @Field(() => String, { description: "The leaving party's last day" }) lastDay: string;
  @Field(() => String, { nullable: true }) forwardingAddress: string | null;
  @Field(() => Int, { nullable: true }) finalReading: number | null;
  @Field(() => String, { nullable: true }) finalReadOn: string | null;
  @Field(() => String, { nullable: true }) meterNumber: string | null;
}

@ObjectType("ServiceAccount", { description: "A service account: an occupant of a property (Huron VI-2: a user), open from one day to another", simpleResolvers: true })
export class AccountType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => ID) propertyId: string;
  @Field(() => String) accountNumber: string;
  @Field(() => String, { description: "RESIDENTIAL, COMMERCIAL, INSTITUTIONAL or INDUSTRIAL" }) class: string;
  @Field(() => String) occupantName: string;
  @Field(() => String) openedOn: string;
  @Field(() => String, { nullable: true, description: "The last day served" }) closedOn: string | null;
  @Field(() => String, { nullable: true, description: "SALE, MOVE_OUT or DISCONTINUED" }) closeReason: string | null;
  @Field(() => FinalBillType, { nullable: true }) finalBill: FinalBillType | null;
  @Field(() => String, { description: "OCCUPIED, UNOCCUPIED or SEASONAL (Huron VI-5)" }) occupancy: string;
  @Field(() => String, { nullable: true, description: "The agreement of the users behind one meter, notified to the Clerk (Huron VI-2)" }) sharedMeterAgreement: string | null;
  @Field(() => ID, { nullable: true, description: "The lateral permit whose connection opened or last updated it" }) sourcePermitId: string | null;
  @Field(() => [MeterType]) meters: MeterType[];
  @Field(() => AssessmentType, { nullable: true }) assessment: AssessmentType | null;
}

@ObjectType("SewerProperty", { description: "A property in the register: tax parcel, address, owner of record, segment (SUL 1204)", simpleResolvers: true })
export class PropertyType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => String) districtName: string;
  @Field(() => String) districtSlug: string;
  @Field(() => String) taxParcel: string;
  @Field(() => String, { nullable: true }) streetNumber: string | null;
  @Field(() => String) street: string;
  @Field(() => String, { nullable: true }) city: string | null;
  @Field(() => String) zip: string;
  @Field(() => String) address: string;
  @Field(() => String, { nullable: true, description: "The segment of the POTW (SUL 1204), e.g. a pump station's" }) segment: string | null;
  @Field(() => String) ownerName: string;
  @Field(() => String, { nullable: true }) ownerMailingAddress: string | null;
  @Field(() => Int) openAccounts: number;
  @Field(() => [OwnerType], { nullable: true, description: "Owners of record, newest first (a property's page; to its owner only the present one)" }) owners?: OwnerType[];
  @Field(() => [AccountType], { nullable: true, description: "Accounts, oldest first (a property's page; to its owner those of their ownership)" }) accounts?: AccountType[];
}

export const PropertyPageType = PageOf("SewerPropertyPage", () => PropertyType);

@ObjectType("SewerRentTask", { description: "A Board figure the bills need that no resolution has set yet", simpleResolvers: true })
export class TaskType {
  @Field(() => String) key: string;
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => String) text: string;
}

@ObjectType("SewerRentRegister", { description: "The register's summary for the Clerk", simpleResolvers: true })
export class RegisterType {
  @Field(() => ID) districtId: string;
  @Field(() => String, { description: "EDU (SUL 1203) or USER (Huron VI-2)" }) basis: string;
  @Field(() => String) basisSection: string;
  @Field(() => String, { nullable: true }) basisNote: string | null;
  @Field(() => Int) openAccounts: number;
  @Field(() => String, { description: "EDUs of the open accounts today: what SUL 1203 divides the fixed costs by" }) totalEdus: string;
  @Field(() => Int) unassessedAccounts: number;
  @Field(() => Boolean, { description: "The law lets the service area be segmented (SUL 1204)" }) segmentsEnabled: boolean;
  @Field(() => String) segmentsSection: string;
  @Field(() => [TaskType]) tasks: TaskType[];
}

@ObjectType("EduWorksheetRow", { description: "A row of the district's EDU table (SUL 1203) with the account's count", simpleResolvers: true })
export class WorksheetRowType {
  @Field(() => String) key: string;
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => String) unit: string;
  @Field(() => String, { description: "What is counted: home, room, seat, square foot..." }) countOf: string;
  @Field(() => Float) perUnit: number;
  @Field(() => Int) count: number;
  @Field(() => String) edus: string;
}

@ObjectType("EduWorksheetWaterUsage", { description: 'The uses assessed "as determined by water usage" (SUL 1203)', simpleResolvers: true })
export class WorksheetWaterType {
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => String) uses: string;
  @Field(() => String, { nullable: true }) edus: string | null;
  @Field(() => String, { nullable: true }) basis: string | null;
}

@ObjectType("AssessmentWorksheet", { description: "The Clerk's worksheet for an account, from the rulebook in force today" })
export class WorksheetType {
  @Field(() => ID) accountId: string;
  @Field(() => String, { description: "EDU or USER" }) basis: string;
  @Field(() => String) section: string;
  @Field(() => String, { nullable: true }) note: string | null;
  @Field(() => [WorksheetRowType], { description: "Empty where the law has no EDU table (Huron)" }) rows: WorksheetRowType[];
  @Field(() => WorksheetWaterType, { nullable: true }) waterUsage: WorksheetWaterType | null;
  @Field(() => String, { nullable: true, description: "The account's present EDUs" }) total: string | null;
  @Field(() => String) occupancy: string;
  @Field(() => String, { nullable: true }) sharedMeterAgreement: string | null;
  @Field(() => Int, { description: "Months in the account's billing period (SUL 1206; Huron VI-3)" }) periodMonths: number;
  @Field(() => String) periodSection: string;
  @Field(() => Int) rulebookVersion: number;
  @Field(() => [TaskType]) tasks: TaskType[];
}

// ---------------------------------------------------------------------------------------------
// Inputs

@InputType("SewerPropertyInput")
export class PropertyInput {
  @Field(() => ID, { nullable: true, description: "Adding: the district" }) districtId?: string | null;
  @Field(() => String, { nullable: true, description: "Adding: the tax parcel (section-block-lot)" }) taxParcel?: string | null;
  @Field(() => String, { nullable: true }) streetNumber?: string | null;
  @Field(() => String, { nullable: true }) street?: string | null;
  @Field(() => String, { nullable: true }) city?: string | null;
  @Field(() => String, { nullable: true }) zip?: string | null;
  @Field(() => String, { nullable: true }) segment?: string | null;
  @Field(() => String, { nullable: true, description: "Adding: the owner of record" }) ownerName?: string | null;
  @Field(() => String, { nullable: true, description: "Adding: the owner's portal email, to let them see the property" }) ownerEmail?: string | null;
  @Field(() => String, { nullable: true }) ownerMailingAddress?: string | null;
  @Field(() => String, { nullable: true, description: "Adding: owner since (YYYY-MM-DD), today when not given" }) ownerSince?: string | null;
}

@InputType("RecordPropertySaleInput")
export class SaleInput {
  @Field(() => ID) propertyId: string;
  @Field(() => String, { description: "The buyer's first day as owner (YYYY-MM-DD); the seller's last day is the day before" }) transferOn: string;
  @Field(() => String) buyerName: string;
  @Field(() => String, { nullable: true }) buyerEmail?: string | null;
  @Field(() => String, { nullable: true }) buyerMailingAddress?: string | null;
  @Field(() => [ID], { nullable: true, description: "Accounts to close on the seller's last day" }) closeAccountIds?: string[] | null;
  @Field(() => String, { nullable: true, description: "Where the closed accounts' final bills go" }) forwardingAddress?: string | null;
  @Field(() => Boolean, { nullable: true }) buyerMovesIn?: boolean | null;
  @Field(() => String, { nullable: true }) buyerAccountClass?: string | null;
}

@InputType("OpenServiceAccountInput")
export class OpenInput {
  @Field(() => ID) propertyId: string;
  @Field(() => String, { description: "RESIDENTIAL, COMMERCIAL, INSTITUTIONAL or INDUSTRIAL" }) class: string;
  @Field(() => String) occupantName: string;
  @Field(() => String, { nullable: true, description: "The occupant's portal email, to let them see the account" }) occupantEmail?: string | null;
  @Field(() => String, { description: "First day served (YYYY-MM-DD)" }) openedOn: string;
}

@InputType("CloseServiceAccountInput")
export class CloseInput {
  @Field(() => ID) accountId: string;
  @Field(() => String, { description: "The leaving party's last day (YYYY-MM-DD)" }) lastDay: string;
  @Field(() => String, { description: "SALE, MOVE_OUT or DISCONTINUED" }) reason: string;
  @Field(() => String, { nullable: true }) forwardingAddress?: string | null;
  @Field(() => Int, { nullable: true }) finalReading?: number | null;
  @Field(() => String, { nullable: true }) finalReadOn?: string | null;
}

@InputType("EduCountInput")
export class CountInput {
  @Field(() => String, { description: "The table row's rulebook key, e.g. billing.edu.restaurantPerSeat" }) key: string;
  @Field(() => Int) count: number;
}

@InputType("AssessServiceAccountInput")
export class AssessInput {
  @Field(() => ID) accountId: string;
  @Field(() => String, { description: "From this day (YYYY-MM-DD), not after today" }) effectiveOn: string;
  @Field(() => [CountInput], { nullable: true, description: "SUL 1203: a count for each row that applies" }) counts?: CountInput[] | null;
  @Field(() => String, { nullable: true, description: "SUL 1203: EDUs determined from water usage, e.g. 2.5" }) waterUsageEdus?: string | null;
  @Field(() => String, { nullable: true }) waterUsageBasis?: string | null;
  @Field(() => String, { nullable: true, description: "Huron VI-5: OCCUPIED, UNOCCUPIED or SEASONAL" }) occupancy?: string | null;
  @Field(() => String, { nullable: true, description: "Huron VI-2: the users' agreement notified to the Clerk" }) sharedMeterAgreement?: string | null;
}

@InputType("AddServiceMeterInput")
export class AddMeterInput {
  @Field(() => ID) accountId: string;
  @Field(() => String) meterNumber: string;
  @Field(() => String) installedOn: string;
  @Field(() => Float, { nullable: true, description: "SUL 1205: a new meter's register reading when installed (later reads are measured from it)" }) startReading?: number | null;
}

@InputType("LinkIndustrialPermitInput")
export class LinkIndustrialPermitInput {
  @Field(() => ID) accountId: string;
  @Field(() => String, { nullable: true, description: "SUL 1202: the industrial discharge permit's number (empty to unlink)" }) permitNumber?: string | null;
}

@InputType("RemoveServiceMeterInput")
export class RemoveMeterInput {
  @Field(() => ID) accountId: string;
  @Field(() => ID) meterId: string;
  @Field(() => String) removedOn: string;
}

// ---------------------------------------------------------------------------------------------

const meta = (ctx: Context) => ({ requestId: ctx.requestId });
const STAFF = ["CLERK", "OPERATOR", "BOARD", "ADMIN"] as const;

@Resolver(() => AccountType)
export class ServiceAccountsResolver {
  @Access("SIGNED_IN")
  @Query(() => AccountType, { description: "An account: its district's staff, the property's owner of record (their ownership's accounts), or its occupant" })
  serviceAccount(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return rents.getAccount(ctx.ds, ctx.viewer!, id);
  }

  @Access(...STAFF)
  @Query(() => WorksheetType, { description: "The assessment worksheet of an account (SUL 1203's EDU table; Huron VI-2, VI-5), from the rulebook in force today" })
  assessmentWorksheet(@Arg("accountId", () => ID) accountId: string, @Ctx() ctx: Context) {
    return rents.worksheet(ctx.ds, ctx.viewer!, accountId);
  }

  @Access("CLERK")
  @Mutation(() => AccountType, { description: "The Town Clerk opens an account on a property (a move-in, a new user)" })
  openServiceAccount(@Arg("input", () => OpenInput) input: OpenInput, @Ctx() ctx: Context) {
    return rents.openAccount(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("CLERK")
  @Mutation(() => AccountType, { description: "The Town Clerk closes an account on the leaving party's last day, with what its final bill needs" })
  closeServiceAccount(@Arg("input", () => CloseInput) input: CloseInput, @Ctx() ctx: Context) {
    return rents.closeAccount(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("CLERK")
  @Mutation(() => AccountType, { description: "The Town Clerk saves the assessment worksheet (a new assessment from its day on; earlier ones are kept)" })
  assessServiceAccount(@Arg("input", () => AssessInput) input: AssessInput, @Ctx() ctx: Context) {
    return rents.assessAccount(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("CLERK")
  @Mutation(() => AccountType, { description: "The Town Clerk records a meter serving the account (a meter of the property already in service is shared)" })
  addServiceMeter(@Arg("input", () => AddMeterInput) input: AddMeterInput, @Ctx() ctx: Context) {
    return rents.addMeter(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("CLERK")
  @Mutation(() => AccountType, { description: "SUL 1202: the Town Clerk links the account to its industrial user's discharge permit (its results for a period make the surcharge)" })
  linkIndustrialPermit(@Arg("input", () => LinkIndustrialPermitInput) input: LinkIndustrialPermitInput, @Ctx() ctx: Context) {
    return rents.linkIndustrialPermit(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("CLERK")
  @Mutation(() => AccountType, { description: "The Town Clerk records a meter taken out of service" })
  removeServiceMeter(@Arg("input", () => RemoveMeterInput) input: RemoveMeterInput, @Ctx() ctx: Context) {
    return rents.removeMeter(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @FieldResolver(() => String)
  classLabel(@Root() a: AccountView) {
    return CLASS_LABELS[a.class];
  }

  @FieldResolver(() => String, { nullable: true })
  closeReasonLabel(@Root() a: AccountView) {
    return a.closeReason ? CLOSE_REASON_LABELS[a.closeReason] : null;
  }

  @FieldResolver(() => String)
  occupancyLabel(@Root() a: AccountView) {
    return OCCUPANCY_LABELS[a.occupancy];
  }
}

@Resolver(() => AssessmentType)
export class ServiceAssessmentsResolver {
  @FieldResolver(() => [AssessedRowType])
  rows(@Root() a: rents.AssessmentView) {
    return a.rows.map((r) => ({ ...r, edus: formatEdus(r.eduThousandths) }));
  }

  @FieldResolver(() => String, { nullable: true })
  waterUsageEdus(@Root() a: rents.AssessmentView) {
    return a.waterUsageThousandths === null ? null : formatEdus(a.waterUsageThousandths);
  }
}

@Resolver(() => WorksheetType)
export class AssessmentWorksheetResolver {
  @FieldResolver(() => [WorksheetRowType])
  rows(@Root() w: rents.Worksheet) {
    return w.rows.map((r) => ({ ...r, edus: formatEdus(r.eduThousandths) }));
  }
}

@Resolver(() => PropertyType)
export class SewerPropertiesResolver {
  @Access(...STAFF)
  @Query(() => PropertyPageType, { description: "The district's register of properties by tax parcel; search by the start of a parcel, address, street or owner, or an account number" })
  sewerProperties(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("search", () => String, { nullable: true }) search?: string | null,
    @Arg("first", () => Int, { nullable: true }) first?: number | null,
    @Arg("after", () => String, { nullable: true }) after?: string | null,
  ) {
    return rents.listProperties(ctx.ds, ctx.viewer!, districtId, { search, first, after });
  }

  @Access(...STAFF)
  @Query(() => RegisterType, { description: "The register's summary: the district's basis of assessment, open accounts, total EDUs, and the Board figures not yet set" })
  sewerRentRegister(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context) {
    return rents.registerSummary(ctx.ds, ctx.viewer!, districtId);
  }

  @Access("SIGNED_IN")
  @Query(() => PropertyType, { description: "A property with its owners and accounts: its district's staff, or its owner of record" })
  sewerProperty(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return rents.getProperty(ctx.ds, ctx.viewer!, id);
  }

  @Access("SIGNED_IN")
  @Query(() => [PropertyType], { description: "The signed-in person's properties (owner of record) and those of the accounts they occupy" })
  myServiceProperties(@Ctx() ctx: Context) {
    return loadPart(ctx, myPropertiesPart);
  }

  @Access("CLERK")
  @Mutation(() => PropertyType, { description: "The Town Clerk adds a property to the register with its owner of record" })
  addSewerProperty(@Arg("input", () => PropertyInput) input: PropertyInput, @Ctx() ctx: Context) {
    return rents.createProperty(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access("CLERK")
  @Mutation(() => PropertyType, { description: "The Town Clerk corrects a property's address or segment (the owner changes by a sale)" })
  updateSewerProperty(@Arg("id", () => ID) id: string, @Arg("input", () => PropertyInput) input: PropertyInput, @Ctx() ctx: Context) {
    return rents.updateProperty(ctx.ds, ctx.viewer!, id, input, meta(ctx));
  }

  @Access("CLERK")
  @Mutation(() => PropertyType, { description: "The Town Clerk records a sale: the new owner of record, the seller's accounts closed on their last day, the buyer's opened" })
  recordPropertySale(@Arg("input", () => SaleInput) input: SaleInput, @Ctx() ctx: Context) {
    return rents.recordSale(ctx.ds, ctx.viewer!, input, meta(ctx));
  }
}
