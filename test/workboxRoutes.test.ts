// The Workbox routes both entry points register (workboxRoutes.ts), driven through Workbox's own
// Router as the standalone worker drives it: the decision that `match` made reaches `handle`, `true`
// (credentials not loaded yet) arrives as no decision, and a request the request path leaves alone
// finds no route, so the Router gives no response and the worker never calls respondWith.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PageDecision } from '../src/sw/requestPath.js';
import type { Answering } from '../src/sw/workboxRoutes.js';

// Workbox reads the worker's globals (`self`, and `location` to resolve request URLs) as it loads.
// Its dev-only logger stays quiet (`__WB_DISABLE_DEV_LOGS`), as its production build is.
Object.assign(globalThis, { self: globalThis, location: new URL('https://shop.example/storefront-auth-sw.js'), __WB_DISABLE_DEV_LOGS: true });
const { Router } = await import('workbox-routing/Router.js');
const { METHODS, workboxRoutes } = await import('../src/sw/workboxRoutes.js');

const CART = 'https://shop.example/api/v2/storefront/cart';
const DECISION: PageDecision = { kind: 'cartOrCheckout', credential: 'orderToken', capture: null, page: { authorization: false, orderToken: false, sealedBearer: false, sealedCart: false } };
/** The part of a FetchEvent the routes use. */
const event = { waitUntil: () => {} } as unknown as ExtendableEvent;

/** A Router with the routes of a request path whose `match` says `matched`, recording what `handle` is given. */
function routed(matched: PageDecision | true | null) {
  const handled: { url: string; decision: PageDecision | undefined }[] = [];
  const matchedUrls: string[] = [];
  const requests: Answering = {
    match: (_request, url) => {
      matchedUrls.push(url.href);
      return matched;
    },
    handle: (_request, url, decision) => {
      handled.push({ url: url.href, decision });
      return Promise.resolve(new Response('answered'));
    },
  };
  const router = new Router();
  for (const route of workboxRoutes(requests)) router.registerRoute(route);
  const answer = (request: Request) => router.handleRequest({ request, event });
  return { answer, handled, matchedUrls };
}

describe('the Workbox routes, through Workbox’s Router', () => {
  it('hands the decision that match made to handle, and answers the fetch with its response', async () => {
    const { answer, handled } = routed(DECISION);
    const response = answer(new Request(CART));
    assert.ok(response !== undefined);
    assert.equal(await (await response).text(), 'answered');
    assert.deepEqual(handled, [{ url: CART, decision: DECISION }]);
  });

  it('turns `true` (credentials not loaded yet) into no decision, for handle to make once they are', async () => {
    const { answer, handled } = routed(true);
    await answer(new Request(CART, { method: 'POST' }));
    assert.deepEqual(handled, [{ url: CART, decision: undefined }]);
  });

  it('finds no route for a request the request path leaves alone: no response, so no respondWith', () => {
    const { answer, handled } = routed(null);
    assert.equal(answer(new Request('https://shop.example/api/v2/storefront/products')), undefined);
    assert.deepEqual(handled, []);
  });

  it('answers the methods the routes are registered for, and never asks about any other', () => {
    for (const method of METHODS) {
      const { answer } = routed(DECISION);
      assert.ok(answer(new Request(CART, { method })) !== undefined, method);
    }
    for (const method of ['OPTIONS', 'QUERY']) {
      const { answer, matchedUrls } = routed(DECISION);
      assert.equal(answer(new Request(CART, { method })), undefined, method);
      assert.deepEqual(matchedUrls, [], method);
    }
  });
});
