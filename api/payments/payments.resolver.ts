import DataLoader from "dataloader";
import { Arg, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { District } from "../districts/district.entity.js";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import * as payments from "./payments.service.js";
import type { Payment, Refund } from "./payment.entity.js";

@ObjectType("PaymentLine", { description: "One item of a payment, with the section of the law its amount comes from" })
export class PaymentLineType {
  @Field(() => String) code: string;
  @Field(() => String) label: string;
  @Field(() => String, { description: 'e.g. "Sewer Use Law 1212"' }) section: string;
  @Field(() => Int, { description: "Integer cents" }) amountCents: number;
  @Field(() => Boolean, { description: "A deposit that is returned later (SUL 606 B)" }) refundable: boolean;
  @Field(() => Boolean, { description: "Already refunded" }) refunded: boolean;
  @Field(() => Boolean, { description: "No deposit, but owed back now and not yet refunded: a fee for a service not given (a refused or cancelled load's dumping fee)" })
  owedBack: boolean;
}

@ObjectType("Refund", { description: "Money returned from a payment" })
export class RefundType {
  @Field(() => ID) id: string;
  @Field(() => Int) amountCents: number;
  @Field(() => String) reason: string;
  @Field(() => [String], { description: "The payment lines refunded" }) lineCodes: string[];
  @Field(() => String, { description: "card (back to the card, through Stripe), cash or check" }) method: string;
  @Field(() => String) receiptNumber: string;
  @Field(() => Date) createdAt: Date;
}

@ObjectType("Payment", { description: "A fee or deposit due to a district, and what became of it" })
export class PaymentType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "PENDING, PAID, CANCELLED, REFUNDED or PARTIALLY_REFUNDED" }) status: string;
  @Field(() => Int, { description: "Total, integer cents" }) amountCents: number;
  @Field(() => Int) refundedCents: number;
  @Field(() => String) currency: string;
  @Field(() => Date, { nullable: true }) paidAt: Date | null;
  @Field(() => String, { nullable: true }) receiptNumber: string | null;
  @Field(() => String, { nullable: true, description: "card, cash or check" }) method: string | null;
  @Field(() => String, { nullable: true }) checkNumber: string | null;
  @Field(() => String, { nullable: true, description: "stripe, test (the built-in test checkout) or counter" }) provider: string | null;
  @Field(() => String) payableType: string;
  @Field(() => ID) payableId: string;
  @Field(() => ID, { nullable: true, description: "Who pays it; null for quick pay (paid without signing in)" }) payerId: string | null;
  @Field(() => ID) districtId: string;
  @Field(() => ID, { description: "The rulebook version the amounts came from" }) rulebookVersionId: string;
  @Field(() => Date) createdAt: Date;
  @Field(() => Date, { nullable: true, description: "When it was cancelled while pending (kept if a card payment arrived after it)" }) cancelledAt: Date | null;
  @Field(() => String, { nullable: true, description: 'Why it was cancelled, e.g. "The application was withdrawn."' }) cancelReason: string | null;
}

@ObjectType("PaymentPage")
export class PaymentPage {
  @Field(() => [PaymentType]) payments: PaymentType[];
  @Field(() => String, { nullable: true, description: "Pass as `before` for the next (older) page" }) nextCursor: string | null;
}

@ObjectType("CheckoutStart", { description: "Where to send the browser to pay" })
export class CheckoutStart {
  @Field(() => String, { description: "Stripe's checkout page, or the portal's test checkout (a path)" }) url: string;
  @Field(() => String, { description: "stripe or test" }) provider: string;
}

