/**
 * A cart write waiting for the network, as the offline queue stores it, and how one is made from a
 * page's request: its method, URL, body and the page's own headers, never a credential. What it needs to be sent again as the same shopper is kept beside it
 * by name only: the cart's number and the sign-in's id (signIn.ts), never a token.
 */

/** At most this many writes wait per base URL; beyond them a write fails as it would without the queue. */
export const MAX_QUEUED_WRITES = 50;

/** The largest body queued, in bytes (64 KiB): a cart write is small, and every queued body is kept on disk. */
export const MAX_QUEUED_BODY_BYTES = 65_536;

/** One queued write. Stored in IndexedDB, so each field keeps its name across releases. */
export interface QueuedWrite {
  /** Its place in the queue, from IndexedDB's key generator, so writes replay in the order they were made; absent until stored. */
  seq?: number;
  /** Names the write to the pages: the 202's `id`, the events' `id`. */
  id: string;
  baseUrl: string;
  method: string;
  /** The URL as the page wrote it: a placeholder in its query stays one. */
  url: string;
  /** The page's own headers, without a credential, a placeholder or the `Idempotency-Key`. */
  headers: Array<[string, string]>;
  body: ArrayBuffer | null;
  /** The page's credentials mode (cookies), kept for the replay. */
  credentials: RequestCredentials;
  /** The `Idempotency-Key` every attempt carries (the page's own or the worker's); `null` where the server keeps none. */
  key: string | null;
  /** The number of the cart it was made on. */
  cart: string;
  /** The sign-in it was made under (signIn.ts); `null` for a guest's write. */
  signInId: string | null;
  /** Epoch ms. */
  createdAt: number;
  /** The attempts that counted: those that failed while the browser reported itself online. */
  attempts: number;
  /** Epoch ms before which it is not sent again (its back-off); 0 when it may go at once. */
  notBefore: number;
  /**
   * True while an attempt is under way: a drop meanwhile leaves the write to the attempt's answer.
   * Found set by the next pass, the attempt's end was never seen (the worker stopped): a write that
   * cannot be sent twice (`ReplayerContext.repeatable`) may have been applied, and is given up.
   * Absent on a write kept for another attempt.
   */
  sending?: true;
}

/** The headers a queued write must not keep: the worker adds the credential and the key at each attempt. */
export interface DroppedHeaders {
  cartTokenHeader: string;
  /** True where the write's key is kept beside it (`QueuedWrite.key`) rather than among its headers. */
  keyKeptApart: boolean;
}

/**
 * The page's headers to keep: every one but `Authorization`, the cart token header and, where the key
 * is kept apart, `Idempotency-Key`. Only a placeholder can be among the credential headers here: a
 * write that carries the page's own credential is never queued (queueDecision.ts).
 */
export function keptHeaders(headers: Headers, dropped: DroppedHeaders): Array<[string, string]> {
  const drop = ['authorization', dropped.cartTokenHeader.toLowerCase(), ...(dropped.keyKeptApart ? ['idempotency-key'] : [])];
  // Headers iterates lower-cased names.
  return [...headers].filter(([name]) => !drop.includes(name));
}

/** What a queued write holds beside the page's request: its id, its key, and whose it is. */
export interface WriteMaking {
  id: string;
  baseUrl: string;
  body: ArrayBuffer | null;
  key: string | null;
  /** The held cart's number and the sign-in (signIn.ts) the write is made under. */
  cart: string;
  signInId: string | null;
  createdAt: number;
  cartTokenHeader: string;
}

/** The write to queue for the page's `request`, not yet attempted. */
export function queuedWriteOf(request: Request, { cartTokenHeader, ...making }: WriteMaking): QueuedWrite {
  return {
    ...making,
    method: request.method,
    url: request.url,
    headers: keptHeaders(request.headers, { cartTokenHeader, keyKeptApart: making.key !== null }),
    credentials: request.credentials,
    attempts: 0,
    notBefore: 0,
  };
}
