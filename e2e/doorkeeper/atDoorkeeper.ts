/**
 * Requests to the Doorkeeper bench from Node, with no browser, worker or HTTP cache in between: the
 * grants, revocation and account call that probe what Doorkeeper does and prove what the worker left
 * alive.
 */
import { expect } from '@playwright/test';
import type { BenchRequest, Doorkeeper, TokenPair } from './bench.js';

/** A bench answer read from Node: status, headers and the body as text and, when it is JSON, parsed. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** Sends a request to the bench from Node (no browser, no worker, no HTTP cache). */
export async function send(doorkeeper: Doorkeeper, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(doorkeeper.url + path, { redirect: 'manual', ...init });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** POSTs a form-encoded body, as the worker does for its grants and revocations. */
export function postForm(doorkeeper: Doorkeeper, path: string, form: Record<string, string>): Promise<Answer> {
  return send(doorkeeper, path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
}

/** The password grant (docs/servers.md, "Tokens") at Spree's token path. */
export function passwordGrant(doorkeeper: Doorkeeper, password = doorkeeper.user.password): Promise<Answer> {
  return postForm(doorkeeper, '/spree_oauth/token', { grant_type: 'password', username: doorkeeper.user.username, password });
}

/** The refresh grant (docs/servers.md, "Tokens"). */
export function refreshGrant(doorkeeper: Doorkeeper, refreshToken: string): Promise<Answer> {
  return postForm(doorkeeper, '/spree_oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken });
}

/** RFC 7009 revocation of either token of a pair. */
export function revoke(doorkeeper: Doorkeeper, token: string): Promise<Answer> {
  return postForm(doorkeeper, '/spree_oauth/revoke', { token });
}

/** GET /api/v2/storefront/account, with a bearer when one is given. */
export function getAccount(doorkeeper: Doorkeeper, accessToken?: string, headers: Record<string, string> = {}): Promise<Answer> {
  return send(doorkeeper, '/api/v2/storefront/account', { headers: { ...headers, ...(accessToken === undefined ? {} : { Authorization: `Bearer ${accessToken}` }) } });
}

/** A password grant that must succeed. */
export async function signIn(doorkeeper: Doorkeeper): Promise<TokenPair> {
  const answer = await passwordGrant(doorkeeper);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as TokenPair;
}

/** A refresh grant that must succeed. */
export async function refreshed(doorkeeper: Doorkeeper, refreshToken: string): Promise<TokenPair> {
  const answer = await refreshGrant(doorkeeper, refreshToken);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as TokenPair;
}

/** Waits until the worker's background revocation has been answered: `count` revoke requests, each with a status. */
export async function revocationsAnswered(doorkeeper: Doorkeeper, count: number): Promise<BenchRequest[]> {
  await expect
    .poll(async () => (await doorkeeper.requestsTo('POST', '/spree_oauth/revoke')).filter((request) => request.status !== undefined).length, {
      message: `${count} revocation(s) answered`,
      timeout: 15_000,
    })
    .toBeGreaterThanOrEqual(count);
  return doorkeeper.requestsTo('POST', '/spree_oauth/revoke');
}

/**
 * Proves at Doorkeeper that no token of `pairs` works any more: every refresh token is refused
 * (`400 invalid_grant`) and every access token is refused on a resource request (`401`, revoked).
 * The refresh grants go first: a first use of a live refreshed access token would itself revoke the
 * pair before it (Doorkeeper's rotation) and so hide a pair the client left alive.
 */
export async function expectNoTokenWorks(doorkeeper: Doorkeeper, pairs: TokenPair[]): Promise<void> {
  expect(pairs.length, 'pairs to check').toBeGreaterThan(0);
  for (const [index, pair] of pairs.entries()) {
    const answer = await refreshGrant(doorkeeper, pair.refresh_token);
    expect({ pair: index, status: answer.status, error: (answer.json as { error?: string } | undefined)?.error }, `refresh token of pair ${index}`).toEqual({
      pair: index,
      status: 400,
      error: 'invalid_grant',
    });
  }
  for (const [index, pair] of pairs.entries()) {
    const answer = await getAccount(doorkeeper, pair.access_token);
    expect({ pair: index, status: answer.status, body: answer.json }, `access token of pair ${index}`).toEqual({
      pair: index,
      status: 401,
      body: { error: 'The access token was revoked' },
    });
  }
}
