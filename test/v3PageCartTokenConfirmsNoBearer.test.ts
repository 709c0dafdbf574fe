// on spree-v3's cart paths a refused JWT is served as a guest's when a cart token goes
// beside it. The page's own x-spree-token beside the worker's bearer (Bearer sealed:access) is such a
// cart token: a 200 to it says nothing of the bearer, and must not lift the back-off.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { storeApiJwt } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const ME = 'GET /api/v3/store/customers/me';
const CART = 'GET /api/v3/store/carts/cart_7q';
const REFRESH = 'POST /api/v3/store/auth/refresh';

const signedIn: Credentials = {
  cart: { id: 'cart_7q', token: 'Hx/9+"q\\35charsyyyyyyyyyyyyyyyyyyy', number: 'R987654321' },
  session: { accessToken: storeApiJwt(NOW / 1000 + 3600), refreshToken: 'Zr/7+"c\\d', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true },
  backoff: null,
};

describe('spree-v3: the page\'s own cart token beside the worker\'s bearer', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void (globalThis.BroadcastChannel = channel));

  it('a 200 served as a guest does not confirm a refused refreshed bearer', async () => {
    const clock = { now: NOW };
    let grants = 0;
    const { through, settled } = routedWorker(
      { preset: 'spree-v3', publishableKey: 'pk_test_7' },
      signedIn,
      {
        [REFRESH]: () => (grants++, Response.json({ token: storeApiJwt(Math.floor(clock.now / 1000) + 3600), refresh_token: `Qr/${grants + 1}+"w\\`, user: { id: 'cus_2' } })),
        [ME]: () => Response.json({ error: { code: 'authentication_required', message: 'Authentication required' } }, { status: 401 }),
        [CART]: (call) => (call.request.headers.get('x-spree-token') === null ? new Response(null, { status: 403 }) : Response.json({ id: 'cart_7q', number: 'R987654321' })),
      },
      () => clock.now,
    );
    for (let view = 0; view < 4; view++) {
      clock.now = NOW + view * 500;
      const cart = new Request(`${BASE}/api/v3/store/carts/cart_7q`, { headers: { Authorization: 'Bearer sealed:access', 'x-spree-token': 'pageOwn/+"\\cart-token-35-chars-zz' } });
      assert.equal((await through(cart))?.status, 200);
      assert.equal((await through(new Request(`${BASE}/api/v3/store/customers/me`, { headers: { Authorization: 'Bearer sealed:access' } })))?.status, 401);
      await settled();
    }
    assert.equal(grants, 1, `refresh grants sent within 2 s: ${grants}`);
  });
});
