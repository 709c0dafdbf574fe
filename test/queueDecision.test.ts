// Whether the offline queue may carry a page's request, and how it goes out (src/sw/queueDecision.ts):
// a write is never applied twice, so one that may have reached the server is queued only where a
// replay cannot apply it again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { carriesOwnCredential, mayQueue, queuePlan, type WriteCandidate } from '../src/sw/queueDecision.js';
import { MAX_QUEUED_BODY_BYTES } from '../src/sw/queuedWrite.js';

const WRITE: WriteCandidate = { write: 'adds', hasCart: true, ownCredential: false, bodyBytes: 40 };

describe('mayQueue', () => {
  it('takes a cart write the dialect names, on a held cart, without the page’s own credential', () => {
    assert.equal(mayQueue(WRITE), true);
    assert.equal(mayQueue({ ...WRITE, write: 'sets' }), true);
  });
  it('never takes another request, a write without a cart, or one with the page’s own credential', () => {
    assert.equal(mayQueue({ ...WRITE, write: null }), false);
    assert.equal(mayQueue({ ...WRITE, hasCart: false }), false);
    assert.equal(mayQueue({ ...WRITE, ownCredential: true }), false);
  });
  it('takes a body of 64 KiB (65,536 bytes) at most', () => {
    assert.equal(MAX_QUEUED_BODY_BYTES, 65_536);
    assert.equal(mayQueue({ ...WRITE, bodyBytes: 65_536 }), true);
    assert.equal(mayQueue({ ...WRITE, bodyBytes: 65_537 }), false);
    assert.equal(mayQueue({ ...WRITE, bodyBytes: 70_000 }), false);
    assert.equal(mayQueue({ ...WRITE, bodyBytes: 0 }), true);
  });
});

describe('queuePlan', () => {
  const online = { idempotencyKeys: false, online: true, queuedAhead: false };
  it('queues at once, unsent, what the browser says cannot leave, whatever the write', () => {
    for (const write of ['adds', 'sets'] as const) {
      for (const idempotencyKeys of [false, true]) assert.equal(queuePlan({ write, idempotencyKeys, online: false, queuedAhead: false }), 'queue');
    }
  });
  it('queues behind older writes, unsent, even a v2 add_item: it never left, and must not overtake them', () => {
    assert.equal(queuePlan({ ...online, write: 'adds', queuedAhead: true }), 'queue');
    assert.equal(queuePlan({ ...online, write: 'sets', queuedAhead: true }), 'queue');
  });
  it('online with nothing ahead, sends a write that sets, and queues it if its answer is lost', () => {
    assert.equal(queuePlan({ ...online, write: 'sets' }), 'sendThenQueue');
  });
  it('online with nothing ahead, sends any write where the server keeps keys, and queues it if its answer is lost', () => {
    assert.equal(queuePlan({ ...online, write: 'adds', idempotencyKeys: true }), 'sendThenQueue');
  });
  it('online with nothing ahead, sends a v2 add_item without queueing it: the server may have applied it', () => {
    assert.equal(queuePlan({ ...online, write: 'adds' }), 'send');
  });
});

describe('carriesOwnCredential', () => {
  const v2 = { cartTokenHeader: 'X-Store-Order-Token', cartTokenQuery: 'guest_order_token' };
  const v3 = { cartTokenHeader: 'x-spree-token', cartTokenQuery: null };
  const url = (query = '') => new URL(`https://shop.example/api/v2/storefront/cart/add_item${query}`);
  it('is false without credential headers, and for the worker’s placeholders', () => {
    assert.equal(carriesOwnCredential(new Headers({ 'Content-Type': 'application/json' }), url(), v2), false);
    assert.equal(carriesOwnCredential(new Headers({ Authorization: 'Bearer sealed:access', 'X-Store-Order-Token': 'sealed:cart' }), url('?guest_order_token=sealed%3Acart'), v2), false);
    assert.equal(carriesOwnCredential(new Headers({ 'x-spree-token': 'sealed:cart' }), url(), v3), false);
    assert.equal(carriesOwnCredential(new Headers({ Authorization: 'bearer sealed:access' }), url(), v3), false, 'the scheme in any case');
  });
  it('is true for a real bearer, a real cart token header, or a real cart token in the query', () => {
    assert.equal(carriesOwnCredential(new Headers({ Authorization: 'Bearer eyJhbGciOi' }), url(), v2), true);
    assert.equal(carriesOwnCredential(new Headers({ Authorization: 'Basic dXNlcjpwdw==' }), url(), v2), true);
    assert.equal(carriesOwnCredential(new Headers({ 'x-store-order-token': 'Zq+/token' }), url(), v2), true);
    assert.equal(carriesOwnCredential(new Headers({ 'X-Spree-Token': 'cart-token' }), url(), v3), true);
    assert.equal(carriesOwnCredential(new Headers(), url('?guest_order_token=R9-real'), v2), true);
    assert.equal(carriesOwnCredential(new Headers(), url('?guest_order_token='), v2), true, 'an empty value is the page’s own too');
    assert.equal(carriesOwnCredential(new Headers(), url('?guest_order_token=sealed:cart&guest_order_token=R9-real'), v2), true, 'a real value after a placeholder');
    assert.equal(carriesOwnCredential(new Headers(), url('?guest_order_token=sealed:cart&guest_order_token=sealed:cart'), v2), false, 'placeholders only');
  });
  it('reads the query only where the dialect takes a token there', () => {
    assert.equal(carriesOwnCredential(new Headers(), url('?guest_order_token=R9-real'), v3), false);
  });
});
