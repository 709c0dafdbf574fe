// A page's `sealed:cart` order-token header gets the real cart token on the way out, as a credential
// does, and like one it never follows a GET's redirect off baseUrl (docs/behaviour.md, "Redirects"): the
// follow-up the browser takes wherever the redirect points carries the header as the page wrote it
// (the worthless placeholder), and a redirect that lands under the base gets the real token again.
// The fetch here answers as a browser's does: an opaque redirect to the manual first try, a response
// `redirected` to `target` to the follow-up, and 200 to a last request under the base.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions, type StorefrontAuthOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { opaqueRedirect, redirectedTo } from './fakes.js';

const BASE = 'https://shop.example/store';
const REAL_CART = 'REAL-CART-TOKEN';
const REAL_ACCESS = 'REAL-ACCESS';
const keepAlive: KeepAlive = (work) => void work.catch(() => {});
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** A worker holding a cart (and a pair when `signedIn`) whose server redirects the first GET to `target`; `sent` records what left. */
function redirectingWorker(options: StorefrontAuthOptions, signedIn: boolean, target: string) {
  const held: Credentials = {
    cart: { token: REAL_CART, number: 'R1', id: 'cart_1' },
    session: signedIn ? { accessToken: REAL_ACCESS, refreshToken: 'REAL-REFRESH', expiresAt: Date.now() + 3_600_000, lifetimeMs: 3_600_000, confirmed: true } : null,
    backoff: null,
  };
  const sent: Request[] = [];
  const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, ...options }, 'https://shop.example/storefront-auth-sw.js'), {
    fetch: async (input, init) => {
      const request = new Request(input, init);
      sent.push(request);
      if (sent.length === 1) return opaqueRedirect();
      return request.redirect === 'follow' ? redirectedTo(target) : Response.json({ data: {} });
    },
    now: Date.now,
    storage: memoryStorage(held),
    toPages: () => {},
    log: undefined,
  });
  worker.preload();
  const through = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const decision = worker.requests.match(request, url);
    assert.ok(decision !== null, 'the worker handles a request carrying a placeholder');
    return worker.requests.handle(request, url, decision === true ? undefined : decision, keepAlive);
  };
  return { sent, through };
}

/** Every header value of `request`, one line each. */
function headerLines(request: Request): string {
  return [...request.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
}

describe('a sealed:cart header and a GET that meets a redirect', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  const v3 = { preset: 'spree-v3', publishableKey: 'pk_test' } as const;
  const cases: ReadonlyArray<readonly [StorefrontAuthOptions, string, string]> = [
    [{}, 'X-Store-Order-Token', '/api/v2/storefront/cart'],
    [{}, 'X-Store-Order-Token', '/api/v2/storefront/account'],
    [{ preset: 'spree' }, 'X-Spree-Order-Token', '/api/v2/storefront/checkout'],
    [{ sealTokens: false }, 'X-Store-Order-Token', '/api/v2/storefront/account'],
    [v3, 'x-spree-token', '/api/v3/store/carts/cart_1'],
    [v3, 'x-spree-token', '/api/v3/store/customers/me'],
  ];
  const away = ['https://elsewhere.example/collect', 'https://shop.example/other-app/collect', 'https://shop.example/storefront/api/v2/storefront/cart'];

  for (const [options, header, path] of cases) {
    for (const signedIn of [false, true]) {
      const who = `${options.preset ?? 'store'}${options.sealTokens === false ? ' unsealed' : ''}, ${signedIn ? 'signed in' : 'guest'}`;
      for (const target of away) {
        it(`${who}: GET ${path} with ${header}: sealed:cart, redirected to ${target}, follows with the placeholder and no credential`, async () => {
          const { sent, through } = redirectingWorker(options, signedIn, target);
          await settle();
          const response = await through(new Request(`${BASE}${path}`, { headers: { [header]: 'sealed:cart', Accept: 'application/json' } }));
          assert.equal(response.status, 200);
          assert.equal(sent.length, 2, 'the first try, then the follow-up the browser takes to the other location');
          const [first, followed] = sent as [Request, Request];
          assert.equal(first.redirect, 'manual');
          assert.equal(first.headers.get(header), REAL_CART, 'the first try, to the base, has the real cart token');
          assert.equal(followed.redirect, 'follow');
          assert.equal(followed.headers.get(header), 'sealed:cart', 'the follow-up carries the header as the page wrote it');
          assert.equal(followed.headers.get('Accept'), 'application/json');
          assert.doesNotMatch(headerLines(followed), /REAL-/, `what followed the redirect to ${target}`);
        });
      }

      it(`${who}: GET ${path} with ${header}: sealed:cart, redirected under the base, gets the real cart token there`, async () => {
        const target = `${BASE}${path}/moved`;
        const { sent, through } = redirectingWorker(options, signedIn, target);
        await settle();
        await through(new Request(`${BASE}${path}`, { headers: { [header]: 'sealed:cart' } }));
        assert.equal(sent.length, 3, 'the first try, the follow-up, and the final location asked with the credential');
        const [, followed, last] = sent as [Request, Request, Request];
        assert.doesNotMatch(headerLines(followed), /REAL-/);
        assert.equal(last.url, target);
        assert.equal(last.redirect, 'manual');
        assert.equal(last.headers.get(header), REAL_CART, 'a placeholder sent back to the base gets the real value');
        assert.equal(last.headers.get('Authorization'), signedIn ? `Bearer ${REAL_ACCESS}` : null);
      });
    }
  }
});
