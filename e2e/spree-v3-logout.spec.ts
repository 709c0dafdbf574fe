import { expect, login, openShop, requestsTo, test } from './support.js';
import { openV3Shop, stateOf, V3, V3_KEY, V3_STOREFRONT, v3, v3Fetch } from './storeApiV3.js';

test.use({ storefrontOptions: V3_STOREFRONT });

test('logout at a Spree 5 shop forgets the pair and the cart in every tab and revokes the refresh token; the JWT lives on until its exp, as Spree cannot revoke it', async ({ context, storefront }) => {
  const page = await openV3Shop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  await login(page, storefront.user);
  const other = await openShop(context, storefront, { preset: 'spree-v3', publishableKey: V3_KEY });
  await v3Fetch(page, '/customers/me');
  const bearer = requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.authorization ?? '';
  const [refreshToken] = [...v3(storefront).refreshTokens.keys()];

  const out = await page.evaluate(() => window.storefrontAuth.logout());
  expect(out).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
  await expect.poll(() => stateOf(other)).toEqual(out);

  await expect.poll(() => requestsTo(storefront, 'POST', `${V3}/auth/logout`).length).toBe(1);
  const [revocation] = requestsTo(storefront, 'POST', `${V3}/auth/logout`);
  expect(revocation?.headers.apiKey).toBe(V3_KEY);
  expect(revocation?.headers.authorization, 'logout needs no JWT').toBeUndefined();
  expect(revocation?.refreshToken).toBe(refreshToken);
  expect(revocation?.status).toBe(204);
  expect(v3(storefront).refreshTokens.size).toBe(0);

  // Nothing goes out with a credential afterwards.
  expect((await v3Fetch(page, '/customers/me')).status).toBe(401);
  expect(requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.authorization).toBeUndefined();
  // Spree keeps no JWT revocation list (docs/servers.md, "The JWT and the refresh token"): the JWT
  // works until its exp.
  const direct = await fetch(`${storefront.url}${V3}/customers/me`, { headers: { 'X-Spree-Api-Key': V3_KEY, Authorization: bearer } });
  expect(direct.status).toBe(200);
});
