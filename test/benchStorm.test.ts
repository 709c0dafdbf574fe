// The storm's timeline (scripts/bench/storm.mjs, `phasesOf`): from the server's log of one burst,
// when the refresh grant arrived and was answered, and when the cart requests came and went.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
// @ts-expect-error -- a plain .mjs module of the bench, with no declarations; its values are checked here.
import { phasesOf } from '../scripts/bench/storm.mjs';

const CART = '/api/v2/storefront/cart';

describe('the storm timeline', () => {
  it('places the grant and the cart requests after the first tab started', () => {
    const first = 1_000;
    const log = [
      { method: 'POST', path: '/store_oauth/token', at: 1_020, answeredAt: 1_021 },
      { method: 'GET', path: CART, at: 1_030, answeredAt: 1_036 },
      { method: 'GET', path: '/api/v2/storefront/products/1', at: 1_031, answeredAt: 1_099 },
      { method: 'GET', path: CART, at: 1_040, answeredAt: 1_047.25 },
    ];
    assert.deepEqual(phasesOf(log, first), { grantArrived: 20, grantAnswered: 21, firstCartArrived: 30, lastCartAnswered: 47.3 });
  });

  it('has no grant in a burst without a refresh, and no last answer before one is sent', () => {
    assert.deepEqual(phasesOf([{ method: 'GET', path: CART, at: 5 }], 0), { grantArrived: null, grantAnswered: null, firstCartArrived: 5, lastCartAnswered: null });
  });
});
