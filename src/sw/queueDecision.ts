/**
 * Whether a page's request is one the offline queue may carry, and how it goes out, as pure
 * functions of what the dialect and the request say. A write is never applied twice: one that may already have reached the server is queued only where a replay
 * cannot apply it again.
 */
import type { CartWrite } from './dialect.js';
import { MAX_QUEUED_BODY_BYTES } from './queuedWrite.js';
import { SEALED, isSealedBearer } from './sealedTokens.js';

/** What the queue needs to know of a page's request. */
export interface WriteCandidate {
  /** The cart write the dialect names it, or `null`. */
  write: CartWrite | null;
  hasCart: boolean;
  /** The page sent a credential of its own (the page owns it: the worker neither stores nor refreshes it). */
  ownCredential: boolean;
  bodyBytes: number;
}

/**
 * True when the queue may carry the request at all: a cart write the dialect names, made while a
 * cart is held, without the page's own credential, with a body of at most 64 KiB.
 */
export function mayQueue({ write, hasCart, ownCredential, bodyBytes }: WriteCandidate): boolean {
  return write !== null && hasCart && !ownCredential && bodyBytes <= MAX_QUEUED_BODY_BYTES;
}

/**
 * How a write the queue may carry goes out:
 * - `queue`: not sent now, queued at once. It never leaves, so any write is safe: the browser reports
 *   itself offline, or older writes wait, which it must not overtake.
 * - `sendThenQueue`: sent, and queued if no answer comes; a replay cannot apply it twice (the server
 *   replays its first answer to the key, or the write sets rather than adds).
 * - `send`: sent, and a lost answer fails the page's fetch as without the queue: the server may have
 *   applied it, and a replay would apply it again (a v2 `add_item`).
 */
export type QueuePlan = 'queue' | 'sendThenQueue' | 'send';

/** The plan for a write the queue may carry. */
export function queuePlan(input: { write: CartWrite; idempotencyKeys: boolean; online: boolean; queuedAhead: boolean }): QueuePlan {
  if (!input.online || input.queuedAhead) return 'queue';
  return input.idempotencyKeys || input.write === 'sets' ? 'sendThenQueue' : 'send';
}

/** The names under which a dialect's server reads the cart credential. */
export interface CredentialNames {
  cartTokenHeader: string;
  cartTokenQuery: string | null;
}

/**
 * True when the page sent a credential of its own: an `Authorization` header or cart token header,
 * or a cart token in the query, with a value other than the worker's placeholder. Every value of
 * the query's name counts, not the first alone: a real one after a placeholder would be stored.
 */
export function carriesOwnCredential(headers: Headers, url: URL, names: CredentialNames): boolean {
  const authorization = headers.get('Authorization');
  const cartToken = headers.get(names.cartTokenHeader);
  const query = names.cartTokenQuery === null ? [] : url.searchParams.getAll(names.cartTokenQuery);
  return (authorization !== null && !isSealedBearer(authorization)) || (cartToken !== null && cartToken !== SEALED.cart) || query.some((value) => value !== SEALED.cart);
}
