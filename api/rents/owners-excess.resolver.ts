import { Arg, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from "type-graphql";
import { Access } from "../graphql/access.js";
import { metaOf, type Context } from "../graphql/context.js";
import { PaymentType } from "../payments/payments.resolver.js";
import { LedgerLineType, OpenBillType } from "./ledger.resolver.js";
import * as excess from "./owners-excess.js";

/** GraphQL of a Huron owner's excess bills' money (api/rents/owners-excess.ts; Huron VI-2, VI-3, VI-4); thin. */

@ObjectType("OwnersExcessBalance", { description: "A property's owner's excess bills on a shared meter (Huron VI-2): their balance, past due part, bills open and history" })
class ExcessMoneyType {
  @Field(() => ID) propertyId: string;
  @Field(() => ID) districtId: string;
  @Field(() => String) title: string;
  @Field(() => String, { description: "The owner of record" }) ownerName: string;
  @Field(() => String) asOf: string;
  @Field(() => Int, { description: "Above zero owed; below zero a credit (an overpayment)" }) balanceCents: number;
  @Field(() => Int) pastDueCents: number;
  @Field(() => Boolean, { description: "The viewer may pay it online (the property's owner of record)" }) canPay: boolean;
  @Field(() => Boolean, { description: "The viewer records counter payments (the district's Town Clerk)" }) canRecordPayment: boolean;
  @Field(() => [LedgerLineType]) lines: LedgerLineType[];
  @Field(() => [OpenBillType]) openBills: OpenBillType[];
}

@InputType("PayOwnersExcessInput")
class PayInput {
  @Field(() => ID) propertyId: string;
  @Field(() => Int, { nullable: true, description: "Cents; the balance when left out" }) amountCents?: number | null;
}

@InputType("OwnersExcessCounterPaymentInput")
class CounterInput {
  @Field(() => ID) propertyId: string;
  @Field(() => Int) amountCents: number;
  @Field(() => String, { description: "cash or check" }) method: string;
  @Field(() => String, { nullable: true }) checkNumber?: string | null;
}

@Resolver()
export class OwnersExcessResolver {
  @Access("SIGNED_IN")
  @Query(() => ExcessMoneyType, { description: "A property's owner's excess bills' balance and history: its owner of record, its district's staff" })
  ownersExcessBalance(@Arg("propertyId", () => ID) propertyId: string, @Ctx() ctx: Context) {
    return excess.ownersExcessMoney(ctx.ds, ctx.viewer!, propertyId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => PaymentType, { description: "The owner of record starts paying toward the property's owner's excess bills (then /payments/:id)" })
  payOwnersExcess(@Arg("input", () => PayInput) input: PayInput, @Ctx() ctx: Context) {
    return excess.payOwnersExcess(ctx.ds, ctx.viewer!, input, { requestId: ctx.requestId });
  }

  @Access("CLERK")
  @Mutation(() => PaymentType, { description: "The Town Clerk records cash or a check taken at the counter toward a property's owner's excess bills, with a receipt" })
  recordOwnersExcessCounterPayment(@Arg("input", () => CounterInput) input: CounterInput, @Ctx() ctx: Context) {
    return excess.recordOwnersExcessCounterPayment(ctx.ds, ctx.viewer!, input, metaOf(ctx));
  }
}
