// A signed-in page's GET with `guest_order_token=sealed:cart` while no cart is held: the first try
// goes with the placeholder as written (nothing to swap it for), so the worker does not treat the
// answer's URL as holding a token. The server redirects under the base keeping the query; while the
// browser follows, a cart is kept (another tab made one). Since e7636ea the worker's own final ask
// swaps the placeholder the Location kept with what is held by then: the final answer comes from a
// URL holding the real cart token, and with sealing off it reaches the page as it is, so the page's
// `response.url` shows the real token. docs/security.md, "Placeholders sent back": the answer to a
// request whose query was swapped reaches the page without the URL it was sent to (which holds the
// real token), so `response.url` and XHR's `responseURL` show the page's own URL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { opaqueRedirect, redirectedTo } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const HOUR = 3_600_000;
const SIGNED_IN: Credentials = { cart: null, session: { accessToken: 'ac+c/e"ss\\1', refreshToken: 'r/e+f"1', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true }, backoff: null };
// The second token holds what encodeURIComponent leaves and a URL's query encodes (`'`), and `~`.
const CARTS = [{ token: 'ne\\w+c/a"rt=', number: 'R808' }, { token: "it's~a'to(k)en!", number: 'R809' }];

/** What a browser's fetch answers: the Response's URL is the one asked. */
function answeredAt(url: string, body: unknown): Response {
  const response = Response.json(body);
  Object.defineProperty(response, 'url', { value: url });
  return response;
}

describe('a redirect\'s final ask after a cart was kept while the browser followed', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  for (const method of ['GET', 'HEAD'] as const) for (const CART of CARTS) {
    it(`${method}, sealTokens false, cart token ${CART.token}: the page's answer URL never holds the real cart token`, async () => {
      let asked = 0;
      const harness: { keep?: () => Promise<unknown> } = {};
      const { worker, through, keepAlive } = routedWorker({ preset: 'spree', sealTokens: false }, SIGNED_IN, {
        [`${method} /api/v2/storefront/account/orders`]: async (call: Call) => {
          const query = new URL(call.request.url).search;
          if (asked++ === 0 && call.request.redirect === 'manual') return opaqueRedirect();
          // Another tab's new cart is kept here while the browser follows the redirect.
          await harness.keep?.();
          return redirectedTo(`${BASE}/api/v2/storefront/checkout${query}`, '{}');
        },
        [`${method} /api/v2/storefront/checkout`]: (call: Call) => answeredAt(call.request.url, { data: { id: '1', type: 'checkout' } }),
      });
      harness.keep = () => worker.actions.keepCart(CART, null, keepAlive);
      const response = await through(new Request(`${BASE}/api/v2/storefront/account/orders?guest_order_token=sealed:cart`, { method }));
      assert.ok(response !== null, 'handled');
      const values = response.url === '' ? [] : [...new URL(response.url).searchParams.values()];
      assert.ok(!response.url.includes(encodeURIComponent(CART.token)) && !response.url.includes(CART.token) && !values.includes(CART.token), `the page's answer URL: ${response.url}`);
    });
  }
});
