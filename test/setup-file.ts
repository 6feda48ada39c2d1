import { beforeAll } from "vitest";
import { resetClock } from "../api/common/clock.js";
import { forgetEverythingHere } from "../api/common/invalidation.js";

// The API tests share a process between files (vitest.config.ts, isolate: false): each file starts
// on the real clock, with nothing cached from the file before (whose database is gone).
beforeAll(async () => {
  resetClock();
  await forgetEverythingHere();
});
