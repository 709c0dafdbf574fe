/**
 * Talking to the OAuth token endpoint (SPEC.md 4.2, 4.3): building the form-encoded grants, and
 * sending one with a time limit so that a hung server cannot hold the refresh lock for ever.
 */
import { StorefrontAuthError } from '../shared/errors.js';
import type { TokenReply } from './tokenResponse.js';

/** How long a grant may take before it counts as a network failure. */
export const GRANT_TIMEOUT_MS = 10_000;

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

/** POSTs form fields to `url` and reads the answer as text, within `GRANT_TIMEOUT_MS`. */
export async function postForm(fetchFn: typeof fetch, url: string, fields: URLSearchParams, now: () => number): Promise<TokenReply> {
  let response: Response;
  try {
    response = await fetchFn(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: fields,
      credentials: 'omit',
      cache: 'no-store',
      signal: AbortSignal.timeout(GRANT_TIMEOUT_MS),
    });
  } catch (error) {
    throw networkError(url, error);
  }
  const receivedAt = now();
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw networkError(url, error);
  }
  if (text.length > MAX_TOKEN_BODY_CHARS) {
    throw new StorefrontAuthError('bad_response', `The token endpoint answered ${response.status} with ${text.length} characters, too many for a token response.`, {
      status: response.status,
    });
  }
  return { status: response.status, text, receivedAt };
}

/** A fetch that failed before any response: offline, DNS, CORS refusal, or the time limit. */
export function networkError(url: string, cause: unknown): StorefrontAuthError {
  const timedOut = cause instanceof DOMException && cause.name === 'TimeoutError';
  const message = timedOut
    ? `${url} did not answer within ${GRANT_TIMEOUT_MS / 1000} s; nothing changed, try again.`
    : `${url} could not be reached (offline, or refused by CORS); nothing changed, try again.`;
  return new StorefrontAuthError('network_error', message, { cause });
}
