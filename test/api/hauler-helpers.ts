import type { Client } from "../harness.js";

/**
 * The Town Board sets Lakeview's dumping fee (SUL 1208): $60.00 per 1,000 gallons, at least $50.00 a
 * load, entered by the ADMIN with its resolution; `more` adds other Board figures to the same change.
 */
export async function setDumpingFee(admin: Client, districtId: string, today: string, more: { key: string; value: unknown }[] = []): Promise<void> {
  await admin.ok(`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, {
    i: {
      districtId,
      effectiveDate: today,
      reason: "Town Board resolution: septage dumping fees",
      resolutionNumber: "2026-30",
      resolutionAdoptedOn: today,
      changes: [{ key: "hauler.dumpingFeePer1000Gallons", value: 6000 }, { key: "hauler.dumpingFeeMinimumPerLoad", value: 5000 }, ...more],
    },
  });
}
