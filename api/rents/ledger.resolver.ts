import { Arg, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from "type-graphql";
import { Access } from "../graphql/access.js";
import { metaOf, type Context } from "../graphql/context.js";
import { PaymentType } from "../payments/payments.resolver.js";
import * as ledger from "./ledger.service.js";
import * as reports from "./ledger.reports.js";
import * as refunds from "./refunds.js";

/** GraphQL of sewer accounts' money (api/rents/ledger.service.ts, ledger.reports.ts); thin. */

@ObjectType("AccountLastBill", { simpleResolvers: true })
class LastBillType {
  @Field(() => ID) id: string;
  @Field(() => String) number: string;
  @Field(() => String) periodFrom: string;
  @Field(() => String) periodTo: string;
  @Field(() => String) mailedOn: string;
  @Field(() => String) dueOn: string;
  @Field(() => Int) totalCents: number;
}

@ObjectType("AccountLedgerLine", { description: "A bill, payment, late charge or refund of an account, with the balance after it", simpleResolvers: true })
export class LedgerLineType {
  @Field(() => String) on: string;
  @Field(() => String, { description: "BILL, PAYMENT, PENALTY, INTEREST, VIOLATION (Huron VI-3: a marker, no amount) or REFUND" }) kind: string;
  @Field(() => String) description: string;
  @Field(() => String, { nullable: true }) section: string | null;
  @Field(() => Int) amountCents: number;
  @Field(() => Int) balanceCents: number;
  @Field(() => ID, { nullable: true }) billId: string | null;
  @Field(() => ID, { nullable: true }) paymentId: string | null;
}

@ObjectType("AccountOpenBill", { description: "A bill with something unpaid after the credits went to the oldest bills first", simpleResolvers: true })
export class OpenBillType {
  @Field(() => ID) billId: string;
  @Field(() => String) number: string;
  @Field(() => String) mailedOn: string;
  @Field(() => String) dueOn: string;
  @Field(() => Int) totalCents: number;
  @Field(() => Int, { description: "What of the bill itself is unpaid" }) unpaidCents: number;
  @Field(() => Int, { description: "Its penalty and interest unpaid" }) lateChargesUnpaidCents: number;
  @Field(() => Boolean) pastDue: boolean;
}

@ObjectType("ServiceAccountBalance", { description: "A sewer account's balance (its issued bills and ledger entries), past due part, bills open and history" })
class AccountMoneyType {
  @Field(() => ID) accountId: string;
  @Field(() => String) accountNumber: string;
  @Field(() => ID) districtId: string;
  @Field(() => String) asOf: string;
  @Field(() => Int, { description: "Above zero owed; below zero a credit (an overpayment)" }) balanceCents: number;
  @Field(() => Int) pastDueCents: number;
  @Field(() => LastBillType, { nullable: true }) lastBill: LastBillType | null;
  @Field(() => Boolean, { description: "The viewer may pay it online (its occupant or owner of record)" }) canPay: boolean;
  @Field(() => Boolean, { description: "The viewer records counter payments (the district's Town Clerk)" }) canRecordPayment: boolean;
  @Field(() => [LedgerLineType]) lines: LedgerLineType[];
  @Field(() => [OpenBillType]) openBills: OpenBillType[];
}

@InputType("PayServiceAccountInput")
class PayInput {
  @Field(() => ID) accountId: string;
  @Field(() => Int, { nullable: true, description: "Cents; the balance when left out" }) amountCents?: number | null;
}

@InputType("AccountCounterPaymentInput")
class CounterInput {
  @Field(() => ID) accountId: string;
  @Field(() => Int) amountCents: number;
  @Field(() => String, { description: "cash or check" }) method: string;
  @Field(() => String, { nullable: true }) checkNumber?: string | null;
}

@ObjectType("AgingRow", { simpleResolvers: true })
class AgingRowType {
  @Field(() => ID, { description: "The account's id; for an OWNER_EXCESS row, the property's" }) accountId: string;
  @Field(() => String, { description: "ACCOUNT, or OWNER_EXCESS (Huron VI-2: a property's owner's excess bills, no account)" }) kind: string;
  @Field(() => String) accountNumber: string;
  @Field(() => String) occupantName: string;
  @Field(() => String) ownerName: string;
  @Field(() => String) address: string;
  @Field(() => String) class: string;
  @Field(() => Int) balanceCents: number;
  @Field(() => Int) currentCents: number;
  @Field(() => Int) days30Cents: number;
  @Field(() => Int) days60Cents: number;
  @Field(() => Int) days90Cents: number;
  @Field(() => Int) over90Cents: number;
}

@ObjectType("AnnualReviewRow", { simpleResolvers: true })
class AnnualRowType {
  @Field(() => String) class: string;
  @Field(() => String) classLabel: string;
  @Field(() => Int) billedCents: number;
  @Field(() => Int) lateChargesCents: number;
  @Field(() => Int) collectedCents: number;
  @Field(() => Int) outstandingCents: number;
}

@ObjectType("AnnualReview", { description: "SUL 1214's annual review figures for a fiscal year (SUL 1211); absent where the law asks for none" })
class AnnualType {
  @Field(() => Int) year: number;
  @Field(() => String) from: string;
  @Field(() => String) to: string;
  @Field(() => String) section: string;
  @Field(() => [AnnualRowType]) rows: AnnualRowType[];
}

@ObjectType("ReceivablesReport", { description: "Aging of what the district's accounts owe (current, 1-30, 31-60, 61-90, over 90 days past due), with the CSV exports" })
class ReceivablesType {
  @Field(() => ID) districtId: string;
  @Field(() => String) asOf: string;
  @Field(() => [AgingRowType]) rows: AgingRowType[];
  @Field(() => AgingRowType) totals: AgingRowType;
  @Field(() => AnnualType, { nullable: true }) annualReview: AnnualType | null;
}

@ObjectType("SewerCsvExport", { simpleResolvers: true })
class CsvType {
  @Field(() => String, { description: "The district's slug, for the file name" }) slug: string;
  @Field(() => String) from: string;
  @Field(() => String) to: string;
  @Field(() => String) csv: string;
}

@ObjectType("TaxLevySewerBill", { description: "A delinquent sewer bill on the tax levy (SUL 1118; Huron VI-4): what of it, its penalty and interest is unpaid", simpleResolvers: true })
export class TaxLevySewerBillType {
  @Field(() => ID) billId: string;
  @Field(() => String) number: string;
  @Field(() => String) accountNumber: string;
  @Field(() => String) billedOn: string;
  @Field(() => String) dueOn: string;
  @Field(() => String, { description: "The owner of record" }) ownerName: string;
  @Field(() => String) taxParcel: string;
  @Field(() => String) address: string;
  @Field(() => Int) originalCents: number;
  @Field(() => Int) penaltyCents: number;
  @Field(() => Int) interestCents: number;
  @Field(() => Int) totalCents: number;
  @Field(() => Int) daysDelinquent: number;
}

@InputType("AccountRefundInput", { description: "The Town Clerk pays back (a part of) an account's credit: by check, or back to the card of a card payment on the account" })
class RefundInput {
  @Field(() => ID) accountId: string;
  @Field(() => Int, { description: "Cents; at most the credit (and what is left of the card payment)" }) amountCents: number;
  @Field(() => String, { description: "check or card" }) method: string;
  @Field(() => ID, { nullable: true, description: "card: the card payment on the account the money goes back to" }) paymentId?: string | null;
  @Field(() => String, { nullable: true, description: "check: its number" }) checkNumber?: string | null;
  @Field(() => String, { nullable: true, description: "check: the date written on it (YYYY-MM-DD)" }) checkDate?: string | null;
  @Field(() => String) reason: string;
}

@ObjectType("RefundCardPayment", { simpleResolvers: true })
class RefundCardPaymentType {
  @Field(() => ID) paymentId: string;
  @Field(() => String) receiptNumber: string;
  @Field(() => String) paidOn: string;
  @Field(() => Int) amountCents: number;
  @Field(() => Int, { description: "What of it is not yet refunded" }) refundableCents: number;
  @Field(() => Boolean, { description: "Paid through the labelled test checkout (no money moves)" }) test: boolean;
}

@ObjectType("AccountRefundPreview", { description: "What a refund of an account's credit would be, and to whom; nothing is changed" })
class RefundPreviewType {
  @Field(() => ID) accountId: string;
  @Field(() => String) accountNumber: string;
  @Field(() => Int, { description: "The credit before the refund" }) creditCents: number;
  @Field(() => Int) amountCents: number;
  @Field(() => String, { description: "check or card" }) method: string;
  @Field(() => String, { description: "The party billed (Huron VI-3: the owner of record; SUL: the occupant): the check's payee" }) payeeName: string;
  @Field(() => String, { nullable: true, description: "Where the receipt is emailed; null when the party billed has no sign-in" }) receiptEmail: string | null;
  @Field(() => RefundCardPaymentType, { nullable: true }) payment: RefundCardPaymentType | null;
  @Field(() => String, { nullable: true }) checkNumber: string | null;
  @Field(() => String, { nullable: true }) checkDate: string | null;
  @Field(() => String) reason: string;
  @Field(() => Int, { description: "The balance after it (below zero: the credit left)" }) balanceAfterCents: number;
}

@ObjectType("AccountRefund", { description: "A refund of an account's credit (a REFUND entry of its history)" })
class AccountRefundType extends RefundPreviewType {
  @Field(() => ID) id: string;
  @Field(() => String) receiptNumber: string;
  @Field(() => String, { description: "Its day in the account's history (the check's date, or the day of the card refund)" }) on: string;
}

const STAFF = ["CLERK", "OPERATOR", "BOARD", "ADMIN"] as const;

@Resolver()
export class AccountLedgerResolver {
  @Access("SIGNED_IN")
  @Query(() => AccountMoneyType, { description: "A sewer account's balance and history: its occupant, its owner of record, its district's staff" })
  serviceAccountBalance(@Arg("accountId", () => ID) accountId: string, @Ctx() ctx: Context) {
    return ledger.accountMoney(ctx.ds, ctx.viewer!, accountId);
  }

  @Access("SIGNED_IN")
  @Query(() => [PaymentType], { description: "The payments posted to a sewer account, newest first, with their receipts" })
  serviceAccountPayments(@Arg("accountId", () => ID) accountId: string, @Ctx() ctx: Context) {
    return ledger.accountPayments(ctx.ds, ctx.viewer!, accountId);
  }

  @Access("SIGNED_IN")
  @Mutation(() => PaymentType, { description: "The occupant or owner of record starts paying toward the balance (then /payments/:id)" })
  payServiceAccount(@Arg("input", () => PayInput) input: PayInput, @Ctx() ctx: Context) {
    return ledger.payServiceAccount(ctx.ds, ctx.viewer!, input, { requestId: ctx.requestId });
  }

  @Access("CLERK")
  @Mutation(() => PaymentType, { description: "The Town Clerk records cash or a check taken at the counter against an account, with a receipt" })
  recordAccountCounterPayment(@Arg("input", () => CounterInput) input: CounterInput, @Ctx() ctx: Context) {
    return ledger.recordAccountCounterPayment(ctx.ds, ctx.viewer!, input, metaOf(ctx));
  }

  @Access("CLERK")
  @Query(() => [RefundCardPaymentType], { description: "The Town Clerk: the account's card payments with something left to refund, newest first" })
  accountRefundableCardPayments(@Arg("accountId", () => ID) accountId: string, @Ctx() ctx: Context) {
    return refunds.accountRefundableCardPayments(ctx.ds, ctx.viewer!, accountId);
  }

  @Access("CLERK")
  @Query(() => RefundPreviewType, { description: "The Town Clerk: what a refund of the account's credit would be and to whom, before it is made" })
  previewAccountRefund(@Arg("input", () => RefundInput) input: RefundInput, @Ctx() ctx: Context) {
    return refunds.previewAccountRefund(ctx.ds, ctx.viewer!, input);
  }

  @Access("CLERK")
  @Mutation(() => AccountRefundType, { description: "The Town Clerk pays back (a part of) an account's credit, by check or to the card of a card payment, with a receipt" })
  refundAccountCredit(@Arg("input", () => RefundInput) input: RefundInput, @Ctx() ctx: Context) {
    return refunds.refundAccountCredit(ctx.ds, ctx.config, ctx.viewer!, input, metaOf(ctx));
  }

  @Access(...STAFF)
  @Query(() => ReceivablesType, { description: "The district's receivables by account with their aging, and SUL 1214's annual review figures" })
  sewerReceivables(@Arg("districtId", () => ID) districtId: string, @Arg("year", () => Int, { nullable: true }) year: number | null, @Ctx() ctx: Context) {
    return reports.receivables(ctx.ds, ctx.viewer!, districtId, year ?? null);
  }

  @Access(...STAFF)
  @Query(() => CsvType, { description: "The receivables export (CSV): each account with a balance and its aging, as of today" })
  async sewerReceivablesCsv(@Arg("districtId", () => ID) districtId: string, @Ctx() ctx: Context) {
    const r = await reports.receivablesCsv(ctx.ds, ctx.viewer!, districtId);
    return { slug: r.slug, from: r.asOf, to: r.asOf, csv: r.csv };
  }

  @Access(...STAFF)
  @Query(() => CsvType, { description: "The payments export (CSV): payments posted to the district's sewer accounts from `from` to `to`" })
  sewerPaymentsCsv(@Arg("districtId", () => ID) districtId: string, @Arg("from", () => String, { nullable: true }) from: string | null, @Arg("to", () => String, { nullable: true }) to: string | null, @Ctx() ctx: Context) {
    return reports.paymentsCsv(ctx.ds, ctx.viewer!, { districtId, from, to });
  }
}
