/**
 * How a queued write's attempt settles it (every retry has a back-off): a 2xx applied it; a 5xx, or
 * no answer while the browser reports itself online, keeps it with a back-off and the same key; a
 * 409 or a 429 keeps it too, with a new key (Spree caches every answer below 500 under its key, and
 * would replay that refusal for 24 h); any other answer rejects it. A write is dropped as expired
 * after 24 h (Spree's idempotency window, past which a replay could apply it twice) or 20 counted
 * attempts. Pure functions of the write, the attempt and the clock.
 */
import { RETRY_AFTER_MAX_MS } from './outbound.js';
import type { QueuedWrite } from './queuedWrite.js';

/** The wait after a write's first counted failure; it doubles with each one after. */
export const WRITE_BACKOFF_FIRST_MS = 5_000;
/** The longest wait between two attempts. */
export const WRITE_BACKOFF_MAX_MS = 300_000;
/** How long a write may wait: Spree keeps an answer under its key for 24 h. */
export const WRITE_LIFETIME_MS = 24 * 3_600_000;
/** The counted attempts after which a write is given up. */
export const MAX_WRITE_ATTEMPTS = 20;

/** What one attempt at sending a queued write came to. */
export type Attempt =
  /** The server answered (after the request path's one refresh and replay for a 401). */
  | { kind: 'answered'; status: number; retryAfterMs: number | null }
  /** No answer: a network error, the time budget, or a refresh that could not be made first. */
  | { kind: 'lost' }
  /** Not sent: the server did not answer a probe first (a write that cannot be sent twice goes only after one). */
  | { kind: 'unsent' }
  /** A redirect: a write never follows one. */
  | { kind: 'redirected' };

/** What becomes of the write after an attempt. */
export type Settlement =
  | { outcome: 'applied' | 'rejected'; status?: number }
  | { outcome: 'expired' }
  /** Kept: `write` is the stored write's next state; `newKey` when the next attempt needs another key. */
  | { outcome: 'retry'; write: QueuedWrite; newKey: boolean };

/** The wait after the `attempts`-th counted failure: 5 s, doubling, at most 5 min. */
export function writeBackoffMs(attempts: number): number {
  return Math.min(WRITE_BACKOFF_FIRST_MS * 2 ** Math.max(0, attempts - 1), WRITE_BACKOFF_MAX_MS);
}

/**
 * How long `write` still waits for its back-off at `now`, ms; 0 once it may go. A wait longer than
 * any this release sets (the back-off's 5 min, a `Retry-After` capped at as much) means the device
 * clock was set back since it was set: it counts as over, or the queue would stand still that long.
 */
export function backoffLeftMs(write: QueuedWrite, now: number): number {
  const left = write.notBefore - now;
  return left > 0 && left <= Math.max(WRITE_BACKOFF_MAX_MS, RETRY_AFTER_MAX_MS) ? left : 0;
}

/** True once `write` is too old, or has failed too often, to be sent again. */
export function isExpired(write: QueuedWrite, now: number): boolean {
  return now - write.createdAt >= WRITE_LIFETIME_MS || write.attempts >= MAX_WRITE_ATTEMPTS;
}

/**
 * `write` after an attempt that failed without settling it: counted, with its back-off, when the
 * browser reported itself online; as it was when offline, so it goes as soon as the network returns.
 */
export function failedAttempt(write: QueuedWrite, online: boolean, now: number, atLeastMs = 0): QueuedWrite {
  if (!online) return write;
  const attempts = write.attempts + 1;
  return { ...write, attempts, notBefore: now + Math.max(writeBackoffMs(attempts), atLeastMs) };
}

/**
 * How `attempt` settles `write`; `online` is what the browser reported when it ended. `repeatable`:
 * a second attempt cannot apply the write twice (it carries a key, or it sets rather than adds). One
 * that is not (a v2 `add_item`), sent after the server answered a probe, and that got no answer may
 * have reached the server, whatever the browser reports by then: it is given up as expired rather
 * than sent again. One that was never sent (`unsent`) is kept as any write without an answer is.
 */
export function settle(write: QueuedWrite, attempt: Attempt, online: boolean, now: number, repeatable = true): Settlement {
  if (attempt.kind === 'redirected') return { outcome: 'rejected' };
  if (attempt.kind === 'answered') {
    const { status } = attempt;
    if (status >= 200 && status < 300) return { outcome: 'applied', status };
    const renew = status === 409 || status === 429;
    if (!renew && status < 500) return { outcome: 'rejected', status };
    return retry(failedAttempt(write, true, now, attempt.retryAfterMs ?? 0), renew, now);
  }
  if (attempt.kind === 'lost' && !repeatable) return { outcome: 'expired' };
  return retry(failedAttempt(write, online, now), false, now);
}

function retry(write: QueuedWrite, newKey: boolean, now: number): Settlement {
  return isExpired(write, now) ? { outcome: 'expired' } : { outcome: 'retry', write, newKey };
}
