// A reason phrase with a control character (DEL, ESC, \x01), which Chromium's network stack passes on
// to the worker as the response's statusText: the page must still get the answer (docs/security.md:
// status and headers unchanged, nothing held back), not a network error. Found by a review
// of odd answers in Chromium: rebuilding the answer with that statusText throws, and the page's fetch rejects, a write
// that reached the server included.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { routedWorker, BASE } from './workerHarness.js';

const GUEST: Credentials = { cart: { token: 'Rp/+"z\\Q8-uu', number: 'R5', id: 'cart_5' }, session: null, backoff: null };

/** An answer as Chromium hands it on: a reason phrase `new Response` itself would not take. */
function answered(statusText: string, body: string): Response {
  const response = new Response(body, { status: 200, headers: { 'Content-Type': 'application/vnd.api+json' } });
  Object.defineProperty(response, 'statusText', { value: statusText });
  return response;
}

describe('a reason phrase with a control character', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  for (const reason of ['O\x7fK', 'O\x01K', '\x1bOK']) {
    it(`still answers the page (${JSON.stringify(reason)})`, async () => {
      let sent = 0;
      const w = routedWorker({ preset: 'spree' }, GUEST, {
        'POST /api/v2/storefront/cart/add_item': () => (sent++, answered(reason, '{"data":{"attributes":{"state":"cart"}}}')),
      });
      const answer = await w.through(new Request(`${BASE}/api/v2/storefront/cart/add_item`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"variant_id":"1","quantity":1}' }));
      assert.equal(sent, 1);
      assert.equal(answer?.status, 200);
      assert.equal(await answer?.text(), '{"data":{"attributes":{"state":"cart"}}}');
    });
  }
});
