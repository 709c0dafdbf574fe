/**
 * A refresh answered 429 with `Retry-After: 99999999999999` (seconds: past what a Date holds). The
 * wait is honoured up to 5 minutes, and nothing about it throws: while the bearer is still valid,
 * calls keep going out with it and `createCart()` works; once it has expired, a method fails with
 * `network_error` naming a retry time at most 5 minutes after the 429, and the session is kept.
 * On 3ffce34 the second call failed as a network error (a RangeError from `toISOString()` in the
 * worker) and `createCart()` rejected `bad_response` "RangeError: Invalid time value"; the stored
 * back-off ran for millennia, so calls failed until the shopper logged out.
 */
import { expect, lastBearer, login, openShop, pageFetch, requestsTo, test } from './support.js';

const ACCOUNT = '/api/v2/storefront/account';
const FIVE_MINUTES = 5 * 60_000;

// 20 s of lifetime: the refresh margin is 2 s (a tenth of it), short enough to reach in a test.
test.use({ storefrontOptions: { accessTokenLifetime: 20 } });

test('a 429 with a Retry-After of millennia leaves the valid bearer in use, throws nothing, and backs off at most 5 minutes', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const signedIn = await login(page, storefront.user);
  expect((await pageFetch(page, ACCOUNT)).status).toBe(200);
  const bearer = lastBearer(storefront, 'GET', ACCOUNT);

  // Inside the 2 s margin, so every call is due for a refresh, with 1.6 s of validity left.
  const expiresAt = signedIn.accessTokenExpiresAt ?? 0;
  await page.waitForTimeout(expiresAt - 1_600 - Date.now());
  storefront.override('POST', '/store_oauth/token', { status: 429, headers: { 'Retry-After': '99999999999999' }, body: { error: 'rate_limited' }, times: 20 });
  storefront.clearLog();
  const limitedAt = Date.now();

  const first = await pageFetch(page, ACCOUNT);
  const second = await page.evaluate((url) => fetch(url).then((response) => response.status, (error: Error) => `${error.name}: ${error.message}`), ACCOUNT);
  const created = await page.evaluate(() => window.storefrontAuth.createCart().then((state) => ({ cart: state.cart !== null }), (error: { code: string; message: string }) => ({ code: error.code, message: error.message })));
  expect(Date.now(), 'the calls ran before the bearer expired').toBeLessThan(expiresAt);

  expect([first.status, second], 'calls go out while the bearer is valid').toEqual([200, 200]);
  expect(requestsTo(storefront, 'GET', ACCOUNT).map((request) => request.headers.authorization), 'each with the bearer still valid').toEqual([bearer, bearer]);
  expect(created, 'createCart() works on the bearer still valid').toEqual({ cart: true });
  expect(storefront.stats().refreshGrants, 'one attempt, then the back-off').toBe(1);

  // Expired, and the refresh backing off: a method fails with network_error, naming when it retries.
  await page.waitForTimeout(expiresAt + 200 - Date.now());
  const failed = await page.evaluate(() => window.storefrontAuth.createCart().then(() => null, (error: { code: string; message: string }) => ({ code: error.code, message: error.message })));
  expect(failed?.code, failed?.message).toBe('network_error');
  const until = Date.parse(/until (\S+)/.exec(failed?.message ?? '')?.[1] ?? '');
  expect(until - limitedAt, `backs off until ${new Date(until).toISOString()}`).toBeLessThanOrEqual(FIVE_MINUTES + 2_000);
  expect(until).toBeGreaterThan(Date.now());
  expect(storefront.stats().refreshGrants, 'no refresh within the back-off').toBe(1);
  expect(await page.evaluate(() => window.storefrontAuth.getState()), 'the pair is kept').toMatchObject({ signedIn: true, accessTokenExpiresAt: signedIn.accessTokenExpiresAt });
});
