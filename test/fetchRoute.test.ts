// The standalone worker's fetch routing (fetchRoute.ts), which replaces Workbox's router there: the
// same methods as installStorefrontAuth's Workbox routes, `true` from `match` handed on as "decide
// once loaded" (undefined, as Workbox's params), and no answer at all, so no respondWith, when the
// request path leaves a request alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerFetch, matchFetch, METHODS, type Answering } from '../src/sw/fetchRoute.js';
import type { Decision } from '../src/sw/requestRules.js';

const CART = 'https://shop.example/api/v2/storefront/cart';
const DECISION: Decision = { kind: 'cartOrCheckout', credential: 'orderToken', capture: null };
const keepAlive = (): void => {};

/** A request path whose `match` says `matched`, recording what `handle` is given. */
function answering(matched: Decision | true | null) {
  const handled: { url: string; decision: Decision | undefined }[] = [];
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
  return { requests, handled, matchedUrls };
}

describe('fetch routing without a router', () => {
  it('hands the decision that match made to handle, and answers the fetch with its response', async () => {
    const { requests, handled } = answering(DECISION);
    const response = answerFetch(requests, new Request(CART), keepAlive);
    assert.ok(response !== undefined);
    assert.equal(await (await response).text(), 'answered');
    assert.deepEqual(handled, [{ url: CART, decision: DECISION }]);
  });

  it('turns `true` (credentials not loaded yet) into no decision, for handle to make once they are', () => {
    const { requests, handled } = answering(true);
    assert.equal(matchFetch(requests, new Request(CART), new URL(CART)), undefined);
    assert.ok(answerFetch(requests, new Request(CART, { method: 'POST' }), keepAlive) !== undefined);
    assert.deepEqual(handled, [{ url: CART, decision: undefined }]);
  });

  it('leaves a request the request path does not match to the browser: no response, so no respondWith', () => {
    const { requests, handled } = answering(null);
    assert.equal(answerFetch(requests, new Request('https://shop.example/api/v2/storefront/products'), keepAlive), undefined);
    assert.deepEqual(handled, []);
  });

  it('answers the methods Workbox routes are registered for, and never asks about any other', () => {
    for (const method of METHODS) {
      const { requests } = answering(DECISION);
      assert.ok(answerFetch(requests, new Request(CART, { method }), keepAlive) !== undefined, method);
    }
    for (const method of ['OPTIONS', 'QUERY']) {
      const { requests, matchedUrls } = answering(DECISION);
      assert.equal(answerFetch(requests, new Request(CART, { method }), keepAlive), undefined, method);
      assert.deepEqual(matchedUrls, [], method);
    }
  });
});
