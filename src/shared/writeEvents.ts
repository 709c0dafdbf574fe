/**
 * What the pages hear of the offline write queue: a write was queued, a queued write settled. Never
 * a token or a body: a write is named by its id, its method and its path (the URL's pathname,
 * without a query, which may hold a credential).
 */
/** `writequeued`'s detail: the write the worker took over, as the page made it. */
export interface WriteQueued {
  /** The id the page's 202 answer carried (`Storefront-Auth-Queued` and its body's `id`). */
  id: string;
  method: string;
  /** The URL's pathname, without a query. */
  path: string;
}

/** How a queued write ended. */
export type WriteOutcome = 'applied' | 'rejected' | 'dropped' | 'expired';

/** `writesettled`'s detail: how the write ended, and the server's status where an answer decided it. */
export interface WriteSettled {
  id: string;
  outcome: WriteOutcome;
  status?: number;
}

const OUTCOMES: readonly unknown[] = ['applied', 'rejected', 'dropped', 'expired'] satisfies WriteOutcome[];

/** A plain object whose fields may be read by name (protocol.ts has the same check; importing it would make a cycle). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a `writequeued` detail of the documented shape. */
export function isWriteQueued(value: unknown): value is WriteQueued {
  return isRecord(value) && typeof value['id'] === 'string' && typeof value['method'] === 'string' && typeof value['path'] === 'string';
}

/** True for a `writesettled` detail of the documented shape. */
export function isWriteSettled(value: unknown): value is WriteSettled {
  return isRecord(value) && typeof value['id'] === 'string' && OUTCOMES.includes(value['outcome']) && (value['status'] === undefined || typeof value['status'] === 'number');
}
