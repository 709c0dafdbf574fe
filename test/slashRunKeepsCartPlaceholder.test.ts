// A `//` run at the base path is recognised for a grant or a revocation, with no credential added;
// a page's `sealed:cart` order-token header there goes as the page wrote it, never swapped for the
// real cart token, since a front routing by prefix may send the path to another application of the
// origin (docs/behaviour.md: a path a server may read as another path gets "no credential and no
// placeholder swap").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';

const WORKER = 'https://shop.example/storefront-auth-sw.js';
const CART = 'Ct/9+"x\\q7-real-cart';

describe('a // run at the base path: a page’s sealed:cart header', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void (globalThis.BroadcastChannel = channel));

  for (const [preset, href, body, header] of [
    ['spree', 'https://shop.example//store/spree_oauth/token', new URLSearchParams({ grant_type: 'password', username: 'u@example.com', password: 'p/+"\\w' }).toString(), 'X-Spree-Order-Token'],
    ['spree', 'https://shop.example//store/spree_oauth/revoke', new URLSearchParams({ token: 'some-other/+token' }).toString(), 'X-Spree-Order-Token'],
    ['spree-v3', 'https://shop.example//store/api/v3/store/auth/login', JSON.stringify({ email: 'u@example.com', password: 'p/+"\\w' }), 'x-spree-token'],
  ] as const) {
    it(`${preset}: ${href} goes out with the placeholder, never the real cart token`, async () => {
      const sent: Request[] = [];
      const kept: Promise<unknown>[] = [];
      const keepAlive: KeepAlive = (work) => void kept.push(work);
      const worker = new AuthWorker(resolveOptions({ baseUrl: 'https://shop.example/store', preset, publishableKey: 'pk_test_2' }, WORKER), {
        fetch: async (input, init) => (sent.push(new Request(input, init)), Response.json({ error: 'invalid_grant' }, { status: 400 })),
        now: () => Date.now(),
        storage: memoryStorage({ cart: { token: CART, number: 'R100200300', id: 'cart_7' } as never, session: null, backoff: null }),
        toPages: () => {},
        log: undefined,
      });
      worker.preload();
      await new Promise((resolve) => setTimeout(resolve, 0));
      const request = new Request(href, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', [header]: 'sealed:cart' }, body });
      const url = new URL(request.url);
      const decision = worker.requests.match(request, url);
      if (decision === null) return; // untouched: the browser sends it as written
      await (await worker.requests.handle(request, url, decision === true ? undefined : decision, keepAlive)).text();
      for (let seen = 0; seen < kept.length; seen = kept.length) await Promise.allSettled(kept);
      assert.equal(sent.length, 1);
      assert.equal(new URL(sent[0]!.url).pathname, new URL(href).pathname);
      assert.notEqual(sent[0]!.headers.get(header), CART, `the real cart token went to ${sent[0]!.url}`);
    });
  }

  it('control: at the base path as written, the placeholder is swapped (docs/security.md, "Placeholders sent back")', async () => {
    const sent: Request[] = [];
    const worker = new AuthWorker(resolveOptions({ baseUrl: 'https://shop.example/store', preset: 'spree' }, WORKER), {
      fetch: async (input, init) => (sent.push(new Request(input, init)), Response.json({ error: 'invalid_grant' }, { status: 400 })),
      now: () => Date.now(),
      storage: memoryStorage({ cart: { token: CART, number: 'R100200300' }, session: null, backoff: null }),
      toPages: () => {},
      log: undefined,
    });
    worker.preload();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const request = new Request('https://shop.example/store/spree_oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Spree-Order-Token': 'sealed:cart' }, body: 'grant_type=password&username=u&password=p' });
    const url = new URL(request.url);
    const decision = worker.requests.match(request, url);
    assert.notEqual(decision, null);
    await (await worker.requests.handle(request, url, decision === true || decision === null ? undefined : decision, () => {})).text();
    assert.equal(sent[0]!.headers.get('X-Spree-Order-Token'), CART);
  });
});
