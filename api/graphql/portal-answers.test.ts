import { describe, expect, it } from "vitest";
import { cachedPortalAnswer, clearPublicCache, keepPortalAnswer, portalAnswerBeingRead, portalAnswerKey, readingPortalAnswer } from "./cache.js";

describe("the portal's public answers (api/graphql/cache.ts)", () => {
  it("keeps only what Cache-Control says is public, for its max-age, frozen, and forgets it when public data changes", async () => {
    const key = portalAnswerKey("{ districts { slug } }", undefined);
    keepPortalAnswer(key, { districts: [{ slug: "lakeview" }] }, "max-age=60, private");
    expect(cachedPortalAnswer(key)).toBeUndefined();
    keepPortalAnswer(key, { districts: [{ slug: "lakeview" }] }, "no-store");
    expect(cachedPortalAnswer(key)).toBeUndefined();
    keepPortalAnswer(key, { districts: [{ slug: "lakeview" }] }, "max-age=60, public");
    const kept = cachedPortalAnswer(key) as { districts: { slug: string }[] };
    expect(kept.districts[0].slug).toBe("lakeview");
    expect(Object.isFrozen(kept.districts[0])).toBe(true);
    await clearPublicCache();
    expect(cachedPortalAnswer(key)).toBeUndefined();
  });

  it("has the requests that find a public answer's minute up wait for one reading, not each run it", async () => {
    const key = portalAnswerKey(`query($s: String!) { district(slug: $s) { name } }`, { s: "huron" });
    expect(readingPortalAnswer(key)).toBeUndefined(); // not known to be public yet: no one waits on it
    keepPortalAnswer(key, { district: { name: "Huron" } }, "max-age=60, public");
    await clearPublicCache(); // as when the minute is up
    const done = readingPortalAnswer(key)!;
    const waiting = [portalAnswerBeingRead(key), portalAnswerBeingRead(key)];
    done({ district: { name: "Huron" } });
    expect(await Promise.all(waiting)).toEqual([{ district: { name: "Huron" } }, { district: { name: "Huron" } }]);
    expect(portalAnswerBeingRead(key)).toBeUndefined();
    // A failed reading leaves the waiting ones to run it themselves.
    const failed = readingPortalAnswer(key)!;
    const after = portalAnswerBeingRead(key);
    failed(undefined);
    expect(await after).toBeUndefined();
  });
});
