import { afterEach, beforeAll, expect } from "vitest";
import { takeCspViolations } from "./browser.js";

// Registered for each browser test file (a process runs several, vitest.config.ts): every test fails
// on what the Content-Security-Policy refused in its pages. What the file before reported after its
// last test is not this file's.
beforeAll(() => void takeCspViolations());
afterEach(() => {
  expect(takeCspViolations(), "the Content-Security-Policy refused something a page needs").toEqual([]);
});
