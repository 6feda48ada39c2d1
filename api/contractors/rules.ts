import { formatDate, type CalendarDate } from "../common/dates.js";
import { formatCents } from "../common/money.js";
import type { Rulebook } from "../districts/districts.service.js";
import { COVERAGE_RULES, COVERAGES, coverageLabel } from "./common.js";

/** The law of the contractor list as pure functions over the rulebook: a filing against its minimums (SUL 508), whether a firm can be chosen (SUL 601 A). */

/** The parts of an application the minimums are checked against. */
export type FiledApplication = {
  bondAmountCents: number;
  bondExpiresOn: CalendarDate;
  insurance: { coverage: string; limitCents: number | null; expiresOn: CalendarDate }[];
};
/** One shortfall against the law, naming the section that sets the requirement. */
export type Finding = { item: string; message: string; section: string };

/**
 * What keeps an application from approval: a bond below `contractor.bondAmount`, a coverage below
 * its minimum, a required coverage missing, or anything expired on `today` (a calendar date in the
 * district's zone). An empty list means the filing meets every minimum of this rulebook.
 */
export function checkAgainstMinimums(rulebook: Rulebook, application: FiledApplication, today: CalendarDate): Finding[] {
  const findings: Finding[] = [];
  const bond = rulebook.entry("contractor.bondAmount");
  if (typeof bond.value === "number" && application.bondAmountCents < bond.value)
    findings.push({
      item: "bond",
      section: bond.section,
      message: `The bond is ${formatCents(application.bondAmountCents)}; ${bond.section} requires at least ${formatCents(bond.value)}.`,
    });
  if (application.bondExpiresOn < today)
    findings.push({ item: "bond", section: bond.section, message: `The bond expired on ${formatDate(application.bondExpiresOn)}; file a bond in force (${bond.section}).` });

  for (const coverage of COVERAGES) {
    const rule = COVERAGE_RULES[coverage];
    const e = rulebook.entry(rule.key);
    const minimum = e.kind === "money" && typeof e.value === "number" ? e.value : null;
    const required = e.kind === "boolean" ? e.value === true : minimum !== null;
    const filed = application.insurance.find((i) => i.coverage === coverage);
    if (!filed) {
      if (required)
        findings.push({
          item: coverage,
          section: e.section,
          message: `${rule.label}: no certificate is on file; ${e.section} requires this insurance${minimum !== null ? ` with a limit of at least ${formatCents(minimum)}` : ""}.`,
        });
      continue;
    }
    if (minimum !== null && (filed.limitCents === null || filed.limitCents < minimum))
      findings.push({
        item: coverage,
        section: e.section,
        message:
          filed.limitCents === null
            ? `${rule.label}: the certificate states no limit; ${e.section} requires at least ${formatCents(minimum)}.`
            : `${rule.label}: the limit is ${formatCents(filed.limitCents)}; ${e.section} requires at least ${formatCents(minimum)}.`,
      });
    if (filed.expiresOn < today)
      findings.push({ item: coverage, section: e.section, message: `${rule.label}: the certificate expired on ${formatDate(filed.expiresOn)}; file one in force (${e.section}).` });
  }
  return findings;
}

export type ContractorStanding = { choosable: boolean; reasons: string[] };

/**
 * Whether an applicant may choose this contractor on `today` (a calendar date in the district's
 * zone): only an APPROVED contractor whose bond and every certificate on file are in force (an
 * expiry date is the last day of cover, so it is expired once it is before today).
 */
export function contractorStanding(
  contractor: { status: string; bondExpiresOn: CalendarDate; suspendedReason?: string | null; insurance: { coverage: string; expiresOn: CalendarDate }[] },
  today: CalendarDate,
): ContractorStanding {
  const reasons: string[] = [];
  if (contractor.status === "APPLIED") reasons.push("The application is waiting for the Clerk's decision.");
  else if (contractor.status === "REJECTED") reasons.push("The application was rejected.");
  else if (contractor.status === "SUSPENDED") reasons.push(`The contractor is suspended${contractor.suspendedReason ? `: ${contractor.suspendedReason}` : "."}`);
  else if (contractor.status !== "APPROVED") reasons.push("The contractor is not approved.");
  if (contractor.bondExpiresOn < today) reasons.push(`The bond expired on ${formatDate(contractor.bondExpiresOn)}.`);
  for (const i of contractor.insurance)
    if (i.expiresOn < today) reasons.push(`${coverageLabel(i.coverage)}: the certificate expired on ${formatDate(i.expiresOn)}.`);
  return { choosable: reasons.length === 0, reasons };
}

/** The filing as it stands once a renewal is accepted: its bond, if renewed, and its certificates over those on file, coverage by coverage. */
export function renewedFiling(current: FiledApplication, renewal: Pick<FiledApplication, "insurance"> & { bondAmountCents: number | null; bondExpiresOn: CalendarDate | null }): FiledApplication {
  return {
    bondAmountCents: renewal.bondAmountCents ?? current.bondAmountCents,
    bondExpiresOn: renewal.bondExpiresOn ?? current.bondExpiresOn,
    insurance: [...current.insurance.filter((i) => !renewal.insurance.some((n) => n.coverage === i.coverage)), ...renewal.insurance],
  };
}
