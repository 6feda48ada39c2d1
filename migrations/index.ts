import { Foundation1764460800000 } from "./1764460800000-Foundation.js";
import { Contractors1764633600000 } from "./1764633600000-Contractors.js";
import { Payments1764547200000 } from "./1764547200000-Payments.js";
import { LateralPermits1764720000000 } from "./1764720000000-LateralPermits.js";
import { ContractorRenewals1764806400000 } from "./1764806400000-ContractorRenewals.js";
import { Haulers1764892800000 } from "./1764892800000-Haulers.js";
import { Enforcement1764979200000 } from "./1764979200000-Enforcement.js";
import { Industrial1765065600000 } from "./1765065600000-Industrial.js";
import { IndustrialSnc1765152000000 } from "./1765152000000-IndustrialSnc.js";
import { IndustrialResultWrites1765195200000 } from "./1765195200000-IndustrialResultWrites.js";
import { IndustrialReportKinds1765238400000 } from "./1765238400000-IndustrialReportKinds.js";
import { IndustrialLifecycle1765324800000 } from "./1765324800000-IndustrialLifecycle.js";
import { IndustrialDailyFlows1765411200000 } from "./1765411200000-IndustrialDailyFlows.js";
import { LateralWorkDoneBy1765540800000 } from "./1765540800000-LateralWorkDoneBy.js";
import { LateralInspectionTimesAndRecordDrawings1765627200000 } from "./1765627200000-LateralInspectionTimesAndRecordDrawings.js";
import { DistrictOperatorTitle1765670400000 } from "./1765670400000-DistrictOperatorTitle.js";
import { PaymentCancellation1765497600000 } from "./1765497600000-PaymentCancellation.js";
import { SignUpAttempts1765713600000 } from "./1765713600000-SignUpAttempts.js";
import { DumpingFeeIsAFee1765800000000 } from "./1765800000000-DumpingFeeIsAFee.js";
import { Prosecutions1766250000000 } from "./1766250000000-Prosecutions.js";
import { SewerRents1766700000000 } from "./1766700000000-SewerRents.js";
import { BillRuns1766810000000 } from "./1766810000000-BillRuns.js";
import { MeterReadings1766800000000 } from "./1766800000000-MeterReadings.js";
import { DistrictStripeAccounts1766830000000 } from "./1766830000000-DistrictStripeAccounts.js";
import { SewerExtensions1766840000000 } from "./1766840000000-SewerExtensions.js";
import { ExtensionLaterals1766840000001 } from "./1766840000001-ExtensionLaterals.js";

/** Every migration, in order. A new migration is added here and reviewed by hand. */
export const migrations = [Foundation1764460800000, Payments1764547200000, Contractors1764633600000, LateralPermits1764720000000, ContractorRenewals1764806400000, Haulers1764892800000, Enforcement1764979200000, Industrial1765065600000, IndustrialSnc1765152000000, IndustrialResultWrites1765195200000, IndustrialReportKinds1765238400000, IndustrialLifecycle1765324800000, IndustrialDailyFlows1765411200000, PaymentCancellation1765497600000, LateralWorkDoneBy1765540800000, LateralInspectionTimesAndRecordDrawings1765627200000, DistrictOperatorTitle1765670400000, SignUpAttempts1765713600000, DumpingFeeIsAFee1765800000000, Prosecutions1766250000000, SewerRents1766700000000, MeterReadings1766800000000, BillRuns1766810000000, DistrictStripeAccounts1766830000000, SewerExtensions1766840000000, ExtensionLaterals1766840000001];
