// A path a server may decode into another one (`%2F`, `%5C`, `%2E`, a `;` parameter) through the
// whole request path (docs/behaviour.md, "What the worker does to requests"): never matched, so the
// page's request goes out as it wrote it; and a redirect that lands on such a path is not given the
// credential again, since the same classification judges where it landed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { opaqueRedirect, redirectedTo } from './fakes.js';

const BASE = 'https://shop.example/store';
const HOUR = 3_600_000;
const CART = { token: 'order-real', number: 'R100' };
const SESSION = { accessToken: 'access-real', refreshToken: 'refresh-real', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true };
const HELD: Credentials = { cart: CART, session: SESSION, backoff: null };
const keepAlive: KeepAlive = (work) => void work.catch(() => {});
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** A signed-in worker with a cart whose server answers the n-th request with `answer(n)`. */
function worker(answer: (index: number) => Response, preset: 'store' | 'spree-v3' = 'store') {
  const sent: Request[] = [];
  const options = resolveOptions({ baseUrl: BASE, preset, publishableKey: 'pk_test' }, 'https://shop.example/storefront-auth-sw.js');
  const made = new AuthWorker(options, {
    fetch: async (input, init) => {
      sent.push(new Request(input, init));
      return answer(sent.length - 1);
    },
    now: () => Date.now(),
    storage: memoryStorage(HELD),
    toPages: () => {},
    log: undefined,
  });
  made.preload();
  return { requests: made.requests, sent };
}

describe('a path a server may decode into another one, through the request path', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('is not matched, with the credentials in memory or not yet, whatever placeholder it carries', async () => {
    const { requests } = worker(() => new Response('{}'));
    const urls = [
      `${BASE}/api/v2/storefront/account/orders/${encodeURIComponent('../'.repeat(6) + 'other/collect')}`,
      `${BASE}/api/v2/storefront/cart%5C..%5Cother?guest_order_token=sealed:cart`,
      `${BASE}/api/v2/storefront/checkout/x%2Ey`,
      `${BASE}/api/v2/storefront/account;v=1`,
    ];
    const headers = { Authorization: 'Bearer sealed:access', 'X-Store-Order-Token': 'sealed:cart' };
    // Before the credentials are loaded, then after.
    for (const when of ['loading', 'loaded']) {
      if (when === 'loaded') await settle();
      for (const href of urls) {
        const url = new URL(href);
        for (const init of [{}, { headers }, { method: 'POST', body: '{}' }]) assert.equal(requests.match(new Request(url, init), url), null, `${when}: ${href}`);
      }
    }
  });

  it('a redirect that lands on one gets no credential again; one that lands on a plain path under the base does', async () => {
    const start = `${BASE}/api/v2/storefront/account`;
    for (const [landed, again] of [
      [`${BASE}/api/v2/storefront/account/orders%2F..%2F..%2F..%2F..%2Fother`, false],
      [`${BASE}/api/v2/storefront/cart;x=1`, false],
      [`${BASE}/api/v2/storefront/account/orders`, true],
    ] as const) {
      const { requests, sent } = worker((index) => (index === 0 ? opaqueRedirect() : index === 1 ? redirectedTo(landed) : new Response('{}')));
      await settle();
      const url = new URL(start);
      const request = new Request(url);
      const decision = requests.match(request, url);
      assert.ok(decision !== null && decision !== true);
      await requests.handle(request, url, decision, keepAlive);
      assert.equal(sent[0]?.headers.get('Authorization'), `Bearer ${SESSION.accessToken}`, 'the first try carries the bearer');
      assert.equal(sent[1]?.headers.get('Authorization'), null, 'the retry the browser follows carries nothing');
      if (again) {
        assert.equal(sent.length, 3, landed);
        assert.equal(sent[2]?.url, landed);
        assert.equal(sent[2]?.headers.get('Authorization'), `Bearer ${SESSION.accessToken}`);
      } else {
        assert.equal(sent.length, 2, `${landed}: not asked again with the bearer`);
      }
    }
  });

  it('spree-v3: a Store API path with an encoded slash is not matched either', async () => {
    const { requests } = worker(() => new Response('{}'), 'spree-v3');
    await settle();
    const url = new URL(`${BASE}/api/v3/store/customers/me/orders%2F..%2F..%2F..%2F..%2F..%2F..%2Fother`);
    assert.equal(requests.match(new Request(url), url), null);
    const plain = new URL(`${BASE}/api/v3/store/customers/me`);
    assert.notEqual(requests.match(new Request(plain), plain), null, 'the control is matched');
  });
});
