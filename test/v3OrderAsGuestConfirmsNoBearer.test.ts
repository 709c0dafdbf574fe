// on spree-v3 a refused JWT "counts as no user" wherever the JWT is optional
// (docs/servers.md, "The credential per route"): `GET /orders/:id` and `/carts/:id` with the bearer alone are served
// as a guest's, 404 or 403. Such an answer says nothing of the bearer, and must not lift the back-off
// that the refreshed bearer's refused first use charged (docs/behaviour.md, "Refresh": a server that
// refuses every bearer costs one refresh per back-off step, not one per request). Signed in, no cart
// held (an order completed), the worker adds the bearer alone there.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { storeApiJwt } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const ME = 'GET /api/v3/store/customers/me';
const ORDER = 'GET /api/v3/store/orders/R118205737';
const REFRESH = 'POST /api/v3/store/auth/refresh';

const signedIn: Credentials = {
  cart: null,
  session: { accessToken: storeApiJwt(NOW / 1000 + 3600), refreshToken: 'Rq\\9+"o/x', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true },
  backoff: null,
};

describe('spree-v3: an order looked up as a guest\'s while the bearer is refused', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void (globalThis.BroadcastChannel = channel));

  it('does not confirm the refused refreshed bearer (404 to the bearer alone)', async () => {
    const clock = { now: NOW };
    let grants = 0;
    const { through, settled } = routedWorker(
      { preset: 'spree-v3', publishableKey: 'pk_test_9' },
      signedIn,
      {
        [REFRESH]: () => (grants++, Response.json({ token: storeApiJwt(Math.floor(clock.now / 1000) + 3600), refresh_token: `R/${grants + 1}+"q\\`, user: { id: 'cus_9' } })),
        [ME]: () => Response.json({ error: { code: 'authentication_required', message: 'Authentication required' } }, { status: 401 }),
        // A guest without the order's token: not found.
        [ORDER]: () => Response.json({ error: { code: 'record_not_found', message: 'Order not found' } }, { status: 404 }),
      },
      () => clock.now,
    );
    for (let view = 0; view < 4; view++) {
      clock.now = NOW + view * 500;
      assert.equal((await through(new Request(`${BASE}/api/v3/store/customers/me`)))?.status, 401);
      await settled();
      assert.equal((await through(new Request(`${BASE}/api/v3/store/orders/R118205737`)))?.status, 404);
      await settled();
    }
    assert.equal(grants, 1, `refresh grants sent within 2 s: ${grants}`);
  });
});
