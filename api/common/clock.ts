/**
 * The one clock the rules read. Deadlines, expiries and reminders take "now" from here, so tests
 * move time (travelTo, advanceClock) instead of waiting. Sessions, tokens and rate limits keep to
 * the real clock: moving the rules' clock must not sign anyone out.
 */
let offsetMs = 0;

export const clock = {
  now(): Date {
    return new Date(Date.now() + offsetMs);
  },
};

function testOnly(what: string): void {
  if (process.env.NODE_ENV !== "test") throw new Error(`${what} is for tests only (NODE_ENV=test)`);
}

/** Tests: set the rules' clock to an instant (it then runs on from there). */
export function travelTo(instant: Date | string): void {
  testOnly("travelTo");
  offsetMs = new Date(instant).getTime() - Date.now();
}

/** Tests: move the rules' clock forward (or back, with a negative figure). */
export function advanceClock(ms: number): void {
  testOnly("advanceClock");
  offsetMs += ms;
}

export const DAY_MS = 86_400_000;

/** Tests: back to the real time. */
export function resetClock(): void {
  offsetMs = 0;
}
