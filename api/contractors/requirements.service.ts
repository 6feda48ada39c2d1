import type { DataSource } from "typeorm";
import { getDistrict, rulebookOn } from "../districts/districts.service.js";
import type { RulebookKey } from "../districts/rulebook-keys.js";
import { COVERAGE_RULES, COVERAGES, type Coverage } from "./common.js";

// What a district requires (for the public page and the application form)

export type Requirement = { label: string; section: string; note: string | null; required: boolean; minimumCents: number | null };
export type ContractorRequirements = {
  approvedListEnabled: boolean;
  list: Requirement;
  bond: Requirement;
  coverages: (Requirement & { coverage: Coverage })[];
  cancellationNoticeBusinessDays: number | null;
  cancellationNotice: Requirement;
  expiryReminderDays: number | null;
  rulebookVersion: number;
};

/** The contractor rules of a district's rulebook in force today, with their sections. */
export async function contractorRequirements(ds: DataSource, districtSlug: string): Promise<ContractorRequirements> {
  const district = await getDistrict(ds, { slug: districtSlug });
  const rulebook = await rulebookOn(ds, district);
  const req = (key: RulebookKey, label?: string): Requirement => {
    const e = rulebook.entry(key);
    const minimumCents = e.kind === "money" && typeof e.value === "number" ? e.value : null;
    return {
      label: label ?? e.label,
      section: e.section,
      note: e.note ?? null,
      required: e.kind === "boolean" ? e.value === true : e.value !== null,
      minimumCents,
    };
  };
  const days = (key: RulebookKey) => {
    const v = rulebook.entry(key).value;
    return typeof v === "number" ? v : null;
  };
  return {
    approvedListEnabled: rulebook.enabled("contractor.approvedListEnabled"),
    list: req("contractor.approvedListEnabled"),
    bond: req("contractor.bondAmount"),
    coverages: COVERAGES.map((coverage) => ({ coverage, ...req(COVERAGE_RULES[coverage].key, COVERAGE_RULES[coverage].label) })),
    cancellationNoticeBusinessDays: days("contractor.insuranceCancellationNoticeBusinessDays"),
    cancellationNotice: req("contractor.insuranceCancellationNoticeBusinessDays"),
    expiryReminderDays: days("contractor.expiryReminderDays"),
    rulebookVersion: rulebook.version.version,
  };
}
