import { Arg, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from "type-graphql";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { changesNoList } from "../graphql/micro-cache.js";
import { PaymentType } from "../payments/payments.resolver.js";
import * as quickPay from "./quick-pay.js";
import * as links from "./links.js";
import * as paperless from "./paperless.js";
import { loadPart } from "./owners-page.js";

/** GraphQL of quick pay, linked accounts and paperless bills (api/rents/quick-pay.ts, links.ts, paperless.ts); thin. */

const STAFF = ["CLERK", "OPERATOR", "BOARD", "ADMIN"] as const;

@ObjectType("QuickPayAccount", { description: "What quick pay tells of an account: the amount due, the last bill's period and due date; nothing else", simpleResolvers: true })
class QuickPayAccountType {
  @Field(() => String) accountNumber: string;
  @Field(() => String, { description: "The district the rents are paid to" }) districtName: string;
  @Field(() => Int, { description: "The balance: above zero due, below zero a credit" }) balanceCents: number;
  @Field(() => Int, { description: "The part of it past its due date" }) pastDueCents: number;
  @Field(() => String, { nullable: true, description: "The last bill's period" }) periodFrom: string | null;
  @Field(() => String, { nullable: true }) periodTo: string | null;
  @Field(() => String, { nullable: true, description: "The last bill's due date" }) dueOn: string | null;
  @Field(() => Boolean, { description: "It can be paid by card online now; false: at the district office only (cash or check)" }) cardPayments: boolean;
}

@InputType("QuickPayLookupInput")
class LookupInput {
  @Field(() => String, { description: 'As printed on the bill, e.g. "LKV-000123"' }) accountNumber: string;
  @Field(() => String, { description: "The service address's ZIP code (5 digits, or ZIP+4)" }) zip: string;
}

@InputType("StartQuickPayInput")
class StartInput {
  @Field(() => String) accountNumber: string;
  @Field(() => String) zip: string;
  @Field(() => Int, { nullable: true, description: "Cents; the balance when left out (less or more lands on the balance)" }) amountCents?: number | null;
  @Field(() => String, { nullable: true, description: "Where to email the receipt (optional)" }) email?: string | null;
}

@ObjectType("QuickPayStart", { description: "Where to send the browser to pay", simpleResolvers: true })
class QuickPayStartType {
  @Field(() => String, { description: "Stripe's checkout page, or the portal's test checkout (a path); its return address carries the payment's access token" }) url: string;
  @Field(() => ID) paymentId: string;
}

@ObjectType("QuickPaymentLine", { simpleResolvers: true })
class QuickPaymentLineType {
  @Field(() => String) code: string;
  @Field(() => String) label: string;
  @Field(() => String) section: string;
  @Field(() => Int) amountCents: number;
}

@ObjectType("QuickPaymentRefund", { simpleResolvers: true })
class QuickPaymentRefundType {
  @Field(() => ID) id: string;
  @Field(() => Int) amountCents: number;
  @Field(() => String) reason: string;
  @Field(() => String) method: string;
  @Field(() => String) receiptNumber: string;
  @Field(() => Date) createdAt: Date;
}

@ObjectType("QuickPayment", { description: "A quick-pay payment as the holder of its access token sees it: status, lines and receipt; nothing else", simpleResolvers: true })
class QuickPaymentType {
  @Field(() => ID) id: string;
  @Field(() => String) status: string;
  @Field(() => Int) amountCents: number;
  @Field(() => Int) refundedCents: number;
  @Field(() => Date, { nullable: true }) paidAt: Date | null;
  @Field(() => String, { nullable: true }) receiptNumber: string | null;
  @Field(() => String, { nullable: true }) methodDescription: string | null;
  @Field(() => String, { nullable: true }) provider: string | null;
  @Field(() => String, { nullable: true }) cancelReason: string | null;
  @Field(() => String) accountNumber: string;
  @Field(() => [QuickPaymentLineType]) lines: QuickPaymentLineType[];
  @Field(() => [QuickPaymentRefundType]) refunds: QuickPaymentRefundType[];
  @Field(() => String) districtName: string;
  @Field(() => String) districtAddress: string;
  @Field(() => String) timeZone: string;
}

@ObjectType("LinkedAccountLastBill", { simpleResolvers: true })
class LinkedLastBillType {
  @Field(() => ID) id: string;
  @Field(() => String) number: string;
  @Field(() => String) periodFrom: string;
  @Field(() => String) periodTo: string;
  @Field(() => String) dueOn: string;
  @Field(() => Int) totalCents: number;
}

@ObjectType("LinkedBill", { simpleResolvers: true })
class LinkedBillType {
  @Field(() => ID) id: string;
  @Field(() => String) number: string;
  @Field(() => String) servedFrom: string;
  @Field(() => String) servedTo: string;
  @Field(() => Int) totalCents: number;
  @Field(() => String, { nullable: true }) dueOn: string | null;
  @Field(() => String, { nullable: true }) accountNumber?: string;
  @Field(() => String, { nullable: true }) districtName?: string;
  @Field(() => String, { nullable: true }) address?: string;
}

@ObjectType("LinkedServiceAccount", { description: "An account linked to the viewer's sign-in: read and pay only", simpleResolvers: true })
class LinkedAccountType {
  @Field(() => ID) accountId: string;
  @Field(() => String) accountNumber: string;
  @Field(() => String) districtName: string;
  @Field(() => String) address: string;
  @Field(() => String, { nullable: true }) closedOn: string | null;
  @Field(() => Date) linkedAt: Date;
  @Field(() => Int) balanceCents: number;
  @Field(() => Int) pastDueCents: number;
  @Field(() => LinkedLastBillType, { nullable: true }) lastBill: LinkedLastBillType | null;
  @Field(() => [LinkedBillType]) bills: LinkedBillType[];
}

const linkedType = (v: links.LinkedAccountView): LinkedAccountType => ({
  accountId: v.accountId,
  accountNumber: v.accountNumber,
  districtName: v.districtName,
  address: v.address,
  closedOn: v.closedOn,
  linkedAt: v.linkedAt,
  balanceCents: v.balance.balanceCents,
  pastDueCents: v.balance.pastDueCents,
  lastBill: v.balance.lastBill
    ? { id: v.balance.lastBill.id, number: v.balance.lastBill.number, periodFrom: v.balance.lastBill.periodFrom, periodTo: v.balance.lastBill.periodTo, dueOn: v.balance.lastBill.dueOn, totalCents: v.balance.lastBill.totalCents }
    : null,
  bills: v.bills,
});

@InputType("PayLinkedServiceAccountInput")
class PayLinkedInput {
  @Field(() => ID) accountId: string;
  @Field(() => Int, { nullable: true, description: "Cents; the balance when left out" }) amountCents?: number | null;
}

@ObjectType("PaperlessChoice", { description: "Whether an account's bills go by email only (left out of the paper mailing)", simpleResolvers: true })
class PaperlessType {
  @Field(() => ID) accountId: string;
  @Field(() => Boolean) paperless: boolean;
  @Field(() => Boolean, { description: "The viewer is the party the bills are addressed to, who chooses" }) canChoose: boolean;
  @Field(() => Date, { nullable: true }) chosenAt: Date | null;
  @Field(() => String, { nullable: true }) chosenByName: string | null;
}

@InputType("SetPaperlessInput")
class SetPaperlessInput {
  @Field(() => ID) accountId: string;
  @Field(() => Boolean, { description: "true: email only; false: paper bills again" }) paperless: boolean;
}

@ObjectType("BillRunPaperMailing", { description: "How many of a run's issued bills go on paper and how many by email only", simpleResolvers: true })
class PaperMailingType {
  @Field(() => ID) runId: string;
  @Field(() => Int) issued: number;
  @Field(() => Int) onPaper: number;
  @Field(() => Int) paperless: number;
  @Field(() => String, { description: "The mailing list (CSV)" }) csvUrl: string;
  @Field(() => String, { description: "The paper bills in one PDF" }) pdfUrl: string;
}

// The lookup records only its attempt, which no cached list shows: a flood of lookups clears no instance's lists.
changesNoList("quickPayLookup");

@Resolver()
export class OwnerPayingResolver {
  @Access("PUBLIC")
  @Mutation(() => QuickPayAccountType, { description: "Quick pay: the account number and the service address's ZIP code give the amount due and the last bill's period and due date (limited per address and per number)" })
  // No class-validator rules on the input: skipping type-graphql's validation skips its import() per call.
  quickPayLookup(@Arg("input", () => LookupInput, { validate: false }) input: LookupInput, @Ctx() ctx: Context) {
    return quickPay.quickPayLookup(ctx.ds, ctx.config, input, { ip: ctx.ip });
  }

  @Access("PUBLIC")
  @Mutation(() => QuickPayStartType, { description: "Quick pay: makes a payment with no signed-in payer and starts its checkout" })
  startQuickPay(@Arg("input", () => StartInput) input: StartInput, @Ctx() ctx: Context) {
    return quickPay.startQuickPay(ctx.ds, ctx.config, input, { ip: ctx.ip, requestId: ctx.requestId });
  }

  @Access("PUBLIC")
  @Query(() => QuickPaymentType, { description: "A quick-pay payment, for the holder of its access token (from the checkout's return address); NOT_FOUND otherwise" })
  quickPayment(@Arg("id", () => ID) id: string, @Arg("access", () => String) access: string, @Ctx() ctx: Context) {
    return quickPay.quickPayment(ctx.ds, id, access);
  }

  @Access("PUBLIC")
  @Query(() => QuickPaymentType, { description: "The test checkout of a quick-pay payment (only without Stripe keys), for the holder of its access token" })
  quickPayTestCheckout(@Arg("sessionId", () => String) sessionId: string, @Arg("access", () => String) access: string, @Ctx() ctx: Context) {
    return quickPay.quickPayTestCheckout(ctx.ds, ctx.config, sessionId, access);
  }

  @Access("PUBLIC")
  @Mutation(() => QuickPaymentType, { description: 'Test checkout of a quick-pay payment: "PAY" or "CANCEL", for the holder of its access token' })
  completeQuickPayTestCheckout(@Arg("sessionId", () => String) sessionId: string, @Arg("access", () => String) access: string, @Arg("outcome", () => String) outcome: string, @Ctx() ctx: Context) {
    return quickPay.completeQuickPayTestCheckout(ctx.ds, ctx.config, sessionId, access, outcome, { requestId: ctx.requestId, log: ctx.log });
  }

  @Access("SIGNED_IN")
  @Mutation(() => LinkedAccountType, { description: "Links an account to the viewer's sign-in by its number and ZIP code (read and pay only; limited like quick pay)" })
  async linkServiceAccount(@Arg("input", () => LookupInput) input: LookupInput, @Ctx() ctx: Context) {
    return linkedType(await links.linkServiceAccount(ctx.ds, ctx.viewer!, input, { ip: ctx.ip, requestId: ctx.requestId, publicUrl: ctx.config.publicUrl }));
  }

  @Access("SIGNED_IN")
  @Mutation(() => Boolean, { description: "Ends the viewer's link to an account" })
  unlinkServiceAccount(@Arg("accountId", () => ID) accountId: string, @Ctx() ctx: Context) {
    return links.unlinkServiceAccount(ctx.ds, ctx.viewer!, accountId, { requestId: ctx.requestId });
  }

  @Access("SIGNED_IN")
  @Query(() => [LinkedAccountType], { description: "The accounts linked to the viewer's sign-in, with balances and issued bills" })
  async myLinkedAccounts(@Ctx() ctx: Context) {
    return (await loadPart(ctx, links.linkedAccountsPart)).map(linkedType);
  }

  @Access("SIGNED_IN")
  @Query(() => [LinkedBillType], { description: "The issued bills of the accounts linked to the viewer's sign-in, newest first" })
  myLinkedBills(@Ctx() ctx: Context) {
    return links.linkedBills(ctx.ds, ctx.viewer!);
  }

  @Access("SIGNED_IN")
  @Mutation(() => PaymentType, { description: "The holder of a link pays toward the account's balance (the payment's page then leads to checkout)" })
  payLinkedServiceAccount(@Arg("input", () => PayLinkedInput) input: PayLinkedInput, @Ctx() ctx: Context) {
    return links.payLinkedServiceAccount(ctx.ds, ctx.config, ctx.viewer!, input, { requestId: ctx.requestId });
  }

  @Access("SIGNED_IN")
  @Query(() => PaperlessType, { description: "Whether the account's bills go by email only; for those who read the account" })
  serviceAccountPaperless(@Arg("accountId", () => ID) accountId: string, @Ctx() ctx: Context) {
    return paperless.paperlessOf(ctx.ds, ctx.viewer!, accountId);
  }

  @Access("SIGNED_IN")
  @Query(() => [PaperlessType], { description: "The paperless choice of each open account the viewer occupies or owns" })
  myPaperlessChoices(@Ctx() ctx: Context) {
    return loadPart(ctx, paperless.myPaperlessPart);
  }

  @Access("SIGNED_IN")
  @Mutation(() => PaperlessType, { description: "The party the account's bills are addressed to chooses email only (or paper again)" })
  setPaperless(@Arg("input", () => SetPaperlessInput) input: SetPaperlessInput, @Ctx() ctx: Context) {
    return paperless.setPaperless(ctx.ds, ctx.viewer!, input, { requestId: ctx.requestId });
  }

  @Access(...STAFF)
  @Query(() => PaperMailingType, { description: "The district's staff: how many of the run's bills go on paper, with the mailing list and the PDF" })
  async billRunPaperMailing(@Arg("runId", () => ID) runId: string, @Ctx() ctx: Context) {
    const m = await paperless.paperMailing(ctx.ds, ctx.viewer!, runId);
    return { ...m, csvUrl: `/bill-runs/${m.runId}/paper-bills.csv`, pdfUrl: `/bill-runs/${m.runId}/paper-bills.pdf` };
  }
}
