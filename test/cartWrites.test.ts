// Each dialect names the cart writes the offline queue may carry, as a pure function of the path
// under the base URL and the method: v2's for `store` and `spree` (only add_item adds), the Store API's for `spree-v3`. Nothing else is ever queued: cart
// creation, checkout, payment, completion, account and token calls, reads, other methods, paths that
// only start like a write's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spree } from '../src/sw/dialects/spree.js';
import { spreeV3 } from '../src/sw/dialects/spreeV3.js';
import { store } from '../src/sw/dialects/store.js';

const v3 = spreeV3('pk_test');

/** `METHOD /path` and what the dialect should name it. */
type Case = [request: string, expected: 'adds' | 'sets' | null];

function check(dialect: { queueableWrite(path: string, method: string): unknown }, cases: Case[]): void {
  for (const [request, expected] of cases) {
    const [method = '', path = ''] = request.split(' ');
    assert.equal(dialect.queueableWrite(path, method), expected, request);
  }
}

describe('the v2 cart writes (store and spree)', () => {
  const cases: Case[] = [
    ['POST /api/v2/storefront/cart/add_item', 'adds'],
    ['PATCH /api/v2/storefront/cart/set_quantity', 'sets'],
    ['DELETE /api/v2/storefront/cart/remove_line_item/42', 'sets'],
    ['PATCH /api/v2/storefront/cart/apply_coupon_code', 'sets'],
    ['DELETE /api/v2/storefront/cart/remove_coupon_code', 'sets'],
    ['DELETE /api/v2/storefront/cart/remove_coupon_code/SAVE10', 'sets'],
    // Not cart writes, or not the method the write takes.
    ['POST /api/v2/storefront/cart', null],
    ['GET /api/v2/storefront/cart', null],
    ['DELETE /api/v2/storefront/cart', null],
    ['PATCH /api/v2/storefront/cart/associate', null],
    ['PATCH /api/v2/storefront/cart/empty', null],
    ['GET /api/v2/storefront/cart/add_item', null],
    ['PUT /api/v2/storefront/cart/add_item', null],
    ['PATCH /api/v2/storefront/cart/add_item', null],
    ['POST /api/v2/storefront/cart/set_quantity', null],
    ['patch /api/v2/storefront/cart/set_quantity', null],
    ['DELETE /api/v2/storefront/cart/remove_line_item', null],
    ['DELETE /api/v2/storefront/cart/remove_line_item/42/more', null],
    ['DELETE /api/v2/storefront/cart/remove_coupon_code/A/B', null],
    ['POST /api/v2/storefront/cart/add_item/', null],
    ['POST /api/v2/storefront/cart/add_items', null],
    ['POST /api/v2/storefront/cartography/add_item', null],
    ['PATCH /api/v2/storefront/checkout', null],
    ['PATCH /api/v2/storefront/checkout/next', null],
    ['PATCH /api/v2/storefront/checkout/add_payment', null],
    ['PATCH /api/v2/storefront/checkout/complete', null],
    ['PATCH /api/v2/storefront/account', null],
    ['POST /store_oauth/token', null],
    ['POST /spree_oauth/token', null],
    ['POST /add_item', null],
  ];
  it('names them in the store dialect', () => check(store, cases));
  it('names the same in the spree dialect', () => check(spree, cases));
  it('keeps no idempotency keys, so a lost answer may hide an applied write', () => {
    assert.equal(store.idempotencyKeys, false);
    assert.equal(spree.idempotencyKeys, false);
  });
});

describe('the Store API cart writes (spree-v3)', () => {
  it('names the line item and discount code writes under /carts/{id}', () =>
    check(v3, [
      ['POST /api/v3/store/carts/cart_k3G7QAe5/items', 'adds'],
      ['PATCH /api/v3/store/carts/cart_k3G7QAe5/items/li_9', 'sets'],
      ['DELETE /api/v3/store/carts/cart_k3G7QAe5/items/li_9', 'sets'],
      ['POST /api/v3/store/carts/cart_k3G7QAe5/discount_codes', 'sets'],
      ['DELETE /api/v3/store/carts/cart_k3G7QAe5/discount_codes/SAVE10', 'sets'],
    ]));
  it('names nothing else: creation, the cart itself, association, completion, payments, orders, auth, account', () =>
    check(v3, [
      ['POST /api/v3/store/carts', null],
      ['GET /api/v3/store/carts', null],
      ['PATCH /api/v3/store/carts/cart_1', null],
      ['DELETE /api/v3/store/carts/cart_1', null],
      ['PATCH /api/v3/store/carts/cart_1/associate', null],
      ['POST /api/v3/store/carts/cart_1/complete', null],
      ['POST /api/v3/store/carts/cart_1/payments', null],
      ['POST /api/v3/store/carts/cart_1/payment_sessions', null],
      ['PATCH /api/v3/store/carts/cart_1/fulfillments/f_1', null],
      ['POST /api/v3/store/carts/cart_1/gift_cards', null],
      ['GET /api/v3/store/carts/cart_1/items', null],
      ['PUT /api/v3/store/carts/cart_1/items/li_1', null],
      ['POST /api/v3/store/carts/cart_1/items/li_1', null],
      ['POST /api/v3/store/carts//items', null],
      ['POST /api/v3/store/carts/cart_1/items/', null],
      ['DELETE /api/v3/store/carts/cart_1/discount_codes', null],
      ['POST /api/v3/store/orders/or_1/items', null],
      ['POST /api/v3/store/wishlists/wl_1/items', null],
      ['POST /api/v3/store/auth/login', null],
      ['POST /api/v3/store/customers', null],
      ['PATCH /api/v3/store/customers/me', null],
      ['POST /api/v2/storefront/cart/add_item', null],
    ]));
  it('keeps idempotency keys, so every queued write may be sent again', () => {
    assert.equal(v3.idempotencyKeys, true);
  });
});
