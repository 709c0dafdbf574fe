// What a queued write keeps of the page's request (src/sw/queuedWrite.ts): its method, URL, body,
// credentials mode and own headers, never a credential or a placeholder; the Idempotency-Key apart
// where the server keeps keys, among the headers (as any other) where it does not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queuedWriteOf } from '../src/sw/queuedWrite.js';

const MAKING = { id: 'w-1', baseUrl: 'https://shop.example', body: null, cart: 'R100', signInId: 's-1', createdAt: 7, cartTokenHeader: 'X-Store-Order-Token' };
const request = (headers: Record<string, string>) =>
  new Request('https://shop.example/api/v2/storefront/cart/add_item?guest_order_token=sealed%3Acart', { method: 'POST', headers, body: '{}', credentials: 'include' });

describe('queuedWriteOf', () => {
  it('keeps the page’s own headers, without the credential headers and the key kept apart, and no attempt yet', () => {
    const headers = { 'Content-Type': 'application/json', Authorization: 'Bearer sealed:access', 'x-store-order-token': 'sealed:cart', 'Idempotency-Key': 'page-key', 'X-Spree-Api-Key': 'pk_1', 'Accept-Language': 'de' };
    assert.deepEqual(queuedWriteOf(request(headers), { ...MAKING, key: 'page-key' }), {
      id: 'w-1',
      baseUrl: 'https://shop.example',
      body: null,
      key: 'page-key',
      cart: 'R100',
      signInId: 's-1',
      createdAt: 7,
      method: 'POST',
      url: 'https://shop.example/api/v2/storefront/cart/add_item?guest_order_token=sealed%3Acart',
      headers: [['accept-language', 'de'], ['content-type', 'application/json'], ['x-spree-api-key', 'pk_1']],
      credentials: 'include',
      attempts: 0,
      notBefore: 0,
    });
  });
  it('keeps a page’s Idempotency-Key among its headers where the server keeps no keys', () => {
    assert.deepEqual(queuedWriteOf(request({ 'Idempotency-Key': 'page-key' }), { ...MAKING, key: null }).headers, [['content-type', 'text/plain;charset=UTF-8'], ['idempotency-key', 'page-key']]);
  });
  it('drops the dialect’s cart token header whatever its case', () => {
    assert.deepEqual(queuedWriteOf(request({ 'x-spree-token': 'sealed:cart' }), { ...MAKING, key: null, cartTokenHeader: 'X-Spree-Token' }).headers, [['content-type', 'text/plain;charset=UTF-8']]);
  });
});
