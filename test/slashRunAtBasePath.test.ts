// A `//` run at or inside the base path (`https://shop.example//store/store_oauth/token` for the base
// `https://shop.example/store`, as `${'https://shop.example/'}/store/…` joins) is routed by Rails
// (normalize_path squeezes every run of `/`) and by nginx (merge_slashes, on by default) exactly as
// `/store/store_oauth/token`: the token grant. The worker already takes `/store//store_oauth/token`
// and, for a root base, `//store_oauth/token` for the grant (routedPaths.test.ts); the same run one
// segment earlier escapes it, so the server's real pair reaches the page unsealed and is not kept.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import { classifyRequest } from '../src/sw/requestRules.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { staticRoutes } from '../src/sw/staticRoutes.js';
import { storeApiJwt } from './fakes.js';

const WORKER = 'https://shop.example/storefront-auth-sw.js';
const ACCESS = 'acc/ess+9\\"Zq';
const REFRESH = 'ref+re/sh\\"Yk';
const PAIR = { access_token: ACCESS, token_type: 'Bearer', expires_in: 7200, refresh_token: REFRESH, created_at: 1 };

describe('a // run at the base path: the grant and the revocation as the server routes them', () => {
  for (const [base, preset, method, href, kind] of [
    ['https://shop.example/store', 'store', 'POST', 'https://shop.example//store/store_oauth/token', 'tokenGrant'],
    ['https://shop.example/store', 'spree', 'POST', 'https://shop.example//store/spree_oauth/revoke', 'revocation'],
    ['https://shop.example/a/b', 'store', 'POST', 'https://shop.example/a//b/store_oauth/token', 'tokenGrant'],
    ['https://shop.example/store', 'spree-v3', 'POST', 'https://shop.example//store/api/v3/store/auth/login', 'tokenGrant'],
    ['https://shop.example/store', 'spree-v3', 'POST', 'https://shop.example//store/api/v3/store/auth/refresh', 'tokenGrant'],
  ] as const) {
    it(`${preset}: ${method} ${href} is ${kind} (as ${href.replace(/(?<!:)\/\/+/g, '/')} is)`, () => {
      const options = resolveOptions({ baseUrl: base, preset, publishableKey: 'pk_test' }, WORKER);
      const squeezed = new URL(href.replace(/(?<!:)\/\/+/g, '/'));
      assert.equal(classifyRequest(squeezed, method, options), kind, 'control: the squeezed spelling');
      assert.equal(classifyRequest(new URL(href), method, options), kind);
    });
  }

  // Routed by prefix (a CDN, a load balancer), `//store/…` may reach another application of the
  // origin: what would carry a credential there stays untouched.
  for (const [preset, method, href] of [
    ['store', 'POST', 'https://shop.example//store/api/v2/storefront/cart'],
    ['store', 'GET', 'https://shop.example//store/api/v2/storefront/account'],
    ['spree-v3', 'GET', 'https://shop.example//store/api/v3/store/carts/cart_1'],
    ['spree-v3', 'POST', 'https://shop.example//store/api/v3/store/carts'],
  ] as const) {
    it(`${preset}: ${method} ${href} stays untouched`, () => {
      assert.equal(classifyRequest(new URL(href), method, resolveOptions({ baseUrl: 'https://shop.example/store', preset, publishableKey: 'pk_test' }, WORKER)), null);
    });
  }

  it('the static routes send such a grant to the fetch handler, not straight to the network', () => {
    const options = resolveOptions({ baseUrl: 'https://shop.example/store', preset: 'store' }, WORKER);
    const rules = staticRoutes(options.base, options.dialect.routePrefixes);
    const patterns = rules.find((rule) => rule.source === 'fetch-event')?.condition.or?.map((c) => (c.urlPattern as { pathname: string }).pathname) ?? [];
    // URL pattern pathnames as regular expressions: `\x` is x, `*` is anything.
    const matches = (pathname: string): boolean =>
      patterns.some((p) => new RegExp(`^${p.replace(/\\(.)|(\*)|([.+?^${}()|[\]/])/g, (_, escaped: string | undefined, star: string | undefined, other: string | undefined) => (escaped !== undefined ? `\\${escaped}` : star !== undefined ? '.*' : `\\${other}`))}$`).test(pathname));
    assert.ok(matches('/store//store_oauth/token'), 'control');
    assert.ok(matches('//store/store_oauth/token'));
  });

  describe('through the worker', () => {
    const channel = globalThis.BroadcastChannel;
    before(() => {
      (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    });
    after(() => {
      globalThis.BroadcastChannel = channel;
    });

    it('a page’s password grant at //store/store_oauth/token: the pair is kept and reaches the page sealed', async () => {
      const storage = memoryStorage({ cart: null, session: null, backoff: null });
      const kept: Promise<unknown>[] = [];
      const keepAlive: KeepAlive = (work) => void kept.push(work);
      const worker = new AuthWorker(resolveOptions({ baseUrl: 'https://shop.example/store' }, WORKER), {
        fetch: async () => Response.json(PAIR),
        now: () => Date.now(),
        storage,
        toPages: () => {},
        log: undefined,
      });
      worker.preload();
      await new Promise((resolve) => setTimeout(resolve, 0));
      const request = new Request('https://shop.example//store/store_oauth/token', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: 'u@example.com', password: 'p' }) });
      const url = new URL(request.url);
      const decision = worker.requests.match(request, url);
      // Unmatched, the browser sends it itself and the page reads the server's answer: the real pair.
      assert.notEqual(decision, null, 'the grant is left to the browser: its answer reaches the page unsealed and is not kept');
      const response = await worker.requests.handle(request, url, decision === true || decision === null ? undefined : decision, keepAlive);
      const text = await response.text();
      for (let seen = 0; seen < kept.length; seen = kept.length) await Promise.allSettled(kept);
      assert.equal((await storage.read()).session?.accessToken, ACCESS);
      assert.ok(!text.includes('acc/ess') && !text.includes('ref+re'), text);
    });
  });
});

describe('spree-v3: a page’s sealed refresh at //store/api/v3/store/auth/refresh', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('is answered from the worker’s pair, never sent with the placeholder', async () => {
    const now = 1_700_000_000_000;
    const jwt = storeApiJwt(now / 1000 + 3600);
    const sent: Request[] = [];
    const worker = new AuthWorker(resolveOptions({ baseUrl: 'https://shop.example/store', preset: 'spree-v3', publishableKey: 'pk_test' }, WORKER), {
      fetch: async (input, init) => {
        sent.push(new Request(input, init));
        return new Response(null, { status: 599 });
      },
      now: () => now,
      storage: memoryStorage({ cart: null, session: { accessToken: jwt, refreshToken: 'r+/\\"9', expiresAt: now + 3_600_000, lifetimeMs: 3_600_000, confirmed: true }, backoff: null }),
      toPages: () => {},
      log: undefined,
    });
    worker.preload();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const request = new Request('https://shop.example//store/api/v3/store/auth/refresh', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"refresh_token":"sealed:refresh"}' });
    const url = new URL(request.url);
    const decision = worker.requests.match(request, url);
    assert.ok(decision !== null);
    const response = await worker.requests.handle(request, url, decision === true ? undefined : decision, () => {});
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { token: 'sealed:access', refresh_token: 'sealed:refresh', user: null });
    assert.deepEqual(sent, []);
  });
});
