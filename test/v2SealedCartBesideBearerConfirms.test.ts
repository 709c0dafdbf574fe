// on v2 (spree) a cart call with the bearer and the order token answers as the
// bearer's user ("with both, the bearer's user decides"; an expired or revoked bearer is answered 401).
// A signed-in SDK page sends `X-Spree-Order-Token: sealed:cart` beside `Bearer sealed:access` on every
// cart call: its 200 is the server's acceptance of the refreshed bearer, and a later 401 to that
// bearer is refreshed at once (docs/behaviour.md, "Refresh").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { BASE, routedWorker } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const CART = 'GET /api/v2/storefront/cart';
const ACCOUNT = 'GET /api/v2/storefront/account';
const TOKEN = 'POST /spree_oauth/token';

const held: Credentials = {
  cart: { token: 'cT/5+"k\\q', number: 'R555' },
  session: { accessToken: 'a0/+"x\\y', refreshToken: 'r0/+"x\\y', expiresAt: NOW + 10_000, lifetimeMs: HOUR, confirmed: true },
  backoff: null,
};

describe('spree (v2): a refreshed bearer accepted on a cart call that also carried the order token', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void (globalThis.BroadcastChannel = channel));

  it('is refreshed at once when later refused', async () => {
    let clock = NOW;
    let grants = 0;
    let revoked = false;
    const { through, settled } = routedWorker({ preset: 'spree' }, held, {
      [TOKEN]: () => (grants++, Response.json({ access_token: `a${grants}/+"\\`, token_type: 'Bearer', expires_in: 3600, refresh_token: `r${grants}/+"\\`, created_at: NOW / 1000 })),
      // The bearer's user decides: a live bearer gets the user's cart.
      [CART]: (call) => (revoked && call.request.headers.get('Authorization') === 'Bearer a1/+"\\' ? new Response(null, { status: 401 }) : Response.json({ data: { id: '5', type: 'cart', attributes: { number: 'R555' } } })),
      [ACCOUNT]: (call) => (call.request.headers.get('Authorization') === 'Bearer a1/+"\\' && revoked ? new Response(null, { status: 401 }) : Response.json({ data: {} })),
    }, () => clock);
    const cartCall = (): Request => new Request(`${BASE}/api/v2/storefront/cart`, { headers: { Authorization: 'Bearer sealed:access', 'X-Spree-Order-Token': 'sealed:cart' } });
    // Due: refreshed before it goes; the new bearer is accepted (200).
    assert.equal((await through(cartCall()))?.status, 200);
    await settled();
    assert.equal(grants, 1);
    // Later the server ends that bearer early; the next call is refused, and refreshed at once.
    clock = NOW + 60_000;
    revoked = true;
    const answer = await through(cartCall());
    await settled();
    assert.equal(grants, 2, 'the accepted bearer, refused later, is refreshed at once');
    assert.equal(answer?.status, 200);
  });
});
