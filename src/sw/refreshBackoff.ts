/**
 * How often a failing refresh may be tried again (docs/behaviour.md, "Refresh"). The
 * back-off is stored with the credentials, so every tab and worker instance of the origin agrees.
 *
 * A failed attempt is charged: a grant that fails (network, 5xx, a malformed answer), and a
 * refreshed bearer refused while still valid before the server ever accepted it. The next attempt
 * then waits 5 s, doubling to 60 s. A refresh made within such a streak is charged up front, and the
 * charge is lifted when its new bearer is first accepted; so a server that refuses every bearer
 * costs one refresh per step. A bearer that was accepted and later gets a 401 (an early expiry) is
 * refreshed at once, as is one that is due: no streak, no wait.
 */
import { RETRY_AFTER_MAX_MS } from './outbound.js';

/** The wait after the first failure. */
export const BACKOFF_FIRST_MS = 5_000;
/** The longest wait between two attempts. */
export const BACKOFF_MAX_MS = 60_000;

/** Refresh attempts not yet proven good, and when the next one may go out (epoch ms). */
export interface Backoff {
  attempts: number;
  until: number;
}

/** The longest wait this release ever stores: a step, or a server's `Retry-After` (capped). */
const LONGEST_WAIT_MS = Math.max(BACKOFF_MAX_MS, RETRY_AFTER_MAX_MS);

/**
 * True when a refresh may be sent now: no back-off, or its end has come. A stored end further ahead
 * than any wait this release sets (an earlier release's unbounded `Retry-After`, a device clock set
 * back since, a value that is no time at all) would hold the session for ever, so it counts as over.
 */
export function mayRefresh(backoff: Backoff | null, now: number): boolean {
  if (backoff === null) return true;
  const wait = backoff.until - now;
  return !(wait > 0 && wait <= LONGEST_WAIT_MS);
}

/**
 * The back-off after one more attempt at `now`: 5 s for the first, doubling up to 60 s, and never
 * shorter than `atLeastMs`, the wait a server asked for (a failed answer's `Retry-After`), up to `RETRY_AFTER_MAX_MS`.
 */
export function chargeAttempt(backoff: Backoff | null, now: number, atLeastMs = 0): Backoff {
  const attempts = (backoff?.attempts ?? 0) + 1;
  return { attempts, until: now + Math.max(Math.min(BACKOFF_FIRST_MS * 2 ** (attempts - 1), BACKOFF_MAX_MS), Math.min(atLeastMs, RETRY_AFTER_MAX_MS)) };
}
