import { Arg, Ctx, Field, ID, Int, ObjectType, Query, Resolver } from "type-graphql";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import type { Payment } from "./payment.entity.js";
import { PaymentType } from "./payments.resolver.js";
import * as payouts from "./payouts.service.js";

@ObjectType("StripePayout", { description: "Money Stripe paid out of the district's own account to its bank" })
export class StripePayoutType {
  @Field(() => String, { description: "Stripe's payout id (po_...)" }) id: string;
  @Field(() => Int, { description: "Integer cents" }) amountCents: number;
  @Field(() => String) currency: string;
  @Field(() => String, { description: "The date Stripe expects it at the bank (YYYY-MM-DD, the district's zone)" }) arrivalDate: string;
  @Field(() => Date) createdAt: Date;
  @Field(() => String, { description: "paid, pending, in_transit, canceled or failed (Stripe's words)" }) status: string;
  @Field(() => Boolean, { description: "Made by Stripe's payout schedule; Stripe lists the payments of these only" }) automatic: boolean;
  @Field(() => String, { nullable: true, description: "standard or instant" }) method: string | null;
  @Field(() => String, { nullable: true }) description: string | null;
  @Field(() => String, { nullable: true, description: "Why the bank refused it, when it failed" }) failureMessage: string | null;
}

@ObjectType("StripePayoutPage", { description: "A page of the district's payouts, newest first; or, when there are none to read, why" })
export class StripePayoutPageType {
  @Field(() => ID) districtId: string;
  @Field(() => String, { nullable: true, description: "The district's connected account the payouts were read on" }) accountId: string | null;
  @Field(() => String, { nullable: true, description: "Why there are no payouts to read (no Stripe keys, no connected account), in words" }) notice: string | null;
  @Field(() => [StripePayoutType]) payouts: StripePayoutType[];
  @Field(() => String, { nullable: true, description: "Pass as `after` for the next (older) page" }) nextCursor: string | null;
}

@ObjectType("StripePayoutLine", { description: "A charge, refund or other movement a payout settled, with Stripe's fee" })
export class StripePayoutLineType {
  @Field(() => String, { description: "Stripe's balance transaction (txn_...)" }) id: string;
  @Field(() => String, { description: "charge, payment, refund, adjustment, ... (Stripe's words)" }) type: string;
  @Field(() => String, { nullable: true }) description: string | null;
  @Field(() => Date) createdAt: Date;
  @Field(() => Int, { description: "Integer cents; negative for a refund" }) amountCents: number;
  @Field(() => Int, { description: "Stripe's fee, integer cents" }) feeCents: number;
  @Field(() => Int, { description: "Amount less the fee, integer cents" }) netCents: number;
  @Field(() => String, { nullable: true, description: "The charge, refund or dispute (ch_..., re_..., du_...)" }) sourceId: string | null;
  @Field(() => String, { nullable: true }) paymentIntentId: string | null;
  @Field(() => PaymentType, { nullable: true, description: "The portal's payment; null when the portal does not know this money" }) payment: Payment | null;
  @Field(() => String, { nullable: true, description: "The portal's refund receipt, for a refund the portal made" }) refundReceiptNumber: string | null;
}

@ObjectType("StripePayoutTotals")
export class StripePayoutTotalsType {
  @Field(() => Int) amountCents: number;
  @Field(() => Int) feeCents: number;
  @Field(() => Int, { description: "Equals the payout's amount when every line is listed" }) netCents: number;
}

@ObjectType("StripePayoutReport", { description: "One payout with the payments it settled, for reconciling the bank deposit" })
export class StripePayoutReportType {
  @Field(() => ID) districtId: string;
  @Field(() => String, { nullable: true }) accountId: string | null;
  @Field(() => String, { nullable: true, description: "Why there is nothing to read (no Stripe keys, no connected account), in words" }) notice: string | null;
  @Field(() => StripePayoutType, { nullable: true }) payout: StripePayoutType | null;
  @Field(() => [StripePayoutLineType]) lines: StripePayoutLineType[];
  @Field(() => StripePayoutTotalsType) totals: StripePayoutTotalsType;
  @Field(() => Int, { description: "Lines of money the portal does not know" }) unknownCount: number;
  @Field(() => Boolean, { description: "False when the payout has more lines than listed" }) complete: boolean;
}

@ObjectType("StripePayoutCsv")
export class StripePayoutCsvType {
  @Field(() => String) filename: string;
  @Field(() => String) csv: string;
}

@Resolver()
export class PayoutsResolver {
  @Access("CLERK", "ADMIN")
  @Query(() => StripePayoutPageType, { description: "Clerk or ADMIN of the district: its Stripe payouts to its bank, newest first; from/to: arrival dates (YYYY-MM-DD)" })
  districtStripePayouts(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("from", () => String, { nullable: true }) from?: string,
    @Arg("to", () => String, { nullable: true }) to?: string,
    @Arg("after", () => String, { nullable: true }) after?: string,
    @Arg("first", () => Int, { nullable: true }) first?: number,
  ) {
    return payouts.districtPayouts(ctx.ds, ctx.config, ctx.viewer!, { districtId, from, to, after, first });
  }

  @Access("CLERK", "ADMIN")
  @Query(() => StripePayoutReportType, { description: "Clerk or ADMIN of the district: one payout and the payments it settled, with Stripe's fees" })
  districtStripePayout(@Arg("districtId", () => ID) districtId: string, @Arg("payoutId", () => String) payoutId: string, @Ctx() ctx: Context) {
    return payouts.districtPayout(ctx.ds, ctx.config, ctx.viewer!, districtId, payoutId);
  }

  @Access("CLERK", "ADMIN")
  @Query(() => StripePayoutCsvType, { description: "Clerk or ADMIN of the district: one payout's lines as CSV, with a total line" })
  districtStripePayoutCsv(@Arg("districtId", () => ID) districtId: string, @Arg("payoutId", () => String) payoutId: string, @Ctx() ctx: Context) {
    return payouts.districtPayoutCsv(ctx.ds, ctx.config, ctx.viewer!, districtId, payoutId);
  }
}
