/**
 * Talking to the OAuth token endpoint (SPEC.md 4.2, 4.3): building the form-encoded grants and
 * sending one through the one way out (outbound.ts), so that a grant never follows a redirect and a
 * hung server cannot hold the refresh lock for ever.
 */
import { sendOwn, type FetchFunction, type OwnReply } from './outbound.js';

/** Larger token responses are not token responses, whoever sent the grant. */
export const MAX_TOKEN_BODY_CHARS = 64 * 1024;

/** The form fields of the password grant (SPEC.md 4.2). */
export function passwordGrant(username: string, password: string): URLSearchParams {
  return new URLSearchParams({ grant_type: 'password', username, password });
}

/** The form fields of the refresh grant (SPEC.md 4.3). */
export function refreshGrant(refreshToken: string): URLSearchParams {
  return new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken });
}

/** POSTs a grant to the token endpoint at `url` and reads the answer as text, within `budget` when given (outbound.ts). */
export function postGrant(fetchFn: FetchFunction, url: string, fields: URLSearchParams, now: () => number, budget?: AbortSignal): Promise<OwnReply> {
  return sendOwn(
    fetchFn,
    {
      method: 'POST',
      url,
      label: `The token endpoint ${url}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: fields,
      maxChars: MAX_TOKEN_BODY_CHARS,
      budget,
    },
    now,
  );
}
