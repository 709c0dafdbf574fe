import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { StorefrontAuthError } from '../shared/errors.js';
import { isRecord } from '../shared/protocol.js';

/** The OAuth pair as the worker keeps it. */
export interface Session {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms: the time the response arrived plus `expires_in` seconds (CONTRACT.md). */
  expiresAt: number;
  /** `expires_in` in ms, kept to size the refresh margin. */
  lifetimeMs: number;
  /**
   * False for a bearer on probation (a refresh after a 401, or within a streak of failures) until
   * the server first accepts it: a 401 before that means the refresh did not help, and counts as a
   * failed refresh (CONTRACT.md, "Refresh").
   */
  confirmed: boolean;
}

/** What arrived from the token endpoint, read as text so any body can be judged. */
export interface TokenReply {
  status: number;
  text: string;
  /** When the response arrived, epoch ms. */
  receivedAt: number;
}

/**
 * Reads a successful token response body (SPEC.md 2, "OAuth token response"), or returns `null`
 * when it is not of that shape: no access or refresh token, `expires_in` not a positive number,
 * or a `token_type` other than Bearer.
 */
export function readTokenBody(body: unknown, receivedAt: number): Session | null {
  if (!isRecord(body)) return null;
  const { access_token: accessToken, refresh_token: refreshToken, expires_in: expiresIn, token_type: tokenType } = body;
  if (typeof accessToken !== 'string' || accessToken === '') return null;
  if (typeof refreshToken !== 'string' || refreshToken === '') return null;
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0) return null;
  if (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer') return null;
  const lifetimeMs = expiresIn * 1000;
  return { accessToken, refreshToken, expiresAt: receivedAt + lifetimeMs, lifetimeMs, confirmed: true };
}

/**
 * Judges a token endpoint's answer to a grant the worker sent: the new session, or a
 * `StorefrontAuthError` saying what the server said (Doorkeeper's `400 invalid_grant` and
 * `invalid_request`, STOREFRONT-FACTS.md) or what was wrong with the response.
 */
export function judgeTokenReply(reply: TokenReply, grant: 'password' | 'refresh'): Session {
  const { status } = reply;
  const body = parseJson(reply.text);
  if (status >= 200 && status < 300) {
    const session = body === undefined ? null : readTokenBody(body, reply.receivedAt);
    if (session !== null) return session;
    throw new StorefrontAuthError(
      'bad_response',
      DEBUG_BUILD
        ? `The token endpoint answered ${status} without a valid token response (access_token, refresh_token, token_type Bearer, expires_in > 0); check baseUrl and preset.`
        : `token response ${status}`,
      { status },
    );
  }
  const error = isRecord(body) && typeof body['error'] === 'string' ? body['error'] : null;
  if (status === 400 && error === 'invalid_grant') {
    const message = !DEBUG_BUILD
      ? `${grant} grant refused`
      : grant === 'password'
        ? 'Wrong username or password; ask the shopper to try again.'
        : 'The refresh token was refused, so the session has ended; ask the shopper to sign in again.';
    throw new StorefrontAuthError('invalid_grant', message, { status });
  }
  if (status === 400 && (error === 'invalid_request' || error === 'unsupported_grant_type')) {
    throw new StorefrontAuthError('invalid_request', DEBUG_BUILD ? `The token endpoint refused the request as ${error}.` : error, { status });
  }
  if (!DEBUG_BUILD) throw new StorefrontAuthError('bad_response', `token response ${status}`, { status });
  const what = error === null ? (body === undefined ? 'a body that is not JSON' : 'no OAuth error') : `error ${JSON.stringify(error)}`;
  throw new StorefrontAuthError(
    'bad_response',
    `The token endpoint answered ${status} with ${what}; check the server, baseUrl and preset.`,
    { status },
  );
}

/** Parses JSON, or returns `undefined` for anything that is not. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
