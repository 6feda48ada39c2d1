import DataLoader from "dataloader";
import type { Context } from "../graphql/context.js";
import { District } from "../districts/district.entity.js";
import { rulebookOn } from "../districts/districts.service.js";
import { dateIn } from "../common/dates.js";
import { groupBy, perRequest } from "../industrial/loaders.js";
import { claimsOf, inspectionsOf } from "./acceptance.service.js";
import { documentsOf, reviewsOf } from "./applications.service.js";
import { chargesOf } from "./charges.service.js";
import type { ExtensionRow } from "./common.js";
import { lateralsOf } from "./laterals.service.js";
import { plansOf } from "./plans.service.js";
import { earliestStart } from "./rules.js";
import { attemptsOf, sectionsOf } from "./tests.service.js";

/**
 * Per-request loaders of the sewer extension resolvers: one query per kind of related row whatever
 * the number of applications in a response; the reviews of a page in one batch (reviewsOf); the
 * earliest start of construction once per district.
 */
export const rows = perRequest((ctx: Context) => ({
  documents: new DataLoader(async (ids: readonly string[]) => groupBy(await documentsOf(ctx.ds, ids), (r) => r.extensionId, ids)),
  sections: new DataLoader(async (ids: readonly string[]) => groupBy(await sectionsOf(ctx.ds, ids), (r) => r.extensionId, ids)),
  attempts: new DataLoader(async (ids: readonly string[]) => groupBy(await attemptsOf(ctx.ds, ids), (r) => r.extensionId, ids)),
  laterals: new DataLoader(async (ids: readonly string[]) => groupBy(await lateralsOf(ctx.ds, ids), (r) => r.extensionId, ids)),
  charges: new DataLoader(async (ids: readonly string[]) => groupBy(await chargesOf(ctx.ds, ids), (r) => r.extensionId, ids)),
  inspections: new DataLoader(async (ids: readonly string[]) => groupBy(await inspectionsOf(ctx.ds, ids), (r) => r.extensionId, ids)),
  claims: new DataLoader(async (ids: readonly string[]) => groupBy(await claimsOf(ctx.ds, ids), (r) => r.extensionId, ids)),
  plans: new DataLoader(async (ids: readonly string[]) => groupBy(await plansOf(ctx.ds, ids), (r) => r.extensionId, ids)),
}));

/** The review of each application asked for, a page's in one batch. */
export const reviewLoader = perRequest((ctx: Context) => new DataLoader((list: readonly ExtensionRow[]) => reviewsOf(ctx.ds, list), { cacheKeyFn: (e) => e.id }));

/** The first day construction may start with notice given today, by district (SUL 502 A). */
export const startLoader = perRequest(
  (ctx: Context) =>
    new DataLoader(async (districtIds: readonly string[]) => {
      const districts = await ctx.ds.getRepository(District).findByIds([...districtIds]);
      return Promise.all(
        districtIds.map(async (id) => {
          const d = districts.find((x) => x.id === id);
          return d ? earliestStart(await rulebookOn(ctx.ds, d), dateIn(d.timeZone)).date : null;
        }),
      );
    }),
);
