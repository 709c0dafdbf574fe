// Redirect cases of a page GET the worker handles (docs/behaviour.md, "Redirects"; docs/security.md,
// "Placeholders sent back"). The browser's own follow-up of a redirect (the call sent with
// `redirect: 'follow'`) carries its headers wherever the redirect points, another origin included, so
// it must carry no real credential; the worker's own final ask goes to a location under the base only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { opaqueRedirect, redirectedTo } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};
const dump = (calls: Call[]): string => JSON.stringify(calls.map((call) => [call.request.url, call.request.redirect, [...call.request.headers]]));
const session = (accessToken: string, refreshToken: string) => ({ accessToken, refreshToken, expiresAt: Date.now() + 3_600_000, lifetimeMs: 3_600_000, confirmed: true });

describe('redirects of a page GET', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('cart -> another origin -> account under the base: the follow-up carries nothing real, only the final ask under the base gets the account path\'s bearer', async () => {
    const cart = { token: 'c+/t\\"ok9', number: 'R1' };
    const pair = session('acc/Ess+"\\9x', 'ref+re/sh\\"1');
    let asked = 0;
    const { calls, through } = routedWorker({ preset: 'spree' }, { cart, session: pair, backoff: null }, {
      // The browser follows cart -> https://pay.example/… -> the account path (one call, redirect: 'follow').
      'GET /api/v2/storefront/cart': (call) => (asked++ === 0 && call.request.redirect === 'manual' ? opaqueRedirect() : redirectedTo(`${BASE}/api/v2/storefront/account`, '{"error":"not authorized"}')),
      'GET /api/v2/storefront/account': () => Response.json({ data: { id: '9', type: 'user' } }),
    });
    await settle();
    const response = await through(new Request(`${BASE}/api/v2/storefront/cart`, { headers: { 'X-Spree-Order-Token': 'sealed:cart' } }));
    assert.ok(response !== null);
    const followUp = calls.find((call) => call.request.redirect === 'follow');
    assert.ok(followUp !== undefined, dump(calls));
    const carried = [...followUp.request.headers].map(([, value]) => value).join(' ');
    assert.ok(!carried.includes(pair.accessToken) && !carried.includes(cart.token), `the follow-up (which reaches the other origin) carried: ${carried}`);
    const account = calls.filter((call) => call.route === 'GET /api/v2/storefront/account');
    assert.equal(account.length, 1, dump(calls));
    assert.equal(account[0]!.request.headers.get('Authorization'), `Bearer ${pair.accessToken}`);
    assert.equal(account[0]!.request.redirect, 'manual', 'the final ask never follows a further redirect');
    assert.equal(response.status, 200);
  });

  it('a guest\'s cart GET with guest_order_token=sealed:cart, redirected (query kept) to an account path: the account path is asked with the real value, as on a first try there', async () => {
    const cart = { token: 'g\\"u+es/t%7', number: 'R2' };
    let asked = 0;
    const { calls, through } = routedWorker({ preset: 'spree' }, { cart, session: null, backoff: null }, {
      'GET /api/v2/storefront/cart': (call) => {
        const query = new URL(call.request.url).search;
        return asked++ === 0 && call.request.redirect === 'manual' ? opaqueRedirect() : redirectedTo(`${BASE}/api/v2/storefront/account/orders${query}`, '{"error":"You are not authorized to access this page."}');
      },
      'GET /api/v2/storefront/account/orders': () => Response.json({ error: 'You are not authorized to access this page.' }, { status: 403 }),
    });
    await settle();
    // The same request straight to the account path: the worker swaps the placeholder (a first try).
    const direct = await through(new Request(`${BASE}/api/v2/storefront/account/orders?guest_order_token=sealed:cart`));
    assert.ok(direct !== null, 'a first try to the account path is handled');
    const first = calls.at(-1)!;
    assert.deepEqual(new URL(first.request.url).searchParams.getAll('guest_order_token'), [cart.token], 'a first try there is swapped');
    calls.length = 0;
    const response = await through(new Request(`${BASE}/api/v2/storefront/cart?guest_order_token=sealed:cart`));
    assert.ok(response !== null);
    // Nothing real followed the redirect by the browser.
    for (const call of calls.filter((c) => c.request.redirect === 'follow')) assert.ok(!call.request.url.includes(encodeURIComponent(cart.token)), dump(calls));
    const account = calls.filter((call) => call.route === 'GET /api/v2/storefront/account/orders' && call.request.redirect !== 'follow');
    assert.deepEqual(
      account.map((call) => new URL(call.request.url).searchParams.getAll('guest_order_token')),
      [[cart.token]],
      `docs/behaviour.md: the final location under the base is asked once more with its query placeholder swapped; sent: ${dump(calls)}`,
    );
  });

  for (const final of ['/api/v2/storefront/account/..%2F..%2F..%2Fadmin', '/api/v2/storefront/account;x=1', '//api/v2/storefront/account']) {
    it(`a redirect to ${final} (a path a server may read as another) gets no credential`, async () => {
      const cart = { token: 'd+/\\"ec9', number: 'R3' };
      const pair = session('de/cod+"\\e', 'r+ef/\\"x');
      let asked = 0;
      const { calls, through } = routedWorker({ preset: 'spree' }, { cart, session: pair, backoff: null }, {
        'GET /api/v2/storefront/cart': (call) => (asked++ === 0 && call.request.redirect === 'manual' ? opaqueRedirect() : redirectedTo(`${BASE}${final}`, '{}')),
      });
      await settle();
      const response = await through(new Request(`${BASE}/api/v2/storefront/cart`));
      assert.ok(response !== null);
      const credentialed = calls.filter((call) => call.route !== 'GET /api/v2/storefront/cart' && (call.request.headers.has('Authorization') || call.request.headers.has('X-Spree-Order-Token')));
      assert.deepEqual(credentialed.map((call) => call.request.url), [], dump(calls));
      assert.equal(calls.length, 2, `no final ask: ${dump(calls)}`);
    });
  }
});
