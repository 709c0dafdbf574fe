// A page GET the worker handles without adding a header of its own (it swapped a query placeholder,
// or the page sent a stale `Bearer sealed:access` as a guest) that the server redirects to another
// path under the base: the final location is asked once more with the credential the table gives
// its own path (docs/security.md: "a redirect that stays under it gets the credential its target
// path gets"; docs/behaviour.md, "Redirects").
// Found by test/requestHeadersRandomized.test.ts (seed 9529 of SEED=777).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { opaqueRedirect, redirectedTo } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('a redirect under the base after a request the worker added no header to', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  for (const [what, path, headers] of [
    ['a query placeholder swapped on an account path', '/api/v2/storefront/account/orders?guest_order_token=sealed:cart', {}],
    ['a stale Bearer sealed:access on an account path', '/api/v2/storefront/account/orders', { Authorization: 'Bearer sealed:access' }],
  ] as const) {
    it(`${what}: the checkout it lands on is asked with the guest's order token`, async () => {
      const cart = { token: '+Cart/tok\\"%9z', number: 'R7' };
      let asked = 0;
      // The server moved the page's orders list to the checkout (an opaque redirect to a manual fetch).
      const redirecting = (call: Call): Response => (asked++ === 0 && call.request.redirect === 'manual' ? opaqueRedirect() : redirectedTo(`${BASE}/api/v2/storefront/checkout`, '{"error":"not found"}'));
      const { calls, through } = routedWorker({ preset: 'spree' }, { cart, session: null, backoff: null }, {
        'GET /api/v2/storefront/account/orders': redirecting,
        'GET /api/v2/storefront/checkout': (call) => (call.request.headers.get('X-Spree-Order-Token') === cart.token ? Response.json({ data: { id: '1', type: 'checkout' } }) : Response.json({ error: 'not found' }, { status: 404 })),
      });
      await settle();
      const response = await through(new Request(`${BASE}${path}`, { headers }));
      assert.ok(response !== null, 'handled');
      const checkout = calls.filter((call) => call.route === 'GET /api/v2/storefront/checkout');
      assert.deepEqual(
        checkout.map((call) => call.request.headers.get('X-Spree-Order-Token')),
        [cart.token],
        `the final location asked with the order token; sent: ${JSON.stringify(calls.map((call) => [call.request.url, call.request.redirect, [...call.request.headers]]))}`,
      );
      assert.equal(response.status, 200);
    });
  }
});
