/**
 * Spree 5's Store API (preset spree-v3): login is a JSON `POST /auth/login`; after it the worker puts
 * the bearer on `/customers/me` and both the bearer and `x-spree-token` on the cart's calls, and
 * nothing on the public ones. A wrong password is `invalid_grant`, status 401, and changes nothing.
 */
import { realCartToken, requestsTo } from '../support.js';
import { expect, inEveryEngine, spreeV3Storefront, test } from './fixtures.js';
import { bridgeError, getState, login, recordedEvents, V3, v3Fetch } from './shop.js';

test.use({ storefrontOptions: spreeV3Storefront() });

/** The claims of a JWT, read without checking its signature. */
function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
}

inEveryEngine(() =>
  test('after login the worker puts the bearer on /customers/me and bearer and x-spree-token on cart calls; a wrong password is invalid_grant 401', async ({ shop, storefront }) => {
    const tab = await shop.openV3();
    const guest = { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 };

    expect(await bridgeError(tab, 'login', { username: storefront.user.username, password: 'wrong' })).toEqual({ name: 'StorefrontAuthError', code: 'invalid_grant', status: 401 });
    expect(await getState(tab)).toEqual(guest);
    expect(await recordedEvents(tab)).toEqual([]);

    const state = await login(tab, storefront.user);
    const [, grant] = requestsTo(storefront, 'POST', `${V3}/auth/login`);
    expect(JSON.parse(grant?.body ?? '{}')).toEqual({ email: storefront.user.username, password: storefront.user.password });
    expect(grant?.headers.apiKey).toBe(storefront.v3?.publishableKey);

    const me = await v3Fetch(tab, storefront, '/customers/me');
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body)).toMatchObject({ email: storefront.user.username });
    const bearer = requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.authorization ?? '';
    expect(bearer).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    const jwt = bearer.slice('Bearer '.length);
    expect(claims(jwt)).toMatchObject({ iss: 'spree', aud: 'store_api', user_type: 'customer' });
    // The JWT's exp, in whole seconds, is the whole of the lifetime the worker learns.
    expect(state).toEqual({ signedIn: true, accessTokenExpiresAt: Number(claims(jwt)['exp']) * 1000, cart: null, pendingWrites: 0 });

    const created = await v3Fetch(tab, storefront, '/carts', { method: 'POST' });
    expect(created.status).toBe(201);
    const { id, number } = JSON.parse(created.body) as { id: string; number: string };
    expect(requestsTo(storefront, 'POST', `${V3}/carts`).at(-1)?.headers, 'signed in, the cart is created for the user').toMatchObject({ authorization: bearer, orderToken: undefined });
    expect((await getState(tab)).cart).toEqual({ number, id });

    const read = await v3Fetch(tab, storefront, `/carts/${id}`);
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body)).toMatchObject({ number, customer_id: expect.stringMatching(/^cus_/), token: 'sealed:cart' });
    expect(requestsTo(storefront, 'GET', `${V3}/carts/${id}`).at(-1)?.headers, 'both credentials on a cart call').toMatchObject({ authorization: bearer, orderToken: realCartToken(storefront, number) });

    expect((await v3Fetch(tab, storefront, '/products')).status).toBe(200);
    expect(requestsTo(storefront, 'GET', `${V3}/products`).at(-1)?.headers).toMatchObject({ authorization: undefined, orderToken: undefined });

    const seen = JSON.stringify([await getState(tab), await recordedEvents(tab), me.body, read.body]);
    expect(seen, 'no token in the state, the events or the bodies the page read').not.toContain(jwt);
    expect(seen).not.toContain(realCartToken(storefront, number));
  }),
);
