import { isRecord } from '../shared/protocol.js';

/**
 * The session the worker keeps, and what a grant's answer is read from. How a server spells its
 * token responses is its dialect's business (dialect.ts).
 */

/** The OAuth pair as the worker keeps it. */
export interface Session {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms: when the access token expires (v2: the response's arrival plus `expires_in`; v3: the JWT's `exp`). */
  expiresAt: number;
  /** The access token's lifetime in ms as it arrived, kept to size the refresh margin. */
  lifetimeMs: number;
  /**
   * False for a bearer on probation (a refresh after a 401, or within a streak of failures) until
   * the server first accepts it: a 401 before that means the refresh did not help, and counts as a
   * failed refresh (docs/behaviour.md, "Refresh").
   */
  confirmed: boolean;
  /** The user a Store API token response described (v3), to answer a page's own sealed refresh in its shape. */
  user?: Record<string, unknown>;
}

/**
 * The last time a `Date` can hold, epoch ms (ECMA-262 21.4.1.22): an expiry past it is no time a page
 * can read (`accessTokenExpiresAt` would be `Infinity`, or an invalid date), and the answer is refused.
 */
export const LAST_DATE_MS = 8.64e15;

/** What arrived from the token endpoint, read as text so any body can be judged. */
export interface TokenReply {
  status: number;
  text: string;
  /** When the response arrived, epoch ms. */
  receivedAt: number;
  /** The server's clock when it answered (its `Date` header), epoch ms; absent or `null` when unreadable. */
  serverDate?: number | null;
}

/** Parses JSON, or returns `undefined` for anything that is not. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The JSON object `text` holds, or an empty object for anything else (a page's grant body, a token response read to seal it). */
export function jsonObject(text: string): Record<string, unknown> {
  const parsed = parseJson(text);
  return isRecord(parsed) ? parsed : {};
}
