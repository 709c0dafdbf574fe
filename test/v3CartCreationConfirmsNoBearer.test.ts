// on spree-v3, `POST /store/carts` takes an optional JWT: a refused one "counts as no
// user" and the cart is created as a guest's (201). That answer says nothing of the bearer, and must
// not lift the back-off that the bearer's refused first use charged (docs/behaviour.md, "Refresh":
// a server that refuses every bearer costs one refresh per back-off step, not one per request).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { storeApiJwt } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const ME = 'GET /api/v3/store/customers/me';
const CARTS = 'POST /api/v3/store/carts';
const REFRESH = 'POST /api/v3/store/auth/refresh';

const signedIn: Credentials = {
  cart: null,
  session: { accessToken: storeApiJwt(NOW / 1000 + 3600), refreshToken: 'Kr/3+"e\\f', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true },
  backoff: null,
};

describe('spree-v3: a cart created as a guest\'s while the bearer is refused', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void (globalThis.BroadcastChannel = channel));

  it('does not confirm the refused refreshed bearer', async () => {
    const clock = { now: NOW };
    let grants = 0;
    let carts = 0;
    const { through, settled } = routedWorker(
      { preset: 'spree-v3', publishableKey: 'pk_test_3' },
      signedIn,
      {
        [REFRESH]: () => (grants++, Response.json({ token: storeApiJwt(Math.floor(clock.now / 1000) + 3600), refresh_token: `Kr/${grants + 1}+"g\\`, user: { id: 'cus_3' } })),
        [ME]: () => Response.json({ error: { code: 'authentication_required', message: 'Authentication required' } }, { status: 401 }),
        [CARTS]: () => (carts++, Response.json({ id: `cart_n${carts}`, number: `R00${carts}`, token: `Nw/${carts}+"t\\oken-35-characters-long-x` }, { status: 201 })),
      },
      () => clock.now,
    );
    for (let view = 0; view < 4; view++) {
      clock.now = NOW + view * 500;
      assert.equal((await through(new Request(`${BASE}/api/v3/store/customers/me`)))?.status, 401);
      await settled();
      assert.equal((await through(new Request(`${BASE}/api/v3/store/carts`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })))?.status, 201);
      await settled();
    }
    assert.equal(grants, 1, `refresh grants sent within 2 s: ${grants}`);
  });
});
