import type { RuleKind } from "./rulebook-schema.js";

/**
 * Topics of the public rules page, in display order. Every rulebook key belongs to one topic.
 */
export const TOPICS = [
  "Building laterals",
  "Inflow",
  "Contractors",
  "Septic systems",
  "Trucked and hauled waste",
  "Discharge limits",
  "Industrial discharge permits",
  "Industrial compliance reports",
  "Enforcement and appeals",
  "Charges and billing",
  "Equivalent dwelling units",
  "Sewer extensions",
] as const;
export type Topic = (typeof TOPICS)[number];

/**
 * Every rulebook key a feature may read, with its kind and topic. Each district file
 * (api/districts/data/*.json) has exactly one entry per key, of the same kind; where a district's
 * law does not provide the rule the value is null (false for booleans, [] for tables) and the
 * entry's note says why. Money is integer cents; days are calendar days unless the entry's unit
 * says "business days". Comments give the unit and the sources (SUL = Sewer Use Law 2000/2005).
 * Each entry also says where its figure comes from (`source`: "statute" or "board", see
 * rulebook-schema.ts); only board entries change in the ADMIN's editor.
 */
export const RULEBOOK_KEYS = {
  // Building laterals
  "lateral.fee.residential": { kind: "money", topic: "Building laterals" }, // cents; SUL 1212; Huron III-2
  "lateral.fee.commercialPerSquareFoot": { kind: "money_rate", topic: "Building laterals" }, // cents per square foot of building floor area; SUL 1212; Huron III-2
  "lateral.roadRestorationIncludedInFee": { kind: "boolean", topic: "Building laterals" }, // SUL 614; Huron III-11
  "lateral.asBuiltDepositPerSheet": { kind: "money", topic: "Building laterals" }, // cents; SUL 606 B; Huron Article III
  "lateral.asBuiltCopies": { kind: "integer", topic: "Building laterals" }, // copies; SUL 606 B; Huron Article III
  "lateral.plansRequired": { kind: "boolean", topic: "Building laterals" }, // SUL 602, 606 B; Huron III-2
  "lateral.impactFee": { kind: "money", topic: "Building laterals" }, // cents; SUL 1212; Huron Article III
  "lateral.minDiameterInches": { kind: "number", topic: "Building laterals" }, // inches; SUL 605; Huron III-6
  "lateral.minSlopeInchesPerFoot": { kind: "number", topic: "Building laterals" }, // inches per foot; SUL 605; Huron III-6
  "lateral.minCoverFeet": { kind: "number", topic: "Building laterals" }, // feet; SUL 609; Huron III-6
  "lateral.minCoverInsulatedFeet": { kind: "number", topic: "Building laterals" }, // feet; SUL 609; Huron III-6
  "lateral.castIronWithinFeetOfWater": { kind: "number", topic: "Building laterals" }, // feet; SUL 605; Huron III-6
  "lateral.castIronFromBuildingFeet": { kind: "number", topic: "Building laterals" }, // feet; SUL 605; Huron III-9
  "lateral.maxCleanoutSpacingFeet": { kind: "number", topic: "Building laterals" }, // feet; SUL 607; Huron III-6
  "lateral.cleanoutTurnDegrees": { kind: "number", topic: "Building laterals" }, // degrees; SUL 607; Huron III-6
  "lateral.minBasementEntryInches": { kind: "number", topic: "Building laterals" }, // inches; SUL 607; Huron III-6
  "lateral.underBasementProhibited": { kind: "boolean", topic: "Building laterals" }, // SUL 603 A; Huron Article III
  "lateral.waterMeterRequired": { kind: "boolean", topic: "Building laterals" }, // SUL 616; Huron Article III
  "lateral.trenchInspectionRequired": { kind: "boolean", topic: "Building laterals" }, // SUL 613 B; Huron III-10
  "lateral.connectionSupervised": { kind: "boolean", topic: "Building laterals" }, // SUL 613 A; Huron III-10
  "lateral.leakageTestRequired": { kind: "boolean", topic: "Building laterals" }, // SUL 612; Huron III-6
  "lateral.maxLeakageGallonsPerInchMile": { kind: "number", topic: "Building laterals" }, // gallons per 24 hours per mile per inch of nominal diameter; SUL 505 A; Huron III-6
  "lateral.connectionDeadlineDays": { kind: "days", topic: "Building laterals" }, // calendar days; SUL 307; Huron II-4
  "lateral.sewerWithinFeet": { kind: "number", topic: "Building laterals" }, // feet; SUL 307; Huron II-4
  "lateral.moratoriumEnabled": { kind: "boolean", topic: "Building laterals" }, // SUL 310; Huron Article III

  // Inflow
  "inflow.newSourcesProhibited": { kind: "boolean", topic: "Inflow" }, // SUL 701; Huron III-8
  "inflow.disconnectOnSaleEnabled": { kind: "boolean", topic: "Inflow" }, // SUL 702; Huron III-8
  "inflow.stormSewerWithinFeet": { kind: "number", topic: "Inflow" }, // feet; SUL 702; Huron III-8
  "inflow.chargesEnabled": { kind: "boolean", topic: "Inflow" }, // the District Operator determines a property's inflow and it is billed on its sewer bill; SUL 705; Huron III-8: none

  // Contractors
  "contractor.approvedListEnabled": { kind: "boolean", topic: "Contractors" }, // SUL 601 A; Huron Article III
  "contractor.bondAmount": { kind: "money", topic: "Contractors" }, // cents; SUL 508(1); Huron Article III
  "contractor.insurance.workersCompensationRequired": { kind: "boolean", topic: "Contractors" }, // SUL 508(2)(a); Huron Article III
  "contractor.insurance.personalInjuryPerOccurrence": { kind: "money", topic: "Contractors" }, // cents; SUL 508(2)(b); Huron Article III
  "contractor.insurance.personalInjuryAggregate": { kind: "money", topic: "Contractors" }, // cents; SUL 508(2)(b); Huron Article III
  "contractor.insurance.propertyDamage": { kind: "money", topic: "Contractors" }, // cents; SUL 508(2)(c); Huron Article III
  "contractor.insurance.autoBodilyInjuryPerPerson": { kind: "money", topic: "Contractors" }, // cents; SUL 508(2)(d); Huron Article III
  "contractor.insurance.autoBodilyInjuryPerOccurrence": { kind: "money", topic: "Contractors" }, // cents; SUL 508(2)(d); Huron Article III
  "contractor.insurance.autoPropertyDamagePerOccurrence": { kind: "money", topic: "Contractors" }, // cents; SUL 508(2)(d); Huron Article III
  "contractor.insurance.excessLiability": { kind: "money", topic: "Contractors" }, // cents; SUL 508(2)(e); Huron Article III
  "contractor.insuranceCancellationNoticeBusinessDays": { kind: "days", topic: "Contractors" }, // business days; SUL 508(2)(f); Huron Article III
  "contractor.expiryReminderDays": { kind: "days", topic: "Contractors" }, // calendar days; SUL 508; Huron Article III

  // Septic systems
  "septic.pumpingIntervalYears": { kind: "integer", topic: "Septic systems" }, // years; SUL 407; Huron II-3
  "septic.systemsAllowed": { kind: "boolean", topic: "Septic systems" }, // SUL 401; Huron II-3 (none in the district)
  "septic.twoBuildingsOneTankProhibited": { kind: "boolean", topic: "Septic systems" }, // SUL 402; Huron II-3
  "septic.constructionPermitRequired": { kind: "boolean", topic: "Septic systems" }, // SUL 403, 404; Huron II-3
  "septic.designProfessionalRequired": { kind: "boolean", topic: "Septic systems" }, // SUL 403; Huron II-3
  "septic.constructionPermitFee": { kind: "money", topic: "Septic systems" }, // cents; SUL 403 (board; Article 12 states none); Huron II-3
  "septic.nuisanceRepairDays": { kind: "days", topic: "Septic systems" }, // calendar days from receipt of the notice; SUL 405; Huron II-3
  "septic.connectionOnSewerRequired": { kind: "boolean", topic: "Septic systems" }, // SUL 408; Huron II-4
  "septic.abandonmentStepsPrescribed": { kind: "boolean", topic: "Septic systems" }, // SUL 408; Huron II-3
  "septic.effluentToSewerAlternative": { kind: "boolean", topic: "Septic systems" }, // SUL 408 (the tank kept, its effluent to the sewer, an easement); Huron II-3, II-4 (none)

  // Trucked and hauled waste
  "hauler.licensingEnabled": { kind: "boolean", topic: "Trucked and hauled waste" }, // SUL 801; Huron IV-8
  "hauler.specialPermissionEnabled": { kind: "boolean", topic: "Trucked and hauled waste" }, // SUL 801; Huron IV-8
  "hauler.applicationFee": { kind: "money", topic: "Trucked and hauled waste" }, // cents; SUL 801; Huron IV-8
  "hauler.applicationFeeMax": { kind: "money", topic: "Trucked and hauled waste" }, // cents; SUL 801; Huron IV-8
  "hauler.licenseTermMonths": { kind: "integer", topic: "Trucked and hauled waste" }, // months; SUL 802; Huron IV-8
  "hauler.renewalWindowDays": { kind: "days", topic: "Trucked and hauled waste" }, // calendar days; SUL 802; Huron IV-8
  "hauler.reminderDaysFirst": { kind: "days", topic: "Trucked and hauled waste" }, // calendar days; SUL 802; Huron IV-8
  "hauler.reminderDaysSecond": { kind: "days", topic: "Trucked and hauled waste" }, // calendar days; SUL 802; Huron IV-8
  "hauler.reminderDaysFinal": { kind: "days", topic: "Trucked and hauled waste" }, // calendar days; SUL 802; Huron IV-8
  "hauler.part364PermitRequired": { kind: "boolean", topic: "Trucked and hauled waste" }, // SUL 802; Huron IV-8
  "hauler.applicantMustOwnVehicles": { kind: "boolean", topic: "Trucked and hauled waste" }, // SUL 802; Huron IV-8
  "hauler.loadApprovalRequired": { kind: "boolean", topic: "Trucked and hauled waste" }, // SUL 804; Huron IV-8
  "hauler.dumpingFeePer1000Gallons": { kind: "money_rate", topic: "Trucked and hauled waste" }, // cents per 1,000 gallons; SUL 1208; Huron IV-8
  "hauler.dumpingFeeMinimumPerLoad": { kind: "money", topic: "Trucked and hauled waste" }, // cents; SUL 1208; Huron IV-8
  "hauler.dumpingFeePaidBeforeDumping": { kind: "boolean", topic: "Trucked and hauled waste" }, // SUL 801; Huron IV-8
  "hauler.sampleCost": { kind: "money", topic: "Trucked and hauled waste" }, // cents; SUL 804; Huron IV-8
  "hauler.dumpingLocation": { kind: "text", topic: "Trucked and hauled waste" }, // SUL 803; Huron IV-8
  "hauler.dumpingDays": { kind: "text", topic: "Trucked and hauled waste" }, // SUL 803; Huron IV-8
  "hauler.dumpingHours": { kind: "text", topic: "Trucked and hauled waste" }, // SUL 803; Huron IV-8

  // Discharge limits
  "limits.table": { kind: "table", topic: "Discharge limits" }, // SUL 903; Huron IV-21
  "limits.ph.min": { kind: "number", topic: "Discharge limits" }, // pH; SUL 902(3); Huron IV-5
  "limits.ph.max": { kind: "number", topic: "Discharge limits" }, // pH; SUL 902(3); Huron IV-5
  "limits.temperatureMaxF": { kind: "number", topic: "Discharge limits" }, // degrees F; SUL 902(9); Huron IV-13
  "limits.influentTemperatureMaxF": { kind: "number", topic: "Discharge limits" }, // degrees F; SUL 902(9); Huron IV-13
  "limits.fatsOilsGreaseMax": { kind: "number", topic: "Discharge limits" }, // SUL 903 note (5); Huron IV-15
  "limits.phenolsMax": { kind: "number", topic: "Discharge limits" }, // SUL 903; Huron IV-17
  "limits.sulfidesMax": { kind: "number", topic: "Discharge limits" }, // SUL 903; Huron IV-18
  "limits.flashpointMinF": { kind: "number", topic: "Discharge limits" }, // degrees F; SUL 902(13); Huron IV-4
  "limits.slugFactor": { kind: "number", topic: "Discharge limits" }, // times the 24-hour average; SUL 201 (Slug); Huron I-1(S)
  "limits.slugMinutes": { kind: "integer", topic: "Discharge limits" }, // minutes; SUL 201 (Slug); Huron I-1(S)
  "limits.normalSewage": { kind: "table", topic: "Discharge limits" }, // SUL 201 (Sewage, Normal); Huron IV-24

  // Industrial discharge permits
  "industrial.permitsEnabled": { kind: "boolean", topic: "Industrial discharge permits" }, // SUL 1003 A; Huron III-2
  "industrial.existingUserApplicationDays": { kind: "days", topic: "Industrial discharge permits" }, // calendar days; SUL 1003 B; Huron III-2
  "industrial.obtainPermitDays": { kind: "days", topic: "Industrial discharge permits" }, // calendar days; SUL 1003 B; Huron III-2
  "industrial.applicationFee": { kind: "money", topic: "Industrial discharge permits" }, // cents; SUL 1004 A; Huron III-2
  "industrial.publicNoticeDays": { kind: "days", topic: "Industrial discharge permits" }, // calendar days; SUL 1004 H; Huron III-2
  "industrial.permitMaxTermYears": { kind: "integer", topic: "Industrial discharge permits" }, // years; SUL 1004 D; Huron III-2
  "industrial.reissuanceApplicationDays": { kind: "days", topic: "Industrial discharge permits" }, // calendar days; SUL 1004 E; Huron III-2
  "industrial.modificationNoticeDays": { kind: "days", topic: "Industrial discharge permits" }, // calendar days; SUL 1004 B; Huron III-2
  "industrial.permitTransferable": { kind: "boolean", topic: "Industrial discharge permits" }, // SUL 1004 F; Huron III-2
  "industrial.complianceIncrementMaxMonths": { kind: "integer", topic: "Industrial discharge permits" }, // months; SUL 1004 A(12)(b); Huron III-2
  "industrial.complianceScheduleMaxMonths": { kind: "integer", topic: "Industrial discharge permits" }, // months; SUL 1004 A(12)(b); Huron III-2
  "industrial.progressReportDays": { kind: "days", topic: "Industrial discharge permits" }, // calendar days; SUL 1004 A(12)(c); Huron III-2
  "industrial.progressReportMaxGapMonths": { kind: "integer", topic: "Industrial discharge permits" }, // months; SUL 1004 A(12)(c); Huron III-2

  // Industrial compliance reports
  "industrial.baselineReportDays": { kind: "days", topic: "Industrial compliance reports" }, // calendar days; SUL 1005(1); Huron III-2
  "industrial.complianceReportDays": { kind: "days", topic: "Industrial compliance reports" }, // calendar days; SUL 1005(2); Huron III-2
  "industrial.periodicReportMonths": { kind: "text", topic: "Industrial compliance reports" }, // SUL 1005(3)(a); Huron III-2
  "industrial.periodicReportsMinPerYear": { kind: "integer", topic: "Industrial compliance reports" }, // reports; SUL 1005(3)(a); Huron III-2
  "industrial.violationNotifyHours": { kind: "integer", topic: "Industrial compliance reports" }, // hours; SUL 1005(4); Huron III-2
  "industrial.resampleDays": { kind: "days", topic: "Industrial compliance reports" }, // calendar days; SUL 1005(4); Huron III-2
  "industrial.slugWrittenReportDays": { kind: "days", topic: "Industrial compliance reports" }, // calendar days; SUL 1011; Huron Article IV
  "industrial.slugAnalysesDays": { kind: "days", topic: "Industrial compliance reports" }, // calendar days; SUL 1011; Huron Article IV
  "industrial.sncPeriodMonths": { kind: "integer", topic: "Industrial compliance reports" }, // months; SUL 201 (Significant Non-Compliance); Huron III-2
  "industrial.sncChronicPercent": { kind: "percent", topic: "Industrial compliance reports" }, // SUL 201 (Significant Non-Compliance); Huron III-2
  "industrial.sncTrcPercent": { kind: "percent", topic: "Industrial compliance reports" }, // SUL 201 (Significant Non-Compliance); Huron III-2
  "industrial.sncTrcFactorConventional": { kind: "number", topic: "Industrial compliance reports" }, // times the daily maximum limit; SUL 201 (Significant Non-Compliance); Huron III-2
  "industrial.sncTrcFactorOther": { kind: "number", topic: "Industrial compliance reports" }, // times the daily maximum limit; SUL 201 (Significant Non-Compliance); Huron III-2
  "industrial.sncMilestoneDays": { kind: "days", topic: "Industrial compliance reports" }, // calendar days; SUL 201 (Significant Non-Compliance); Huron III-2
  "industrial.sncLateReportDays": { kind: "days", topic: "Industrial compliance reports" }, // calendar days; SUL 201 (Significant Non-Compliance); Huron III-2
  "industrial.sncPublicationEnabled": { kind: "boolean", topic: "Industrial compliance reports" }, // SUL 1122; Huron III-2

  // Enforcement and appeals
  "enforcement.noticeOfViolationAnswerDays": { kind: "days", topic: "Enforcement and appeals" }, // calendar days; SUL 1102; Huron V-1
  "enforcement.petitionsEnabled": { kind: "boolean", topic: "Enforcement and appeals" }, // SUL 1104-1108; Huron Article V
  "enforcement.ordersEnabled": { kind: "boolean", topic: "Enforcement and appeals" }, // SUL 1103-1108, 1117; Huron Article V (notice and fine only)
  "enforcement.petitionDays": { kind: "days", topic: "Enforcement and appeals" }, // calendar days; SUL 1104-1108; Huron Article V
  "enforcement.showCauseNoticeMinDays": { kind: "days", topic: "Enforcement and appeals" }, // calendar days; SUL 1109; Huron Article V
  "enforcement.summaryAbatementHearingDays": { kind: "days", topic: "Enforcement and appeals" }, // calendar days; SUL 1117; Huron Article V
  "enforcement.fineMinPerDay": { kind: "money", topic: "Enforcement and appeals" }, // cents; SUL 1105; Huron V-2
  "enforcement.fineMaxPerDay": { kind: "money", topic: "Enforcement and appeals" }, // cents; SUL 1105; Huron V-2
  "enforcement.fineRequiresPriorNotice": { kind: "boolean", topic: "Enforcement and appeals" }, // SUL 1105; Huron V-1, V-2, V-4
  "enforcement.finesOnConviction": { kind: "boolean", topic: "Enforcement and appeals" }, // true: a court fines on conviction, the Operator refers (Huron V-2); false: the Operator serves an administrative fine (SUL 1105)
  "enforcement.criminalFineMin": { kind: "money", topic: "Enforcement and appeals" }, // cents; SUL 1115; Huron V-2
  "enforcement.criminalFineMax": { kind: "money", topic: "Enforcement and appeals" }, // cents; SUL 1115; Huron V-2
  "enforcement.informantRewardDiscoveryMax": { kind: "money", topic: "Enforcement and appeals" }, // cents; SUL 1121; Huron Article V
  "enforcement.informantRewardPercent": { kind: "percent", topic: "Enforcement and appeals" }, // SUL 1121; Huron Article V
  "enforcement.informantRewardCap": { kind: "money", topic: "Enforcement and appeals" }, // cents; SUL 1121; Huron Article V

  // Charges and billing
  "billing.periodMonthsIndustrial": { kind: "integer", topic: "Charges and billing" }, // months; SUL 1206; Huron VI-3
  "billing.periodMonthsOther": { kind: "integer", topic: "Charges and billing" }, // months; SUL 1206; Huron VI-3
  "billing.dueDaysAfterMailing": { kind: "days", topic: "Charges and billing" }, // calendar days; SUL 1118; Huron VI-3
  "billing.lateAfterDays": { kind: "days", topic: "Charges and billing" }, // calendar days; SUL 1118; Huron VI-3
  "billing.lateAfterDaysCountFrom": { kind: "text", topic: "Charges and billing" }, // SUL 1118; Huron VI-3
  "billing.penaltyPercent": { kind: "percent", topic: "Charges and billing" }, // SUL 1118; Huron VI-3
  "billing.penaltyBase": { kind: "text", topic: "Charges and billing" }, // "original bill" (SUL 1118) or "unpaid charge" (Huron VI-3)
  "billing.penaltyOnEveryPaymentDue": { kind: "boolean", topic: "Charges and billing" }, // true: any payment due under any article (SUL 1118); false: sewer charges only (Huron VI-3), so not a fine
  "billing.monthlyInterestPercent": { kind: "percent", topic: "Charges and billing" }, // SUL 1118; Huron VI-3
  "billing.interestPartMonthCounts": { kind: "boolean", topic: "Charges and billing" }, // SUL 1118; Huron VI-3
  "billing.violationAfterDaysInArrears": { kind: "days", topic: "Charges and billing" }, // calendar days; SUL 1118; Huron VI-3
  "billing.taxLevyEnabled": { kind: "boolean", topic: "Charges and billing" }, // SUL 1118; Huron VI-4
  "billing.taxLevyDelinquentDays": { kind: "days", topic: "Charges and billing" }, // calendar days; SUL 1118; Huron VI-4
  "billing.taxLevyAsOfDate": { kind: "text", topic: "Charges and billing" }, // SUL 1118; Huron VI-4
  "billing.taxLevyReportDue": { kind: "text", topic: "Charges and billing" }, // SUL 1118; Huron VI-4
  "billing.inflowSurchargeMaxFactor": { kind: "number", topic: "Charges and billing" }, // times the volume charge; SUL 705; Huron III-8
  "billing.inflowSurchargeFactor": { kind: "number", topic: "Charges and billing" }, // times the volume charge; the Town Board's surcharge, at most inflowSurchargeMaxFactor; SUL 705; Huron III-8
  "billing.flowDeductionEnabled": { kind: "boolean", topic: "Charges and billing" }, // SUL 1205; Huron VII
  "billing.volumeChargePer1000Gallons": { kind: "money_rate", topic: "Charges and billing" }, // cents per 1,000 gallons; SUL 1203; Huron VII
  "billing.fixedChargePerEdu": { kind: "money", topic: "Charges and billing" }, // cents; SUL 1203; Huron VII
  "billing.minimumCharge": { kind: "money", topic: "Charges and billing" }, // cents; SUL 1203; Huron VII
  "billing.fiscalYearStart": { kind: "text", topic: "Charges and billing" }, // SUL 1211; Huron Article VI
  "billing.fixedCostsPerYear": { kind: "money", topic: "Charges and billing" }, // cents a fiscal year, shared over the district's EDUs; SUL 1203, 1211; Huron VII
  "billing.eduAssessment": { kind: "boolean", topic: "Charges and billing" }, // accounts assessed in EDUs (the 1203 table); SUL 1203; Huron VI-2
  "billing.minimumPerUserBehindMeter": { kind: "boolean", topic: "Charges and billing" }, // each user behind a shared meter pays the minimum, the owner the excess; SUL 1203; Huron VI-2
  "billing.segmentsEnabled": { kind: "boolean", topic: "Charges and billing" }, // the service area may be segmented for a fair share of charges; SUL 1204; Huron Article VI
  "billing.surchargePerPoundBod": { kind: "money_rate", topic: "Charges and billing" }, // cents per pound of BOD above normal sewage (SUL 201); SUL 1202; Huron: none
  "billing.surchargePerPoundSuspendedSolids": { kind: "money_rate", topic: "Charges and billing" }, // cents per pound of suspended solids above normal sewage (SUL 201); SUL 1202; Huron: none
  "billing.reinstatementWithinMonths": { kind: "integer", topic: "Charges and billing" }, // months after a permanent discontinuance within which a reinstatement pays the gap's minimums; Huron VI-5; SUL: none

  // Equivalent dwelling units
  "billing.edu.singleFamilyHome": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per home; SUL 1203; Huron VII
  "billing.edu.apartmentOneBedroom": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per apartment; SUL 1203; Huron VII
  "billing.edu.apartmentTwoBedroom": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per apartment; SUL 1203; Huron VII
  "billing.edu.apartmentThreeBedroom": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per apartment; SUL 1203; Huron VII
  "billing.edu.boardingHousePerRoom": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per room; SUL 1203; Huron VII
  "billing.edu.bowlingAlleyPerLane": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per lane; SUL 1203; Huron VII
  "billing.edu.campgroundSeweredSite": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per site; SUL 1203; Huron VII
  "billing.edu.campgroundUnseweredSite": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per site; SUL 1203; Huron VII
  "billing.edu.church": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per church; SUL 1203; Huron VII
  "billing.edu.restaurantPerSeat": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per seat; SUL 1203; Huron VII
  "billing.edu.tavernPerSeat": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per seat; SUL 1203; Huron VII
  "billing.edu.hairdresserBarber": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per shop; SUL 1203; Huron VII
  "billing.edu.hotelPerRoom": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per room; SUL 1203; Huron VII
  "billing.edu.laundromatPerMachine": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per machine; SUL 1203; Huron VII
  "billing.edu.mobileHomeOneBedroom": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per unit; SUL 1203; Huron VII
  "billing.edu.mobileHomeTwoBedroom": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per unit; SUL 1203; Huron VII
  "billing.edu.mobileHomeThreeBedroom": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per unit; SUL 1203; Huron VII
  "billing.edu.motelPerUnit": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per unit; SUL 1203; Huron VII
  "billing.edu.motelPerUnitWithKitchen": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per unit; SUL 1203; Huron VII
  "billing.edu.officePerSquareFoot": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per square foot; SUL 1203; Huron VII
  "billing.edu.dentistPerDentist": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per dentist; SUL 1203; Huron VII
  "billing.edu.serviceStationPerToilet": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per toilet; SUL 1203; Huron VII
  "billing.edu.shoppingCenterPerSquareFoot": { kind: "number", topic: "Equivalent dwelling units" }, // EDU per square foot; SUL 1203; Huron VII
  "billing.edu.byWaterUsage": { kind: "text", topic: "Equivalent dwelling units" }, // SUL 1203; Huron VII

  // Sewer extensions (SUL Article 5; Huron has no such article). The Uni-Bell tables' rows: parameter = nominal
  // diameter in inches, minimum = the table's minimum time (seconds), average = its time for a longer length (seconds per foot).
  "extension.provided": { kind: "boolean", topic: "Sewer extensions" }, // SUL 501, 502 A; Huron: none
  "extension.constructionNoticeDays": { kind: "days", topic: "Sewer extensions" }, // SUL 502 A; Huron: none
  "extension.minGravityDiameterInches": { kind: "number", topic: "Sewer extensions" }, // inches; SUL 503 A(2); Huron: none
  "extension.minLowPressureDiameterInches": { kind: "number", topic: "Sewer extensions" }, // inches; SUL 503 A(2); Huron: none
  "extension.maxLeakageGallonsPerInchMile": { kind: "number", topic: "Sewer extensions" }, // gallons per 24 hours per mile per inch of nominal diameter; SUL 505 A; Huron: none
  "extension.manholeAsPipeDiameterInches": { kind: "number", topic: "Sewer extensions" }, // inches; SUL 505 B; Huron: none
  "extension.manholeAsPipeLengthFeet": { kind: "number", topic: "Sewer extensions" }, // feet; SUL 505 B; Huron: none
  "extension.manholeLeakageGallons": { kind: "number", topic: "Sewer extensions" }, // gallons per 24 hours per manhole; SUL 505 B; Huron: none
  "extension.maxTestSectionFeet": { kind: "number", topic: "Sewer extensions" }, // feet; SUL 505 B; Huron: none
  "extension.minTestPeriodHours": { kind: "number", topic: "Sewer extensions" }, // hours; SUL 505 C; Huron: none
  "extension.exfiltrationMinHeadFeet": { kind: "number", topic: "Sewer extensions" }, // feet; SUL 505 A; Huron: none
  "extension.exfiltrationMaxDownstreamHeadFeet": { kind: "number", topic: "Sewer extensions" }, // feet; SUL 505 A; Huron: none
  "extension.exfiltrationMinFreeboardInches": { kind: "number", topic: "Sewer extensions" }, // inches; SUL 505 A; Huron: none
  "extension.exfiltrationFilledHours": { kind: "number", topic: "Sewer extensions" }, // hours; SUL 505 A; Huron: none
  "extension.mandrelPercentOfInsideDiameter": { kind: "percent", topic: "Sewer extensions" }, // SUL 505 E; Huron: none
  "extension.maxDeflectionPercent": { kind: "percent", topic: "Sewer extensions" }, // SUL 505 E; Huron: none
  "extension.airTestMaxPsi": { kind: "number", topic: "Sewer extensions" }, // psi; SUL 505 F; Huron: none
  "extension.airTestTable": { kind: "table", topic: "Sewer extensions" }, // SUL 505 F; Huron: none
  "extension.sewerVacuumTestTable": { kind: "table", topic: "Sewer extensions" }, // SUL 505 G; Huron: none
  "extension.manholeVacuum.baseDiameterFeet": { kind: "number", topic: "Sewer extensions" }, // feet; SUL 505 G; Huron: none
  "extension.manholeVacuum.shallowMaxDepthFeet": { kind: "number", topic: "Sewer extensions" }, // feet; SUL 505 G; Huron: none
  "extension.manholeVacuum.middleMaxDepthFeet": { kind: "number", topic: "Sewer extensions" }, // feet; SUL 505 G; Huron: none
  "extension.manholeVacuum.deepMaxDepthFeet": { kind: "number", topic: "Sewer extensions" }, // feet; SUL 505 G; Huron: none
  "extension.manholeVacuum.shallowSeconds": { kind: "number", topic: "Sewer extensions" }, // seconds; SUL 505 G; Huron: none
  "extension.manholeVacuum.middleSeconds": { kind: "number", topic: "Sewer extensions" }, // seconds; SUL 505 G; Huron: none
  "extension.manholeVacuum.deepSeconds": { kind: "number", topic: "Sewer extensions" }, // seconds; SUL 505 G; Huron: none
  "extension.manholeVacuum.fiveFootAddSeconds": { kind: "number", topic: "Sewer extensions" }, // seconds; SUL 505 G; Huron: none
  "extension.manholeVacuum.sixFootAddSeconds": { kind: "number", topic: "Sewer extensions" }, // seconds; SUL 505 G; Huron: none
  "extension.forceMain.testPressurePercent": { kind: "percent", topic: "Sewer extensions" }, // SUL 506 B; Huron: none
  "extension.forceMain.minTestHours": { kind: "number", topic: "Sewer extensions" }, // hours; SUL 506 B; Huron: none
  "extension.forceMain.maxLeakageGallonsPerInchMile": { kind: "number", topic: "Sewer extensions" }, // gallons per day per mile per inch of nominal diameter; SUL 506 B; Huron: none
  "extension.forceMain.maxTestSectionFeet": { kind: "number", topic: "Sewer extensions" }, // feet; SUL 506 B; Huron: none
  "extension.asBuiltCopies": { kind: "number", topic: "Sewer extensions" }, // copies; SUL 507; Huron: none
  "extension.guaranteeYears": { kind: "number", topic: "Sewer extensions" }, // years; SUL 507; Huron: none
  "extension.guaranteeReminderDays": { kind: "days", topic: "Sewer extensions" }, // board practice, before the 507 guarantee ends; Huron: none
} as const satisfies Record<string, { kind: RuleKind; topic: Topic }>;

export type RulebookKey = keyof typeof RULEBOOK_KEYS;
