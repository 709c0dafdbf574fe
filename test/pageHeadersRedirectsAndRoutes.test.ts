// The request path's odd cases: a redirect under the base keeps the page's own credential header, a
// query placeholder beside the page's own credential is swapped, v3's `GET /carts/` is the cart list,
// and a same-origin no-cors GET redirected to another origin is answered opaque (docs/behaviour.md,
// "What the worker does to requests").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions, type StorefrontAuthOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { opaqueRedirect, redirectedTo } from './fakes.js';

const BASE = 'https://shop.example/store';
const REAL_CART = 'cT/9+"q\\w';
const REAL_ACCESS = 'eyJ.acc/ess+Z9';
const keepAlive: KeepAlive = (work) => void work.catch(() => {});
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** A worker holding a cart (and a pair when `signedIn`) whose server redirects the first try to `target`, when one is given. */
function worker(options: StorefrontAuthOptions, signedIn: boolean, target: string | null) {
  const held: Credentials = {
    cart: { token: REAL_CART, number: 'R7', id: 'cart_7' },
    session: signedIn ? { accessToken: REAL_ACCESS, refreshToken: 'rf+/"x', expiresAt: Date.now() + 3_600_000, lifetimeMs: 3_600_000, confirmed: true } : null,
    backoff: null,
  };
  const sent: Request[] = [];
  const w = new AuthWorker(resolveOptions({ baseUrl: BASE, ...options }, 'https://shop.example/storefront-auth-sw.js'), {
    fetch: async (input, init) => {
      const request = new Request(input, init);
      sent.push(request);
      if (target !== null && sent.length === 1) return opaqueRedirect();
      return target !== null && request.redirect === 'follow' ? redirectedTo(target) : Response.json({ data: {} });
    },
    now: Date.now,
    storage: memoryStorage(held),
    toPages: () => {},
    log: undefined,
  });
  w.preload();
  const through = async (request: Request): Promise<Response | null> => {
    const url = new URL(request.url);
    const decision = w.requests.match(request, url);
    if (decision === null) return null;
    return w.requests.handle(request, url, decision === true ? undefined : decision, keepAlive);
  };
  return { sent, through };
}

describe('the request path: page headers, redirects and routes', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });
  const v3 = { preset: 'spree-v3', publishableKey: 'pk_rev' } as const;

  it("v3, signed in: a GET with the page's own x-spree-token, redirected under the base, keeps the page's value there", async () => {
    const target = `${BASE}/api/v3/store/carts/cart_other/items`;
    const { sent, through } = worker(v3, true, target);
    await settle();
    const own = 'PAGE-OWN/cart+"tok';
    await through(new Request(`${BASE}/api/v3/store/carts/cart_other`, { headers: { 'x-spree-token': own } }));
    assert.equal(sent.length, 3, 'the first try, the follow-up, the final location asked with the credential');
    const [first, , last] = sent as [Request, Request, Request];
    assert.equal(first.headers.get('x-spree-token'), own, 'the first try keeps the page’s own cart token');
    assert.equal(last.headers.get('x-spree-token'), own, "the final location under the base keeps the page's own cart token too");
  });

  it("store, signed in: a GET with the page's own Authorization and a sealed:cart header, redirected under the base, keeps the page's bearer there", async () => {
    const target = `${BASE}/api/v2/storefront/account`;
    const { sent, through } = worker({}, true, target);
    await settle();
    const own = 'Bearer page\\own/"bearer+1';
    await through(new Request(`${BASE}/api/v2/storefront/cart`, { headers: { Authorization: own, 'X-Store-Order-Token': 'sealed:cart' } }));
    assert.equal(sent.length, 3);
    const [first, , last] = sent as [Request, Request, Request];
    assert.equal(first.headers.get('Authorization'), own, 'the first try keeps the page’s own bearer');
    assert.equal(last.headers.get('Authorization'), own, "the final location under the base keeps the page's own bearer too");
  });

  it("store, guest holding a cart: the page's own Authorization with guest_order_token=sealed:cart in a cart path's query gets the real cart token", async () => {
    const { sent, through } = worker({}, false, null);
    await settle();
    await through(new Request(`${BASE}/api/v2/storefront/cart/associate?guest_order_token=sealed:cart`, { method: 'PATCH', headers: { Authorization: 'Bearer page-own/sso+"jwt' } }));
    assert.equal(sent.length, 1, 'the worker sends the request (it carries a placeholder to swap)');
    const [first] = sent as [Request];
    assert.equal(new URL(first.url).searchParams.get('guest_order_token'), REAL_CART, 'the placeholder sent back to the base is replaced by the current real value');
    assert.equal(first.headers.get('Authorization'), 'Bearer page-own/sso+"jwt', "the page's own bearer is kept");
  });

  it("v3, guest: GET /store/carts/ (the user's cart list, as Rails routes it) carries no cart token, as GET /store/carts does", async () => {
    for (const path of ['/api/v3/store/carts', '/api/v3/store/carts/']) {
      const { sent, through } = worker(v3, false, null);
      await settle();
      await through(new Request(`${BASE}${path}`));
      const header = sent[0]?.headers.get('x-spree-token') ?? null;
      assert.equal(header, null, `GET ${path}: the guest's cart token`);
    }
  });

  it("store, same-origin base: a no-cors GET under a cart path that the server redirects to another origin gets the answer it gets without the worker, not a network error", async () => {
    const held: Credentials = { cart: { token: REAL_CART, number: 'R7' }, session: null, backoff: null };
    const sent: Request[] = [];
    const w = new AuthWorker(resolveOptions({ baseUrl: BASE }, 'https://shop.example/storefront-auth-sw.js'), {
      fetch: async (input, init) => {
        const request = new Request(input, init);
        sent.push(request);
        if (request.redirect === 'manual') return opaqueRedirect();
        // Fetch, "main fetch": a same-origin request whose redirect leads to another origin is a network error;
        // a no-cors one is answered opaquely, as the page's own request would have been.
        if (request.mode === 'same-origin') throw new TypeError('Failed to fetch: same-origin request redirected cross-origin');
        return Object.defineProperty(redirectedTo('https://cdn.example/cart-badge.png', ''), 'type', { value: 'opaque' });
      },
      now: Date.now,
      storage: memoryStorage(held),
      toPages: () => {},
      log: undefined,
    });
    w.preload();
    await settle();
    const request = new Request(`${BASE}/api/v2/storefront/cart/badge`, { mode: 'no-cors' });
    const url = new URL(request.url);
    const decision = w.requests.match(request, url);
    assert.ok(decision !== null, 'a same-origin no-cors request under a cart path is the worker’s');
    await assert.doesNotReject(w.requests.handle(request, url, decision === true ? undefined : decision, keepAlive), 'the page’s no-cors GET meets a legal redirect');
    assert.equal(sent[0]?.headers.get('X-Store-Order-Token'), REAL_CART);
    assert.equal(sent[1]?.headers.get('X-Store-Order-Token'), null, 'the follow-up carries no credential');
  });
});

