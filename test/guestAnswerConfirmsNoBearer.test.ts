// A Store API server that refuses every bearer (docs/behaviour.md, "Refresh": "a server that refuses
// every bearer costs one refresh per back-off step, not one per request"). Spree's JWT is optional on
// a cart's own paths: a bad JWT there "counts as no user", and the `x-spree-token` the worker sends
// beside it gets the cart as a guest's, 200 (docs/servers.md, "The JWT and the refresh token"). That 200
// says nothing of the bearer, so it must not lift the back-off that the bearer's refused first use
// charged: a storefront that reads the cart and the account on every page view would otherwise
// refresh on every view.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { storeApiJwt } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const ME = 'GET /api/v3/store/customers/me';
const CART = 'GET /api/v3/store/carts/cart_9x';
const REFRESH = 'POST /api/v3/store/auth/refresh';

const signedIn: Credentials = {
  cart: { id: 'cart_9x', token: 'Ct/4+"k\\35charsxxxxxxxxxxxxxxxxxxx', number: 'R123456789' },
  session: { accessToken: storeApiJwt(NOW / 1000 + 3600), refreshToken: 'Rf/1+"a\\b', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true },
  backoff: null,
};

describe('spree-v3: a server that refuses every bearer, while a cart call succeeds as a guest', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('page views reading the cart and the account cost one refresh per back-off step, not one per view', async () => {
    const clock = { now: NOW };
    let grants = 0;
    const { through, settled } = routedWorker(
      { preset: 'spree-v3', publishableKey: 'pk_test_9' },
      signedIn,
      {
        [REFRESH]: () => (grants++, Response.json({ token: storeApiJwt(Math.floor(clock.now / 1000) + 3600), refresh_token: `Rf/${grants + 1}+"z\\`, user: { id: 'cus_1' } })),
        // The JWT is refused wherever it is required...
        [ME]: () => Response.json({ error: { code: 'authentication_required', message: 'Authentication required' } }, { status: 401 }),
        // ...and ignored where it is optional: the cart token gets the cart.
        [CART]: (call) => (call.request.headers.get('x-spree-token') === null ? new Response(null, { status: 403 }) : Response.json({ id: 'cart_9x', number: 'R123456789', token: signedIn.cart!.token })),
      },
      () => clock.now,
    );
    // Four page views within two seconds, each reading the cart, then the account.
    for (let view = 0; view < 4; view++) {
      clock.now = NOW + view * 500;
      assert.equal((await through(new Request(`${BASE}/api/v3/store/carts/cart_9x`)))?.status, 200);
      assert.equal((await through(new Request(`${BASE}/api/v3/store/customers/me`)))?.status, 401);
      await settled();
    }
    // The login's bearer is refreshed at once on its 401; its successor is refused on its first use,
    // which is a failed refresh: nothing more before the 5 s back-off ends.
    assert.equal(grants, 1, `refresh grants sent within 2 s: ${grants}`);
  });
});
