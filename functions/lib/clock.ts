/**
 * The time that rules depending on it read: two-factor steps, and so the codes an authenticator
 * app shows. On AWS it is the system clock. The local host started for tests may move it
 * (`POST /_local/clock`, infra/local/host.ts), so a test of such a rule sets the moment it needs
 * instead of waiting for the wall clock to get there; nothing deployed ever moves it.
 */
let offsetMs = 0;

/** Milliseconds since the epoch, as the time-dependent rules see them. */
export const clockNow = (): number => Date.now() + offsetMs;

/** How far the clock is moved from the system's. */
export const clockOffset = (): number => offsetMs;

/** Moves the clock `ms` from the system's (0 puts it back); the local host's test hook alone calls this. */
export function setClockOffset(ms: number): void {
  offsetMs = ms;
}
