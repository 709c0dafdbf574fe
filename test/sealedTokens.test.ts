// Sealed tokens (CONTRACT.md, "Sealed tokens"): what the page reads of cart documents and token
// responses, and which placeholders it sends back are swapped, as pure functions of text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { largeCart } from '../scripts/largeCart.js';
import { store } from '../src/sw/dialects/store.js';
import { SEALED, sealCartDocument as sealCart, sealTokenResponse as sealTokens, unsealQuery as unseal } from '../src/sw/sealedTokens.js';

const sealCartDocument = (text: string): string | null => sealCart(text, store);
const sealTokenResponse = (text: string): string | null => sealTokens(text, store.tokenFields);
const unsealQuery = (url: string, token: string | null): string | null => unseal(url, token, 'guest_order_token');
const isSealedRefreshGrant = (contentType: string | null, text: string): boolean => store.pageRefreshToken({ path: '/store_oauth/token', contentType, text }) === SEALED.refresh;
const sealedTokenBody = (expiresAt: number, now: number): Record<string, unknown> => store.sealedTokenBody({ accessToken: 'A', refreshToken: 'R', expiresAt, lifetimeMs: 1, confirmed: true }, now);

const cart = (attributes: object, extra: object = {}) => JSON.stringify({ data: { id: '1', type: 'cart', attributes, ...extra } });

describe('sealCartDocument', () => {
  it('replaces data.attributes.token, and the same token wherever else it appears, leaving the rest as sent', () => {
    const text = cart({ number: 'R1', token: 'T-secret', total: '9.99' }, { relationships: { note: 'T-secret' } });
    const sealed = sealCartDocument(text);
    assert.equal(sealed, text.replaceAll('"T-secret"', `"${SEALED.cart}"`));
    assert.ok(!sealed?.includes('T-secret'));
  });
  it('replaces data.token too', () => {
    assert.equal(sealCartDocument('{"data":{"token":"T2","number":"R2"}}'), '{"data":{"token":"sealed:cart","number":"R2"}}');
  });
  it('keeps a token that is a substring of another value intact elsewhere', () => {
    assert.equal(sealCartDocument(cart({ token: 'abc', number: 'abcdef' })), cart({ token: 'sealed:cart', number: 'abcdef' }));
  });
  it('returns null for documents without a token, and for JSON of another shape', () => {
    for (const text of [cart({ number: 'R1' }), '{"error":"The resource you were looking for could not be found."}', '[1,2]', '"T"', '{"attributes":{"token":"T"}}']) {
      assert.equal(sealCartDocument(text), null, text);
    }
  });
  it('seals a token field in text that is not JSON (a truncated body)', () => {
    assert.equal(sealCartDocument('{"data":{"attributes":{"token":"T-secret","num'), '{"data":{"attributes":{"token":"sealed:cart","num');
    assert.equal(sealCartDocument('<html>502</html>'), null);
  });
  it('seals a 50 KB cart document with many line items', () => {
    const text = largeCart(50_000);
    assert.ok(text.length >= 50_000);
    const sealed = sealCartDocument(text);
    assert.ok(sealed !== null && !sealed.includes('T-secret'));
    assert.equal(sealed.length, text.length - 'T-secret'.length + SEALED.cart.length);
  });
});

describe('sealTokenResponse', () => {
  const issued = { access_token: 'A-secret', token_type: 'Bearer', expires_in: 7200, refresh_token: 'R-secret', created_at: 1 };
  it('replaces access_token and refresh_token, keeping every other field', () => {
    assert.deepEqual(JSON.parse(sealTokenResponse(JSON.stringify(issued)) ?? 'null'), { ...issued, access_token: SEALED.access, refresh_token: SEALED.refresh });
  });
  it('seals either token alone, and leaves error bodies untouched', () => {
    assert.deepEqual(JSON.parse(sealTokenResponse(JSON.stringify({ refresh_token: 'R' })) ?? 'null'), { refresh_token: SEALED.refresh });
    assert.equal(sealTokenResponse('{"error":"invalid_grant","error_description":"The provided authorization grant is invalid."}'), null);
  });
  it('seals token fields in text that is not JSON, escaped quotes included', () => {
    assert.equal(sealTokenResponse('{"access_token" : "a\\"b","refresh_token":"r"} trailing'), '{"access_token" : "sealed:access","refresh_token":"sealed:refresh"} trailing');
  });
});

describe('isSealedRefreshGrant', () => {
  it('recognises the placeholder in a form or a JSON refresh grant', () => {
    assert.equal(isSealedRefreshGrant('application/x-www-form-urlencoded', 'grant_type=refresh_token&refresh_token=sealed%3Arefresh'), true);
    assert.equal(isSealedRefreshGrant('application/json; charset=utf-8', '{"grant_type":"refresh_token","refresh_token":"sealed:refresh"}'), true);
  });
  it('leaves real refresh tokens, password grants and junk to the server', () => {
    assert.equal(isSealedRefreshGrant('application/x-www-form-urlencoded', 'grant_type=refresh_token&refresh_token=R-real'), false);
    assert.equal(isSealedRefreshGrant('application/json', '{"grant_type":"password","username":"u","password":"sealed:refresh"}'), false);
    assert.equal(isSealedRefreshGrant('application/json', '{"grant_type":'), false);
    assert.equal(isSealedRefreshGrant(null, ''), false);
  });
});

describe('unsealQuery', () => {
  const url = 'https://shop.example/api/v2/storefront/cart/associate?guest_order_token=sealed%3Acart&x=1';
  it('swaps the placeholder for the real cart token', () => {
    assert.equal(unsealQuery(url, 'T-real'), 'https://shop.example/api/v2/storefront/cart/associate?guest_order_token=T-real&x=1');
  });
  it('leaves other queries alone, and the placeholder as it is without a cart', () => {
    assert.equal(unsealQuery('https://shop.example/api/v2/storefront/cart?guest_order_token=T-real', 'T'), null);
    assert.equal(unsealQuery(url, null), null);
  });
});

describe('sealedTokenBody', () => {
  it('answers with placeholders and the seconds left, never 0', () => {
    assert.deepEqual(sealedTokenBody(10_500_000, 10_000_000), { access_token: SEALED.access, token_type: 'Bearer', expires_in: 500, refresh_token: SEALED.refresh, created_at: 10_000 });
    assert.equal(sealedTokenBody(10_000_100, 10_000_000)['expires_in'], 1);
  });
});
