import { Arg, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from "type-graphql";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import * as autopay from "./autopay.service.js";
import "./autopay-charges.js";

/** GraphQL of autopay (api/rents/autopay.service.ts, autopay-charges.ts); thin. */

@ObjectType("AutopayCard", { description: "The card saved for autopay, on the district's own Stripe account (brand and last 4 only)", simpleResolvers: true })
export class AutopayCardType {
  @Field(() => String, { description: "visa, mastercard, ...; test for the test card" }) brand: string;
  @Field(() => String) last4: string;
  @Field(() => Int, { nullable: true }) expMonth: number | null;
  @Field(() => Int, { nullable: true }) expYear: number | null;
  @Field(() => Boolean, { description: "The labelled test card of a portal without Stripe keys: no money moves" }) test: boolean;
  @Field(() => String, { description: "Visa ending 4242" }) label: string;
}

@ObjectType("AutopayCharge", { description: "A bill's autopay charge: when it is due, what was charged, how it went", simpleResolvers: true })
export class AutopayChargeType {
  @Field(() => ID) billId: string;
  @Field(() => String) billNumber: string;
  @Field(() => String) dueOn: string;
  @Field(() => Int, { description: "The account's balance due charged (cents); 0 when not charged" }) amountCents: number;
  @Field(() => String, { description: "CHARGING, SUCCEEDED, RETRY, LEFT_TO_PAY, SKIPPED" }) status: string;
  @Field(() => String) statusText: string;
  @Field(() => Int) attempts: number;
  @Field(() => String, { nullable: true }) nextAttemptOn: string | null;
  @Field(() => ID, { nullable: true }) paymentId: string | null;
  @Field(() => String, { nullable: true }) receiptNumber: string | null;
}

@ObjectType("Autopay", { description: "A service account's autopay: the saved card, on or off, and its charges", simpleResolvers: true })
export class AutopayType {
  @Field(() => ID) accountId: string;
  @Field(() => String) accountNumber: string;
  @Field(() => String) address: string;
  @Field(() => ID) districtId: string;
  @Field(() => String) districtName: string;
  @Field(() => String, { description: "stripe, or test (no Stripe keys: the labelled test card)" }) provider: string;
  @Field(() => Boolean, { description: "Whether the district offers autopay now (its own Stripe account takes charges)" }) offered: boolean;
  @Field(() => String, { nullable: true }) notOfferedReason: string | null;
  @Field(() => Boolean, { description: "The viewer is the person billed, who manages it" }) canManage: boolean;
  @Field(() => AutopayCardType, { nullable: true }) card: AutopayCardType | null;
  @Field(() => Boolean, { description: "A card is being saved on Stripe's page" }) setupPending: boolean;
  @Field(() => Boolean) enabled: boolean;
  @Field(() => String, { nullable: true, description: "Bills due from this day on are charged" }) enabledOn: string | null;
  @Field(() => Int, { description: "A declined charge is tried again this many days later, once" }) retryDays: number;
  @Field(() => [AutopayChargeType], { description: "The latest charges, newest first" }) charges: AutopayChargeType[];
}

@ObjectType("AutopaySetup", { description: "Where to send the browser to save a card (Stripe's page)", simpleResolvers: true })
export class AutopaySetupType {
  @Field(() => String) url: string;
}

@InputType("SetAutopayInput")
export class SetAutopayInput {
  @Field(() => ID) accountId: string;
  @Field(() => Boolean) enabled: boolean;
}

@InputType("SaveTestAutopayCardInput")
export class SaveTestAutopayCardInput {
  @Field(() => ID) accountId: string;
  @Field(() => Boolean, { nullable: true, description: "A test card that declines (to see the retry)" }) declines?: boolean | null;
}

@Resolver(() => AutopayType)
export class AutopayResolver {
  @Access("SIGNED_IN")
  @Query(() => AutopayType, { description: "A service account's autopay: the person billed, and the district's staff (read only)" })
  serviceAccountAutopay(@Arg("accountId", () => ID) accountId: string, @Ctx() ctx: Context) {
    return autopay.getAutopay(ctx.ds, ctx.config, ctx.viewer!, accountId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => AutopaySetupType, { description: "The person billed starts saving a card on Stripe's page (the district's own account)" })
  startAutopaySetup(@Arg("accountId", () => ID) accountId: string, @Ctx() ctx: Context) {
    return autopay.startAutopaySetup(ctx.ds, ctx.config, ctx.viewer!, accountId, { requestId: ctx.requestId });
  }

  @Access("SIGNED_IN")
  @Mutation(() => AutopayType, { description: "Back from Stripe's page: keeps the card saved there and turns autopay on" })
  finishAutopaySetup(@Arg("accountId", () => ID) accountId: string, @Ctx() ctx: Context) {
    return autopay.finishAutopaySetup(ctx.ds, ctx.config, ctx.viewer!, accountId, { requestId: ctx.requestId, log: ctx.log });
  }

  @Access("SIGNED_IN")
  @Mutation(() => AutopayType, { description: "Without Stripe keys: saves the labelled test card and turns autopay on" })
  saveTestAutopayCard(@Arg("input", () => SaveTestAutopayCardInput) input: SaveTestAutopayCardInput, @Ctx() ctx: Context) {
    return autopay.saveTestAutopayCard(ctx.ds, ctx.config, ctx.viewer!, input, { requestId: ctx.requestId });
  }

  @Access("SIGNED_IN")
  @Mutation(() => AutopayType, { description: "Turns autopay on (with the saved card) or off" })
  setAutopay(@Arg("input", () => SetAutopayInput) input: SetAutopayInput, @Ctx() ctx: Context) {
    return autopay.setAutopay(ctx.ds, ctx.config, ctx.viewer!, input, { requestId: ctx.requestId });
  }

  @Access("SIGNED_IN")
  @Mutation(() => AutopayType, { description: "Removes the saved card (detached on Stripe) and turns autopay off" })
  removeAutopayCard(@Arg("accountId", () => ID) accountId: string, @Ctx() ctx: Context) {
    return autopay.removeAutopayCard(ctx.ds, ctx.config, ctx.viewer!, accountId, { requestId: ctx.requestId });
  }
}