@ObjectType("StripeConnection", { description: "A district's own Stripe account (Stripe Connect): its card payments are direct charges on it" })
export class StripeConnectionType {
  @Field(() => ID) districtId: string;
  @Field(() => Boolean, { description: "Stripe keys are set on this portal (without them, the labelled test checkout)" }) stripeConfigured: boolean;
  @Field(() => Boolean, { description: "The Connect webhook's secret is set (needed to confirm payments on the districts' accounts)" }) connectWebhookConfigured: boolean;
  @Field(() => String, { nullable: true, description: "The connected account's id (acct_...), if any" }) accountId: string | null;
  @Field(() => String, { nullable: true, description: "ADMIN (Stripe's onboarding) or OPERATOR (entered by the deployment's operator)" }) connectedBy: string | null;
  @Field(() => Boolean, { description: "Stripe lets the account take card payments" }) chargesEnabled: boolean;
  @Field(() => Boolean, { description: "The account's owner has given Stripe the details it asks for" }) detailsSubmitted: boolean;
  @Field(() => Boolean, { description: "Stripe pays the account's balance out to the district's bank" }) payoutsEnabled: boolean;
  @Field(() => Date, { nullable: true, description: "When the portal last heard from Stripe about the account" }) statusCheckedAt: Date | null;
  @Field(() => Boolean, { description: "The district's payments can be paid by card online now" }) takesCardPayments: boolean;
}

@ObjectType("StripeOnboarding", { description: "Stripe's hosted onboarding page for the district's account" })
export class StripeOnboarding {
  @Field(() => String, { description: "Stripe's page; good once, for a few minutes" }) url: string;
  @Field(() => String) accountId: string;
}

const connectionType = (v: payments.ConnectionView): StripeConnectionType => ({
  districtId: v.districtId,
  stripeConfigured: v.stripeConfigured,
  connectWebhookConfigured: v.connectWebhookConfigured,
  accountId: v.connection?.accountId ?? null,
  connectedBy: v.connection?.connectedBy ?? null,
  chargesEnabled: v.connection?.chargesEnabled ?? false,
  detailsSubmitted: v.connection?.detailsSubmitted ?? false,
  payoutsEnabled: v.connection?.payoutsEnabled ?? false,
  statusCheckedAt: v.connection?.statusCheckedAt ?? null,
  takesCardPayments: v.takesCardPayments,
});

@InputType()
export class RecordCounterPaymentInput {
  @Field(() => ID) paymentId: string;
  @Field(() => String, { description: "cash or check" }) method: string;
  @Field(() => String, { nullable: true, description: "Required for a check" }) checkNumber?: string | null;
}

@InputType()
export class RefundPaymentInput {
  @Field(() => ID) paymentId: string;
  @Field(() => [String], { description: "Codes of refundable lines (the as-built deposit) or of lines owed back (a refused load's dumping fee)" }) lineCodes: string[];
  @Field(() => String) reason: string;
  @Field(() => String, { nullable: true, description: "For a payment not made through Stripe: cash or check (default: check, or cash when paid in cash)" })
  method?: string | null;
}

/** Per-request loaders for payment fields: one query per kind, never one per row. */
const perRequest = new WeakMap<
  Context,
  { refunds: DataLoader<string, Refund[]>; titles: DataLoader<string, string>; owedBack: DataLoader<string, string[]>; connections: DataLoader<string, payments.StripeConnection | null> }
>();
const parseKeys = (keys: readonly string[]) =>
  keys.map((k) => {
    const [type, id] = k.split("\u0000");
    return { type, id };
  });
function loaders(ctx: Context) {
  let l = perRequest.get(ctx);
  if (!l) {
    l = {
      refunds: new DataLoader<string, Refund[]>(async (ids) => {
        const rows = await payments.refundsFor(ctx.ds, ids);
        return ids.map((id) => rows.filter((r) => r.paymentId === id));
      }),
      titles: new DataLoader<string, string>(async (keys) => {
        const parsed = keys.map((k) => {
          const [type, id] = k.split("\u0000");
          return { type, id };
        });
        const titles = await payments.payableTitles(ctx.ds, parsed);
        return keys.map((k) => titles.get(k) ?? "");
      }),
      owedBack: new DataLoader<string, string[]>(async (keys) => {
        const owed = await payments.linesOwedBack(ctx.ds, parseKeys(keys));
        return keys.map((k) => owed.get(k) ?? []);
      }),
      connections: new DataLoader<string, payments.StripeConnection | null>(async (districtIds) => {
        const found = await payments.connectionsOf(ctx.ds, districtIds);
        return districtIds.map((d) => found.get(d) ?? null);
      }),
    };
    perRequest.set(ctx, l);
  }
  return l;
}

