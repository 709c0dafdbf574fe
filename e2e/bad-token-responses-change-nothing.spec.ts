import { bridgeError, expect, login, openShop, pageFetch, recordedEvents, requestsTo, test, waitForExpiry, type OverrideReply } from './support.js';

test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: 2 } });

const TOKEN = '/store_oauth/token';
const ACCOUNT = '/api/v2/storefront/account';
const good = { access_token: 'access-from-a-bad-reply', token_type: 'Bearer', expires_in: 7200, refresh_token: 'refresh-from-a-bad-reply', created_at: 1 };
const json = { 'Content-Type': 'application/json' };

/** A reply body as the page reads it with sealed tokens: this file's tokens replaced by their placeholders. */
function sealed(body: string): string {
  return body
    .replaceAll('"access_token":"access-from-a-bad-reply"', '"access_token":"sealed:access"')
    .replaceAll('"refresh_token":"refresh-from-a-bad-reply"', '"refresh_token":"sealed:refresh"');
}

/** Token responses that are not token responses, each with the status the error must carry. */
const badReplies: Array<[string, OverrideReply]> = [
  ['an HTML page', { status: 200, headers: { 'Content-Type': 'text/html' }, body: '<!doctype html><title>Shop</title><p>Welcome' }],
  ['an empty body', { status: 200, headers: json, body: '' }],
  ['truncated JSON', { status: 200, headers: json, body: '{"access_token":"access-from-a-bad-reply","token_ty' }],
  ['JSON that is not an object', { status: 200, headers: json, body: '["access-from-a-bad-reply"]' }],
  ['no access_token', { status: 200, body: { ...good, access_token: undefined } }],
  ['an empty access_token', { status: 200, body: { ...good, access_token: '' } }],
  ['access_token as a number', { status: 200, body: { ...good, access_token: 12345 } }],
  ['no refresh_token', { status: 200, body: { ...good, refresh_token: undefined } }],
  ['expires_in as a string', { status: 200, body: { ...good, expires_in: '7200' } }],
  ['a negative expires_in', { status: 200, body: { ...good, expires_in: -5 } }],
  ['no expires_in', { status: 200, body: { ...good, expires_in: undefined } }],
  ['token_type mac', { status: 200, body: { ...good, token_type: 'mac' } }],
  ['no token_type', { status: 200, body: { ...good, token_type: undefined } }],
  ['a 200 with an error body', { status: 200, body: { error: 'invalid_grant', error_description: 'nope' } }],
  ['a body over 1 MiB', { status: 200, body: { ...good, padding: 'x'.repeat(1_100_000) } }],
  ['a 503 gateway page', { status: 503, headers: { 'Content-Type': 'text/html' }, body: '<html>Service Unavailable</html>' }],
  ['a 400 with an unknown error', { status: 400, body: { error: 'slow_down' } }],
];

test('token responses of the wrong shape fail with bad_response and change nothing, at login, at refresh and when the page sent the grant', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { username, password } = storefront.user;
  const guest = await page.evaluate(() => window.storefrontAuth.createCart());
  const messages: string[] = [];
  page.on('console', (message) => messages.push(message.text()));
  const eventCount = async (): Promise<number> => (await recordedEvents(page)).length;

  // 1. login: every bad reply rejects with bad_response and its status; the guest state stands.
  for (const [what, reply] of badReplies) {
    storefront.override('POST', TOKEN, reply);
    const error = await bridgeError(page, 'login', { username, password });
    expect(error, what).toMatchObject({ name: 'StorefrontAuthError', code: 'bad_response', status: reply.status });
    expect(error?.message, what).not.toContain('access-from-a-bad-reply');
  }
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(guest);
  expect(await eventCount()).toBe(1);

  // 2. The page's own grant: the page gets the server's answer untouched, and the worker keeps nothing.
  for (const [what, reply] of badReplies) {
    storefront.override('POST', TOKEN, reply);
    const answer = await pageFetch(page, TOKEN, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'password', username, password }) });
    expect(answer.status, what).toBe(reply.status);
    // As the server sent it, but sealed: whatever token a reply carries never reaches the page.
    expect(answer.body, what).toBe(sealed(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)));
  }
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(guest);
  expect(await eventCount()).toBe(1);
  expect(requestsTo(storefront, 'GET', ACCOUNT)).toHaveLength(0);
  expect((await pageFetch(page, ACCOUNT)).status, 'no bearer was kept from a bad reply').toBe(403);

  // 3. Refresh: a bad reply to the refresh grant keeps the pair (the request fails as a network
  //    error, as when the server cannot be reached), and the next refresh waits for the back-off
  //    (5 s) rather than go out with every request; then a good refresh works. (Each kind of bad
  //    reply at refresh is a unit test: test/sessionRefresher.test.ts.)
  const signedIn = await login(page, storefront.user);
  await waitForExpiry(page);
  const [what, reply] = badReplies.find(([name]) => name === 'a 503 gateway page')!;
  storefront.override('POST', TOKEN, reply);
  const grantsBefore = storefront.stats().refreshGrants;
  for (let attempt = 0; attempt < 3; attempt++) {
    const outcome = await page.evaluate(() => fetch('/api/v2/storefront/account').then((r) => `status ${r.status}`, (e: Error) => e.name));
    expect(outcome, what).toBe('TypeError');
    expect(await page.evaluate(() => window.storefrontAuth.getState()), what).toEqual(signedIn);
  }
  expect(storefront.stats().refreshGrants - grantsBefore, 'one refresh attempt, then the back-off').toBe(1);
  await page.waitForTimeout(5_100);
  expect((await pageFetch(page, ACCOUNT)).status).toBe(200);
  const refreshed = await page.evaluate(() => window.storefrontAuth.getState());
  expect(refreshed.signedIn).toBe(true);
  expect(refreshed.accessTokenExpiresAt).toBeGreaterThan(signedIn.accessTokenExpiresAt ?? 0);
  expect(storefront.stats().invalidGrants).toBe(0);
  expect(messages.filter((message) => message.includes('access-from-a-bad-reply'))).toEqual([]);
});
