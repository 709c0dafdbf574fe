import { bridgeError, openShop, pageFetch } from '../support.js';
import { expect, openSpreeShop, test, type TokenPair } from './support.js';

const ACCOUNT = '/api/v2/storefront/account';

test('a wrong password is invalid_grant 400 and changes nothing; the right one signs in and puts the bearer on account calls', async ({ context, doorkeeper }) => {
  const page = await openSpreeShop(context, doorkeeper);
  const { username, password } = doorkeeper.user;
  const guest = await page.evaluate(() => window.storefrontAuth.getState());

  expect(await bridgeError(page, 'login', { username, password: 'wrong' })).toMatchObject({ name: 'StorefrontAuthError', code: 'invalid_grant', status: 400 });
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(guest);
  expect(await doorkeeper.stats()).toMatchObject({ passwordGrants: 1, invalidGrants: 1 });

  const started = Date.now();
  const signedIn = await page.evaluate((credentials) => window.storefrontAuth.login(credentials), { username, password });
  expect(signedIn).toMatchObject({ signedIn: true, cart: null });
  // Doorkeeper's expires_in is seconds: the expiry is about two hours away.
  expect(signedIn.accessTokenExpiresAt! - started).toBeGreaterThan(7_190_000);
  expect(signedIn.accessTokenExpiresAt! - Date.now()).toBeLessThanOrEqual(7_200_000);

  const [, grant] = await doorkeeper.requestsTo('POST', '/spree_oauth/token');
  expect(grant?.headers.contentType).toContain('application/x-www-form-urlencoded');
  expect(Object.fromEntries(new URLSearchParams(grant?.body))).toEqual({ grant_type: 'password', username, password });
  const pair = grant?.response as TokenPair;

  const account = await pageFetch(page, ACCOUNT);
  expect(account.status).toBe(200);
  expect(JSON.parse(account.body)).toMatchObject({ data: { type: 'user', attributes: { email: username } } });
  expect((await doorkeeper.requestsTo('GET', ACCOUNT)).map((request) => request.headers.authorization)).toEqual([`Bearer ${pair.access_token}`]);
});

test("with sealing off, the browser revalidates account calls with Rails' ETag: Doorkeeper's 304 reaches the page as the same 200", async ({ context, doorkeeper }) => {
  // Sealed answers (on by default) are fetched with no-store, account answers included, so the HTTP
  // cache keeps no order list for a page the worker does not control: nothing is revalidated then.
  const page = await openShop(context, doorkeeper, { preset: 'spree', sealTokens: 'false' });
  await page.evaluate((credentials) => window.storefrontAuth.login(credentials), doorkeeper.user);

  const first = await pageFetch(page, ACCOUNT);
  const second = await pageFetch(page, ACCOUNT);
  expect(first.status).toBe(200);
  expect(second).toEqual(first);

  const seen = await doorkeeper.requestsTo('GET', ACCOUNT);
  expect(seen.map((request) => request.status)).toEqual([200, 304]);
  expect(seen[1]?.headers.ifNoneMatch).toMatch(/^W\/".+"$/);
  // Both carried the worker's bearer; a 304 is not a 401, so nothing was refreshed.
  expect(new Set(seen.map((request) => request.headers.authorization)).size).toBe(1);
  expect(await doorkeeper.stats()).toMatchObject({ notModified: 1, refreshGrants: 0 });
});

test('with sealing on, account calls skip the HTTP cache: each reaches Doorkeeper whole, sealed', async ({ context, doorkeeper }) => {
  const page = await openSpreeShop(context, doorkeeper);
  await page.evaluate((credentials) => window.storefrontAuth.login(credentials), doorkeeper.user);
  const first = await pageFetch(page, ACCOUNT);
  const second = await pageFetch(page, ACCOUNT);
  expect(second).toEqual(first);
  const seen = await doorkeeper.requestsTo('GET', ACCOUNT);
  expect(seen.map((request) => request.status)).toEqual([200, 200]);
  expect(seen[1]?.headers.ifNoneMatch).toBeUndefined();
});
