// How an attempt settles a queued write (src/sw/writeSettlement.ts): applied, rejected, kept with a
// back-off (5 s doubling to 5 min) and the same key or a new one, or expired after 24 h or 20
// counted attempts; attempts while the browser reports itself offline do not count.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { QueuedWrite } from '../src/sw/queuedWrite.js';
import { backoffLeftMs, failedAttempt, isExpired, MAX_WRITE_ATTEMPTS, settle, WRITE_LIFETIME_MS, writeBackoffMs } from '../src/sw/writeSettlement.js';

const NOW = 1_700_000_000_000;
const WRITE: QueuedWrite = {
  seq: 3,
  id: 'w-1',
  baseUrl: 'https://shop.example',
  method: 'POST',
  url: 'https://shop.example/api/v2/storefront/cart/add_item',
  headers: [['content-type', 'application/json']],
  body: null,
  credentials: 'same-origin',
  key: 'key-1',
  cart: 'R100',
  signInId: null,
  createdAt: NOW - 60_000,
  attempts: 0,
  notBefore: 0,
};
const answered = (status: number, retryAfterMs: number | null = null) => ({ kind: 'answered', status, retryAfterMs }) as const;

describe('writeBackoffMs', () => {
  it('waits 5 s after the first counted failure, doubling, at most 5 min', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 20].map(writeBackoffMs), [5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
  });
});

describe('settle', () => {
  it('applies a 2xx, with its status', () => {
    for (const status of [200, 201, 202, 204]) assert.deepEqual(settle(WRITE, answered(status), true, NOW), { outcome: 'applied', status });
  });
  it('rejects any other 4xx, never retried', () => {
    for (const status of [400, 401, 403, 404, 413, 422]) assert.deepEqual(settle(WRITE, answered(status), true, NOW), { outcome: 'rejected', status });
  });
  it('rejects a write that met a redirect', () => {
    assert.deepEqual(settle(WRITE, { kind: 'redirected' }, true, NOW), { outcome: 'rejected' });
  });
  it('keeps a 5xx with the same key, counted, after the back-off', () => {
    const settled = settle(WRITE, answered(503), true, NOW);
    assert.deepEqual(settled, { outcome: 'retry', newKey: false, write: { ...WRITE, attempts: 1, notBefore: NOW + 5_000 } });
    const again = settle({ ...WRITE, attempts: 1 }, answered(500), true, NOW);
    assert.deepEqual(again, { outcome: 'retry', newKey: false, write: { ...WRITE, attempts: 2, notBefore: NOW + 10_000 } });
  });
  it('waits at least a 5xx’s Retry-After', () => {
    const settled = settle(WRITE, answered(503, 30_000), true, NOW);
    assert.equal(settled.outcome === 'retry' && settled.write.notBefore, NOW + 30_000);
  });
  it('keeps a 409 and a 429 with a new key, after the back-off or the Retry-After, whichever is longer', () => {
    assert.deepEqual(settle(WRITE, answered(409), true, NOW), { outcome: 'retry', newKey: true, write: { ...WRITE, attempts: 1, notBefore: NOW + 5_000 } });
    assert.deepEqual(settle(WRITE, answered(429, 60_000), true, NOW), { outcome: 'retry', newKey: true, write: { ...WRITE, attempts: 1, notBefore: NOW + 60_000 } });
    assert.deepEqual(settle(WRITE, answered(429, 1_000), true, NOW), { outcome: 'retry', newKey: true, write: { ...WRITE, attempts: 1, notBefore: NOW + 5_000 } });
  });
  it('keeps a write whose answer was lost while online, counted, with the same key', () => {
    assert.deepEqual(settle(WRITE, { kind: 'lost' }, true, NOW), { outcome: 'retry', newKey: false, write: { ...WRITE, attempts: 1, notBefore: NOW + 5_000 } });
  });
  it('keeps a write whose answer was lost while offline as it was: not counted, no back-off', () => {
    const waiting = { ...WRITE, attempts: 3, notBefore: NOW - 1 };
    assert.deepEqual(settle(waiting, { kind: 'lost' }, false, NOW), { outcome: 'retry', newKey: false, write: waiting });
  });
  it('gives up a write that cannot be sent twice whose answer was lost, whatever the browser reports by then: it may have been applied', () => {
    assert.deepEqual(settle(WRITE, { kind: 'lost' }, true, NOW, false), { outcome: 'expired' });
    assert.deepEqual(settle(WRITE, { kind: 'lost' }, false, NOW, false), { outcome: 'expired' });
  });
  it('keeps a write that cannot be sent twice that was never sent, or that the server answered with a 5xx', () => {
    assert.deepEqual(settle(WRITE, { kind: 'unsent' }, false, NOW, false), { outcome: 'retry', newKey: false, write: WRITE });
    assert.deepEqual(settle(WRITE, { kind: 'unsent' }, true, NOW, false), { outcome: 'retry', newKey: false, write: { ...WRITE, attempts: 1, notBefore: NOW + 5_000 } });
    assert.deepEqual(settle(WRITE, answered(503), true, NOW, false), { outcome: 'retry', newKey: false, write: { ...WRITE, attempts: 1, notBefore: NOW + 5_000 } });
  });
  it('counts a 5xx even when the browser says it is offline: the server answered', () => {
    const settled = settle(WRITE, answered(502), false, NOW);
    assert.equal(settled.outcome === 'retry' && settled.write.attempts, 1);
  });
  it('expires a write on its 20th counted failure, and not before', () => {
    assert.equal(MAX_WRITE_ATTEMPTS, 20);
    assert.deepEqual(settle({ ...WRITE, attempts: 19 }, answered(503), true, NOW), { outcome: 'expired' });
    assert.deepEqual(settle({ ...WRITE, attempts: 19 }, { kind: 'lost' }, true, NOW), { outcome: 'expired' });
    assert.equal(settle({ ...WRITE, attempts: 18 }, answered(503), true, NOW).outcome, 'retry');
    assert.equal(settle({ ...WRITE, attempts: 19 }, { kind: 'lost' }, false, NOW).outcome, 'retry', 'an offline attempt does not count');
  });
  it('expires a write 24 h old that fails again', () => {
    assert.deepEqual(settle({ ...WRITE, createdAt: NOW - WRITE_LIFETIME_MS }, answered(503), true, NOW), { outcome: 'expired' });
  });
  it('applies a 2xx even past the limits: the server has it', () => {
    assert.deepEqual(settle({ ...WRITE, attempts: 25, createdAt: NOW - 2 * WRITE_LIFETIME_MS }, answered(201), true, NOW), { outcome: 'applied', status: 201 });
  });
});

