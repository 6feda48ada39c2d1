import type { DataSource } from "typeorm";
import type { Config } from "../config.js";
import { loadContractorScene } from "./demo-scene-contractors.js";
import { loadEnforcementScene } from "./demo-scene-enforcement.js";
import { loadDemoHaulerScene } from "./demo-scene-haulers.js";
import { DEMO_INDUSTRY, loadIndustrialScene } from "./demo-scene-industrial.js";
import { loadRentsScene } from "./demo-scene-rents.js";

export { DEMO_INDUSTRY };

/**
 * Demo scenes (demo mode, `npm start` only; the tests build their own): records a town would
 * otherwise wait weeks to see, because the law makes them wait. Each story's scene is its own file;
 * each is loaded once (a second start finds its records and does nothing).
 */
export async function loadDemoScenes(ds: DataSource, publicUrl: string, config?: Config): Promise<void> {
  // Scenes that store documents need the upload folder.
  if (config) await loadContractorScene(ds, config);
  // The industrial user's permit, issued four months ago (demo-scene-industrial.ts).
  await loadIndustrialScene(ds, publicUrl);
  // The septage hauler's story: the Board's dumping fee and a licensed company (demo-scene-haulers.ts).
  await loadDemoHaulerScene(ds, config);
  // A fine served on the demo applicant in each district, as each law has it (demo-scene-enforcement.ts).
  await loadEnforcementScene(ds, publicUrl);
  // Sewer rents: the Boards' schedules, a few properties (one the applicant's), two quarters of readings and the last quarter's bills issued (demo-scene-rents.ts).
  await loadRentsScene(ds, publicUrl);
}
