// serwistRouter: storefront-auth's Workbox routes handed to a Serwist router as their parts, since
// Serwist's registerRoute refuses a Route that is not an instance of its own class.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RouteHandlerCallbackOptions, RouteMatchCallbackOptions } from 'workbox-core/types.js';
import { serwistRouter, type SerwistRoutes } from '../src/sw/serwistRouter.js';

// Workbox's logger reads `self` as it loads outside production; Node has no `self`.
(globalThis as { self?: unknown }).self ??= globalThis;
const { Route } = await import('workbox-routing/Route.js');

/** A Serwist-shaped router that records what it was given. */
function recordingSerwist(): SerwistRoutes & { calls: Parameters<SerwistRoutes['registerRoute']>[] } {
  const calls: Parameters<SerwistRoutes['registerRoute']>[] = [];
  return { calls, registerRoute: (...args) => void calls.push(args) };
}

describe('serwistRouter', () => {
  it("registers each route's match, handler and method on Serwist", async () => {
    const serwist = recordingSerwist();
    const router = serwistRouter(serwist);
    const seen: string[] = [];
    const match = ({ url }: RouteMatchCallbackOptions) => (url.pathname.startsWith('/api/') ? { decision: 'bearer' } : false);
    const handle = async ({ params }: RouteHandlerCallbackOptions) => (seen.push(JSON.stringify(params)), new Response('ok'));
    router.registerRoute(new Route(match, handle, 'POST'));
    router.registerRoute(new Route(match, handle, 'GET'));

    assert.deepEqual(serwist.calls.map(([, , method]) => method), ['POST', 'GET']);
    const [capture, handler] = serwist.calls[0] ?? assert.fail('no route registered');
    // The match callback is the route's own: Serwist calls it and passes its result on as params.
    const url = new URL('https://shop.example/api/v2/storefront/account');
    const options = { url, request: new Request(url), sameOrigin: true, event: {} as ExtendableEvent };
    assert.deepEqual(capture(options), { decision: 'bearer' });
    assert.equal(capture({ ...options, url: new URL('https://shop.example/products') }), false);
    // The handler is Workbox's { handle } object, which Serwist takes as it is.
    const response = await handler.handle({ ...options, params: { decision: 'bearer' } });
    assert.equal(await response.text(), 'ok');
    assert.deepEqual(seen, ['{"decision":"bearer"}']);
  });

  it('refuses something that is not a router, saying what it needs', () => {
    assert.throws(() => serwistRouter({} as SerwistRoutes), { name: 'TypeError', message: /registerRoute\(capture, handler, method\)/ });
  });
});