describe('isExpired and failedAttempt', () => {
  it('expires at 24 h (Spree’s idempotency window) or 20 counted attempts', () => {
    assert.equal(WRITE_LIFETIME_MS, 86_400_000);
    assert.equal(isExpired(WRITE, NOW), false);
    assert.equal(isExpired({ ...WRITE, createdAt: NOW - WRITE_LIFETIME_MS + 1 }, NOW), false);
    assert.equal(isExpired({ ...WRITE, createdAt: NOW - WRITE_LIFETIME_MS }, NOW), true);
    assert.equal(isExpired({ ...WRITE, attempts: 19 }, NOW), false);
    assert.equal(isExpired({ ...WRITE, attempts: 20 }, NOW), true);
  });
  it('counts a failure online and leaves one offline as it was', () => {
    assert.deepEqual(failedAttempt(WRITE, true, NOW), { ...WRITE, attempts: 1, notBefore: NOW + 5_000 });
    assert.equal(failedAttempt(WRITE, false, NOW), WRITE);
  });
});

describe('backoffLeftMs', () => {
  it('is what is left of the back-off, 0 once it is over', () => {
    assert.equal(backoffLeftMs({ ...WRITE, notBefore: NOW + 5_000 }, NOW), 5_000);
    assert.equal(backoffLeftMs({ ...WRITE, notBefore: NOW + 300_000 }, NOW), 300_000);
    assert.equal(backoffLeftMs({ ...WRITE, notBefore: NOW }, NOW), 0);
    assert.equal(backoffLeftMs({ ...WRITE, notBefore: 0 }, NOW), 0);
  });
  it('counts a wait longer than any the release sets as over: the device clock was set back since', () => {
    assert.equal(backoffLeftMs({ ...WRITE, notBefore: NOW + 300_001 }, NOW), 0);
    assert.equal(backoffLeftMs({ ...WRITE, notBefore: NOW + 24 * 3_600_000 }, NOW), 0);
  });
});
