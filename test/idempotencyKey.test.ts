// The Idempotency-Key of a queued write (src/sw/idempotencyKey.ts): the page's own, or a random UUID
// v4 the worker adds at the first attempt, only where the server keeps keys. Its renewal after a 409
// or a 429 is writeSettlement.test.ts's; its journey through sending and replaying, offlineWrites.test.ts's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDEMPOTENCY_HEADER, writeKey } from '../src/sw/idempotencyKey.js';

describe('writeKey', () => {
  it('keeps the page’s own key (the Spree SDK sends one)', () => {
    assert.equal(writeKey('spree-sdk-retry-1b4e', true, () => assert.fail('no new key')), 'spree-sdk-retry-1b4e');
  });
  it('adds a new key where the page sent none, or an empty one', () => {
    assert.equal(writeKey(null, true, () => 'new-key'), 'new-key');
    assert.equal(writeKey('', true, () => 'new-key'), 'new-key');
  });
  it('gives no key where the server keeps none, whatever the page sent', () => {
    assert.equal(writeKey(null, false, () => assert.fail('no key')), null);
    assert.equal(writeKey('page-key', false, () => assert.fail('no key')), null);
  });
  it('names the header as Spree reads it', () => {
    assert.equal(IDEMPOTENCY_HEADER, 'Idempotency-Key');
  });
});
