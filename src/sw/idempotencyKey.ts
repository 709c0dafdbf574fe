/**
 * The `Idempotency-Key` of a queued write on a server that keeps keys (Spree 5's Store API replays
 * the first answer to a key, method, path and body for 24 h). Every attempt of one write carries the
 * same key, so an answer lost after the server applied it is replayed, not applied again; after a 409
 * or a 429 the write gets a new one (writeSettlement.ts).
 */

/** The header, as Spree reads it. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/**
 * The key a queueable write is sent and queued with: the page's own (`@spree/sdk` sends one), else a
 * new one from `newKey`, a random UUID v4: Spree shares the key namespace among every shopper of one
 * publishable key, so a guessable key could replay another shopper's answer. `null` where the server
 * keeps no keys: a page's own key then stays among its headers, as any other header.
 */
export function writeKey(pageKey: string | null, idempotencyKeys: boolean, newKey: () => string): string | null {
  if (!idempotencyKeys) return null;
  return pageKey !== null && pageKey !== '' ? pageKey : newKey();
}
