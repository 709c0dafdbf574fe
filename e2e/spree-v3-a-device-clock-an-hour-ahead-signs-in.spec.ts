/**
 * The device's clock reads 65 minutes ahead of the shop's: the Store API's server writes its JWTs'
 * `exp` (an hour ahead) and its answers' `Date` by its own clock, 65 minutes behind the browser's
 * (the reference storefront's `clockOffset`: the same as a device clock set 65 minutes ahead). The
 * worker judges a JWT's lifetime as `exp` minus the answer's `Date`, so the bridge's login and a
 * page's own login both sign the shopper in for about an hour on the device's clock, and the bearer
 * goes out. On 3ffce34 the login rejected `bad_response` (status 200): the JWT looked expired on arrival.
 */
import { expect, requestsTo, test } from './support.js';
import { openV3Shop, stateOf, V3, V3_STOREFRONT, v3Fetch } from './storeApiV3.js';

const HOUR = 3_600_000;

test.use({ storefrontOptions: { ...V3_STOREFRONT, clockOffset: -65 * 60 } });

test("with the device's clock 65 minutes ahead of the shop's, login and a page's own login sign in for the JWT's hour", async ({ context, storefront }) => {
  const page = await openV3Shop(context, storefront);
  const before = Date.now();
  const signedIn = await page.evaluate(({ username, password }) => window.storefrontAuth.login({ username, password }).then((state) => state, (error: { code: string; status?: number }) => ({ code: error.code, status: error.status })), storefront.user);
  expect(signedIn, 'the bridge signs in').toMatchObject({ signedIn: true });
  const expiresAt = (signedIn as { accessTokenExpiresAt: number }).accessTokenExpiresAt;
  // An hour from now on the device's clock (less the second the answer's Date leaves open).
  expect(expiresAt - before).toBeGreaterThan(HOUR - 5_000);
  expect(expiresAt - Date.now()).toBeLessThanOrEqual(HOUR);

  expect((await v3Fetch(page, '/customers/me')).status).toBe(200);
  expect(requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.authorization).toMatch(/^Bearer \S+\.\S+\.\S+$/);
  expect(requestsTo(storefront, 'POST', `${V3}/auth/refresh`), 'no refresh: the JWT is far from due').toEqual([]);
  expect(storefront.stats().revocations, 'nothing was abandoned').toBe(0);

  // A page's own login (the SDK's), read by the worker from the answer it captures.
  await page.evaluate(() => window.storefrontAuth.logout());
  const own = await v3Fetch(page, '/auth/login', { method: 'POST', body: { email: storefront.user.username, password: storefront.user.password } });
  expect(own.status).toBe(200);
  await expect.poll(() => stateOf(page).then((state) => state.signedIn), { message: "the page's own login is kept" }).toBe(true);
  expect(((await stateOf(page)).accessTokenExpiresAt ?? 0) - Date.now()).toBeGreaterThan(HOUR - 5_000);
  expect((await v3Fetch(page, '/customers/me')).status).toBe(200);
});
