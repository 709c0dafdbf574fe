import { bridgeError, expect, login, requestsTo, test } from './support.js';
import { openV3Shop, stateOf, V3, V3_KEY, V3_STOREFRONT, v3CartToken, v3Fetch } from './storeApiV3.js';

test.use({ storefrontOptions: V3_STOREFRONT });

/** The `exp` claim of a JWT, in epoch ms. */
function expiryOf(jwt: string): number {
  return (JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as { exp: number }).exp * 1000;
}

test('at a Spree 5 shop a wrong password changes nothing; signing in puts the JWT on account calls and both credentials on cart calls', async ({ context, storefront }) => {
  const page = await openV3Shop(context, storefront);
  const guest = await page.evaluate(() => window.storefrontAuth.createCart());

  const wrong = await bridgeError(page, 'login', { username: storefront.user.username, password: 'not-the-password' });
  expect(wrong).toMatchObject({ name: 'StorefrontAuthError', code: 'invalid_grant', status: 401 });
  expect(wrong?.message).not.toContain('not-the-password');
  expect(await stateOf(page)).toEqual(guest);
  const [refused] = requestsTo(storefront, 'POST', `${V3}/auth/login`);
  expect(refused?.headers.apiKey).toBe(V3_KEY);
  expect(JSON.parse(refused?.body ?? '{}')).toMatchObject({ email: storefront.user.username });

  const signedIn = await login(page, storefront.user);
  expect(signedIn.signedIn).toBe(true);
  expect(signedIn.cart).toEqual(guest.cart);

  const me = await v3Fetch(page, '/customers/me');
  expect(me.status).toBe(200);
  expect(me.json).toMatchObject({ email: storefront.user.username });
  const bearer = requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.authorization ?? '';
  expect(bearer).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
  // The expiry is the JWT's own `exp`: Store API token responses carry no lifetime.
  expect(signedIn.accessTokenExpiresAt).toBe(expiryOf(bearer.slice('Bearer '.length)));
  expect(requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.orderToken).toBeUndefined();

  const cart = await v3Fetch(page, `/carts/${guest.cart?.id}`);
  expect(cart.status).toBe(200);
  const sent = requestsTo(storefront, 'GET', `${V3}/carts/${guest.cart?.id}`).at(-1);
  expect(sent?.headers.authorization).toBe(bearer);
  expect(sent?.headers.orderToken, 'the cart token goes too: an expired JWT there is a guest').toBe(v3CartToken(storefront, guest.cart?.number));

  // The user's carts need the JWT alone.
  expect((await v3Fetch(page, '/carts')).status).toBe(200);
  expect(requestsTo(storefront, 'GET', `${V3}/carts`).at(-1)?.headers.authorization).toBe(bearer);
});
