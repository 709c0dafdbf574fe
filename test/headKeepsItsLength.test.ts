// A HEAD to a cart path, answered as Chromium hands the worker such an answer (an empty body stream,
// the server's Content-Length): the page reads the Content-Length the server sent, since nothing was
// replaced (docs/security.md: headers unchanged). Found by a review of odd answers in Chromium: the page read 0.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { routedWorker, BASE } from './workerHarness.js';

const GUEST: Credentials = { cart: { token: 'h/9+"Q\\vX-2mm', number: 'R9', id: 'cart_9' }, session: null, backoff: null };
const empty = () => new ReadableStream<Uint8Array>({ start: (c) => c.close() });

describe('a HEAD to a cart path', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('keeps the Content-Length the server sent', async () => {
    const w = routedWorker({ preset: 'spree' }, GUEST, {
      'HEAD /api/v2/storefront/cart': () => new Response(empty(), { headers: { 'Content-Type': 'application/vnd.api+json', 'Content-Length': '1234', ETag: '"c9"' } }),
    });
    const answer = (await w.through(new Request(`${BASE}/api/v2/storefront/cart`, { method: 'HEAD' })))!;
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('ETag'), '"c9"');
    assert.equal(answer.headers.get('Content-Length'), '1234', 'the page reads the Content-Length of a body it never gets');
  });

  it('keeps the Content-Length and Content-Encoding of a compressed answer', async () => {
    const w = routedWorker({ preset: 'spree' }, GUEST, {
      'HEAD /api/v2/storefront/checkout': () => new Response(empty(), { headers: { 'Content-Type': 'application/vnd.api+json', 'Content-Encoding': 'gzip', 'Content-Length': '321' } }),
    });
    const answer = (await w.through(new Request(`${BASE}/api/v2/storefront/checkout`, { method: 'HEAD' })))!;
    assert.equal(answer.status, 200);
    assert.deepEqual([answer.headers.get('Content-Length'), answer.headers.get('Content-Encoding')], ['321', 'gzip'], 'the page reads the headers the server sent');
  });
});
