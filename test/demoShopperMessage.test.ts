import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notLoadedMessage, shopperMessage, unreachableMessage } from '../demo/app/shopperMessage.js';
import { StorefrontAuthError } from '../src/shared/errors.js';

const NETWORK = new StorefrontAuthError('network_error', 'http://127.0.0.1:8787/api/v2/storefront/cart?fields%5Bcart%5D=token could not be reached (offline, or refused by CORS); nothing changed, try again.');

test('a network error offline tells the shopper they are offline, without code or URL', () => {
  const message = shopperMessage(NETWORK, false);
  assert.match(message, /^You're offline\./);
  assert.doesNotMatch(message, /network_error|http|CORS|fields/);
});

test('a network error online, or a timeout, says the shop cannot be reached or is slow', () => {
  assert.equal(shopperMessage(NETWORK, true), "The shop can't be reached right now. Please try again in a moment.");
  assert.match(shopperMessage(new StorefrontAuthError('timeout', 'The worker did not answer within 10 s.'), true), /taking too long/);
  assert.match(shopperMessage(new StorefrontAuthError('timeout', 'x'), false), /^You're offline/);
});

test('a failed fetch (TypeError) is unreachable; another exception is a page problem, not "offline"', () => {
  assert.equal(shopperMessage(new TypeError('Failed to fetch'), false), unreachableMessage(false));
  assert.match(shopperMessage(new RangeError('bug'), false), /^Something went wrong on this page/);
});

test('every other code has its own sentence, none showing the code or the library message', () => {
  for (const code of ['invalid_grant', 'invalid_request', 'bad_response', 'no_service_worker', 'storage_unavailable'] as const) {
    const message = shopperMessage(new StorefrontAuthError(code, 'LIBRARY DETAIL'), true);
    assert.ok(message.length > 0);
    assert.doesNotMatch(message, new RegExp(`${code}|LIBRARY DETAIL`));
  }
  assert.match(shopperMessage(new StorefrontAuthError('invalid_grant', 'x', { status: 400 }), true), /e-mail and password don't match/);
});

test("an account read the shop refused (401, 403) names the refused sign-in and its status, never 'can't be reached'", () => {
  for (const status of [401, 403]) {
    const message = notLoadedMessage('Your orders', status, true);
    assert.equal(message, `Your orders cannot be loaded: the shop did not accept your sign-in (it answered ${status}). Please sign out and sign in again.`);
    assert.doesNotMatch(message, /can't be reached|offline/);
  }
  assert.equal(notLoadedMessage('Your account details', 500, true), 'Your account details cannot be loaded now (the shop answered 500). Please try again in a moment.');
  assert.equal(notLoadedMessage('Your orders', null, true), `Your orders cannot be loaded now. ${unreachableMessage(true)}`);
  assert.equal(notLoadedMessage('Your orders', null, false), `Your orders cannot be loaded now. ${unreachableMessage(false)}`);
});