@Resolver(() => PaymentType)
export class PaymentsResolver {
  @Access("PUBLIC")
  @Query(() => String, { description: '"stripe" when card payments go through Stripe; "test" for the built-in test checkout (no real money)' })
  paymentProviderMode(@Ctx() ctx: Context): string {
    return payments.paymentProviderMode(ctx.config);
  }

  @Access("SIGNED_IN")
  @Query(() => PaymentType, { description: "A payment: for its payer or staff of its district (NOT_FOUND otherwise)" })
  payment(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return payments.getPayment(ctx.ds, ctx.viewer!, id);
  }

  @Access("SIGNED_IN")
  @Query(() => [PaymentType], { description: "My payments, newest first" })
  myPayments(@Ctx() ctx: Context, @Arg("first", () => Int, { nullable: true }) first?: number) {
    return payments.myPayments(ctx.ds, ctx.viewer!, first ?? 50);
  }

  @Access("CLERK", "ADMIN")
  @Query(() => PaymentPage, { description: "Clerk or ADMIN: the district's payments, newest first; status filters by status, or REFUND_DUE for money received after cancellation" })
  districtPayments(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("status", () => String, { nullable: true }) status?: string,
    @Arg("first", () => Int, { nullable: true }) first?: number,
    @Arg("before", () => String, { nullable: true }) before?: string,
  ) {
    return payments.districtPayments(ctx.ds, ctx.viewer!, { districtId, status, first, before });
  }

