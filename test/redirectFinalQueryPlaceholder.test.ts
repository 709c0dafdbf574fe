// A page GET whose `guest_order_token=sealed:cart` query the worker swapped, redirected by the server
// to another path under the base with the query it received (as Rails' `redirect_to … params` and the
// reference storefront's `keepQuery` do). The browser's follow-up carries the page's URL, placeholder
// in; the worker then asks the final location once more itself, with the credential its path gets
// (outbound.ts `sendPage`, since 04ecb64 also after a first try it added no header to). That request
// goes to a credentialed path under the base with `redirect: 'manual'`, yet carries the placeholder
// in its query unswapped: docs/security.md, "Placeholders sent back": a placeholder the page sends back
// to baseUrl (`guest_order_token=sealed:cart` in a query) is replaced by the current real value.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { opaqueRedirect, redirectedTo } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

describe('the worker\'s own final ask after a redirect that kept a swapped query', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  for (const method of ['GET', 'HEAD'] as const) {
    for (const sealTokens of [true, false]) {
      it(`${method}, sealTokens ${sealTokens}: the final location's query placeholder gets the real cart token`, async () => {
        const cart = { token: 'q\\"+/Zk%8w=', number: 'R31' };
        let asked = 0;
        const { calls, through } = routedWorker({ preset: 'spree', sealTokens }, { cart, session: null, backoff: null }, {
          // The orders list moved to the checkout; the server's Location keeps the query it received.
          [`${method} /api/v2/storefront/account/orders`]: (call: Call) => {
            const query = new URL(call.request.url).search;
            return asked++ === 0 && call.request.redirect === 'manual' ? opaqueRedirect() : redirectedTo(`${BASE}/api/v2/storefront/checkout${query}`, '{}');
          },
          [`${method} /api/v2/storefront/checkout`]: () => Response.json({ data: { id: '1', type: 'checkout' } }),
        });
        const response = await through(new Request(`${BASE}/api/v2/storefront/account/orders?guest_order_token=sealed:cart`, { method }));
        assert.ok(response !== null, 'handled');
        const finalAsk = calls.filter((call) => call.route === `${method} /api/v2/storefront/checkout`);
        assert.equal(finalAsk.length, 1, `the worker asked the checkout itself once: ${JSON.stringify(calls.map((call) => [call.request.url, call.request.redirect]))}`);
        const sent = finalAsk[0]!.request;
        assert.equal(sent.headers.get('X-Spree-Order-Token'), cart.token, 'with the credential its path gets');
        assert.deepEqual(new URL(sent.url).searchParams.getAll('guest_order_token'), [cart.token], `the query placeholder reached the server as it is: ${sent.url}`);
        // And the page never reads the real token in the answer's URL.
        assert.ok(!response.url.includes(encodeURIComponent(cart.token)), `the page's answer URL: ${response.url}`);
      });
    }
  }
});
