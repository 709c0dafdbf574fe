import { bridgeError, expect, openShop, requestsTo, test, type OverrideReply } from './support.js';

test('a failed login rejects with a clear error and leaves the state as it was', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const guest = await page.evaluate(() => window.storefrontAuth.createCart());
  const eventsBefore = 1;
  const { username, password } = storefront.user;

  expect(await bridgeError(page, 'login', { username, password: 'wrong' })).toMatchObject({ name: 'StorefrontAuthError', code: 'invalid_grant', status: 400 });

  // Missing or empty fields never reach the server.
  const grantsBefore = requestsTo(storefront, 'POST', '/store_oauth/token').length;
  for (const argument of [{ username, password: '' }, { username: '', password }, { username }, undefined, { username: 42, password }]) {
    expect(await bridgeError(page, 'login', argument), JSON.stringify(argument)).toMatchObject({ code: 'invalid_request' });
  }
  expect(requestsTo(storefront, 'POST', '/store_oauth/token').length).toBe(grantsBefore);

  const malformed: Array<[string, OverrideReply, number]> = [
    ['an HTML gateway page', { status: 502, headers: { 'Content-Type': 'text/html' }, body: '<html>Bad Gateway</html>' }, 502],
    ['a 500 with a JSON error', { status: 500, body: { error: 'boom' } }, 500],
    ['a 200 that is not JSON', { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'ok' }, 200],
    ['no access_token', { status: 200, body: { token_type: 'Bearer', expires_in: 7200, refresh_token: 'r', created_at: 1 } }, 200],
    ['no refresh_token', { status: 200, body: { access_token: 'a', token_type: 'Bearer', expires_in: 7200, created_at: 1 } }, 200],
    ['expires_in as a string', { status: 200, body: { access_token: 'a', token_type: 'Bearer', expires_in: '7200', refresh_token: 'r', created_at: 1 } }, 200],
    ['a 200 with an error body', { status: 200, body: { error: 'invalid_grant' } }, 200],
  ];
  for (const [what, reply, status] of malformed) {
    storefront.override('POST', '/store_oauth/token', reply);
    expect(await bridgeError(page, 'login', { username, password }), what).toMatchObject({ code: 'bad_response', status });
  }

  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(guest);
  expect(await page.evaluate(() => (window as unknown as { events: unknown[] }).events.length)).toBe(eventsBefore);

  // Signed in, a failed second login keeps the session.
  const signedIn = await page.evaluate((credentials) => window.storefrontAuth.login(credentials), { username, password });
  expect(await bridgeError(page, 'login', { username, password: 'wrong' })).toMatchObject({ code: 'invalid_grant' });
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(signedIn);
});