  @Access("SIGNED_IN")
  @Query(() => PaymentType, { description: "The payment behind a test checkout session (only without Stripe keys; its payer only)" })
  testCheckout(@Arg("sessionId", () => String) sessionId: string, @Ctx() ctx: Context) {
    return payments.testCheckoutSession(ctx.ds, ctx.config, ctx.viewer!, sessionId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => CheckoutStart, { description: "The payer starts paying a pending payment; a repeated call returns the same checkout" })
  startCheckout(@Arg("paymentId", () => ID) paymentId: string, @Ctx() ctx: Context) {
    return payments.startCheckout(ctx.ds, ctx.config, ctx.viewer!, paymentId, { requestId: ctx.requestId });
  }

  @Access("SIGNED_IN")
  @Mutation(() => PaymentType, { description: 'Test checkout only (no Stripe keys): the payer presses "PAY" or "CANCEL"' })
  completeTestCheckout(@Arg("sessionId", () => String) sessionId: string, @Arg("outcome", () => String) outcome: string, @Ctx() ctx: Context) {
    return payments.completeTestCheckout(ctx.ds, ctx.config, ctx.viewer!, sessionId, outcome, { requestId: ctx.requestId, log: ctx.log });
  }

  @Access("CLERK")
  @Mutation(() => PaymentType, { description: "Clerk: record a payment taken at the counter in cash or by check" })
  recordCounterPayment(@Arg("input", () => RecordCounterPaymentInput) input: RecordCounterPaymentInput, @Ctx() ctx: Context) {
    return payments.recordCounterPayment(
      ctx.ds,
      ctx.config,
      ctx.viewer!,
      input.paymentId,
      { method: input.method as "cash" | "check", checkNumber: input.checkNumber },
      { requestId: ctx.requestId, log: ctx.log },
    );
  }

  @Access("CLERK")
  @Mutation(() => RefundType, { description: "Clerk: return refundable lines (the as-built deposit, SUL 606 B), with a reason" })
  refundPayment(@Arg("input", () => RefundPaymentInput) input: RefundPaymentInput, @Ctx() ctx: Context) {
    return payments.refundPayment(
      ctx.ds,
      ctx.config,
      ctx.viewer!,
      input.paymentId,
      { lineCodes: input.lineCodes, reason: input.reason, method: (input.method || null) as "cash" | "check" | null },
      { requestId: ctx.requestId, log: ctx.log },
    );
  }

  @Access("ADMIN")
  @Query(() => StripeConnectionType, { description: "ADMIN of the district: its own Stripe account (connected or not), and whether it takes card payments" })
  async districtStripeAccount(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context): Promise<StripeConnectionType> {
    return connectionType(await payments.stripeConnection(ctx.ds, ctx.config, ctx.viewer!, districtId));
  }

  @Access("ADMIN")
  @Mutation(() => StripeOnboarding, { description: "ADMIN of the district: Stripe's onboarding page for its own account (made the first time)" })
  startStripeOnboarding(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context): Promise<StripeOnboarding> {
    return payments.startStripeOnboarding(ctx.ds, ctx.config, ctx.viewer!, districtId, { requestId: ctx.requestId });
  }

  @Access("ADMIN")
  @Mutation(() => StripeConnectionType, { description: "ADMIN of the district: asks Stripe whether its account takes card payments now" })
  async refreshStripeAccount(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context): Promise<StripeConnectionType> {
    return connectionType(await payments.refreshStripeConnection(ctx.ds, ctx.config, ctx.viewer!, districtId, { requestId: ctx.requestId }));
  }

  @FieldResolver(() => Boolean, {
    description: "It can be paid by card online now; false when the district has no Stripe account of its own able to take card payments (pay at its office)",
  })
  async cardPayments(@Root() p: Payment, @Ctx() ctx: Context): Promise<boolean> {
    if (!ctx.config.stripe) return true;
    return payments.takesCardPayments(ctx.config, await loaders(ctx).connections.load(p.districtId));
  }

  @FieldResolver(() => [PaymentLineType])
  async lines(@Root() p: Payment, @Ctx() ctx: Context): Promise<PaymentLineType[]> {
    const [refunds, owed] = await Promise.all([loaders(ctx).refunds.load(p.id), loaders(ctx).owedBack.load(payments.titleKey(p.payableType, p.payableId))]);
    const refunded = new Set(refunds.flatMap((r) => r.lineCodes));
    return p.lines.map((l) => ({ ...l, refundable: l.refundable === true, refunded: refunded.has(l.code), owedBack: owed.includes(l.code) && !refunded.has(l.code) }));
  }

  @FieldResolver(() => [RefundType])
  refunds(@Root() p: Payment, @Ctx() ctx: Context): Promise<Refund[]> {
    return loaders(ctx).refunds.load(p.id);
  }

  @FieldResolver(() => String, { description: "What was paid for" })
  payableTitle(@Root() p: Payment, @Ctx() ctx: Context): Promise<string> {
    return loaders(ctx).titles.load(payments.titleKey(p.payableType, p.payableId));
  }

  @FieldResolver(() => String, { description: "Portal page of what was paid for" })
  href(@Root() p: Payment): string {
    try {
      return payments.payableHandler(p.payableType).href(p.payableId);
    } catch {
      return `/payments/${p.id}`;
    }
  }

  @FieldResolver(() => District)
  async district(@Root() p: Payment, @Ctx() ctx: Context): Promise<District> {
    return (await ctx.loaders.district.load(p.districtId))!;
  }

  @FieldResolver(() => String, { description: 'The payer\'s name; "Quick pay" for a payment made without signing in' })
  async payerName(@Root() p: Payment, @Ctx() ctx: Context): Promise<string> {
    if (p.payerId === null) return "Quick pay";
    return (await ctx.loaders.user.load(p.payerId))?.displayName ?? "";
  }

  @FieldResolver(() => Boolean, { description: "Paid through quick pay, without signing in (no payer)" })
  quickPay(@Root() p: Payment): boolean {
    return p.payerId === null;
  }

  @FieldResolver(() => Boolean, { description: "Money arrived after the payment was cancelled and is not yet all returned: the Clerk refunds it" })
  refundDue(@Root() p: Payment): boolean {
    return payments.refundDue(p);
  }

  @FieldResolver(() => String, { nullable: true, description: "How it was paid, in words" })
  methodDescription(@Root() p: Payment): string | null {
    return p.method ? payments.describeMethod(p) : null;
  }
}
