// Sealed tokens (docs/security.md, "How sealing works"): what the page reads of cart documents and
// token responses, and which placeholders it sends back are swapped, as pure functions of text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { largeCart } from '../scripts/largeCart.js';
import { store } from '../src/sw/dialects/store.js';
import { SEALED, unsealQuery as unseal } from '../src/sw/sealedTokens.js';
import { sealText } from '../src/sw/sealScanner.js';

// Sealing as the request path plans it (requestPath.ts, #sealPlan): the values the worker holds,
// and `token` fields of other carts and orders. The scanner's own rules are in sealScanner.test.ts.
const held = (cart: string | null, pair: [string, string] | null = null) => ({
  values: [...(cart === null ? [] : [[cart, SEALED.cart] as const]), ...(pair === null ? [] : [[pair[0], SEALED.access] as const, [pair[1], SEALED.refresh] as const])],
  fields: { [store.cartTokenField]: 'sealed:order' },
});
const unsealQuery = (url: string, token: string | null): string | null => unseal(url, token, 'guest_order_token');
const isSealedRefreshGrant = (contentType: string | null, text: string): boolean => store.pageRefreshToken({ path: '/store_oauth/token', contentType, text }) === SEALED.refresh;
const sealedTokenBody = (expiresAt: number, now: number): Record<string, unknown> => store.sealedTokenBody({ accessToken: 'A', refreshToken: 'R', expiresAt, lifetimeMs: 1, confirmed: true }, now);

const cart = (attributes: object, extra: object = {}) => JSON.stringify({ data: { id: '1', type: 'cart', attributes, ...extra } });

describe('sealing a cart document by what the worker holds', () => {
  it('replaces data.attributes.token, and the same token wherever else it appears, leaving the rest as sent', () => {
    const text = cart({ number: 'R1', token: 'T-secret', total: '9.99' }, { relationships: { note: 'T-secret' } });
    const sealed = sealText(text, held('T-secret'));
    assert.equal(sealed, text.replaceAll('"T-secret"', `"${SEALED.cart}"`));
  });
  it('replaces data.token too', () => {
    assert.equal(sealText('{"data":{"token":"T2","number":"R2"}}', held('T2')), '{"data":{"token":"sealed:cart","number":"R2"}}');
  });
  it('seals the token inside a longer value too (docs/security.md: "part of a longer one")', () => {
    assert.equal(sealText(cart({ token: 'abc', number: 'abcdef' }), held('abc')), cart({ token: 'sealed:cart', number: 'sealed:cartdef' }));
  });
  it("leaves documents without a token as they are, and seals another cart's token as sealed:order", () => {
    for (const text of [cart({ number: 'R1' }), '{"error":"The resource you were looking for could not be found."}', '[1,2]', '"T"']) {
      assert.equal(sealText(text, held('T-secret')), null, text);
    }
    assert.equal(sealText('{"attributes":{"token":"T-other"}}', held('T-secret')), '{"attributes":{"token":"sealed:order"}}');
  });
  it('seals the token in text that is not JSON (a truncated body)', () => {
    assert.equal(sealText('{"data":{"attributes":{"token":"T-secret","num', held('T-secret')), '{"data":{"attributes":{"token":"sealed:cart","num');
    assert.equal(sealText('<html>502</html>', held('T-secret')), null);
  });
  it('seals a 50 KB cart document with many line items', () => {
    const text = largeCart(50_000);
    assert.ok(text.length >= 50_000);
    const sealed = sealText(text, held('T-secret'));
    assert.ok(sealed !== null && !sealed.includes('T-secret'));
    assert.equal(sealed.length, text.length - 'T-secret'.length + SEALED.cart.length);
  });
});

describe('sealing a token response by what it brought', () => {
  const issued = { access_token: 'A-secret', token_type: 'Bearer', expires_in: 7200, refresh_token: 'R-secret', created_at: 1 };
  it('replaces access_token and refresh_token, keeping every other field', () => {
    assert.deepEqual(JSON.parse(sealText(JSON.stringify(issued), held(null, ['A-secret', 'R-secret'])) ?? 'null'), { ...issued, access_token: SEALED.access, refresh_token: SEALED.refresh });
  });
  it('leaves error bodies untouched', () => {
    assert.equal(sealText('{"error":"invalid_grant","error_description":"The provided authorization grant is invalid."}', held(null, ['A-secret', 'R-secret'])), null);
  });
  it('seals tokens in text that is not JSON', () => {
    assert.equal(sealText('{"access_token" : "A-secret","refresh_token":"R-secret"} trailing', held(null, ['A-secret', 'R-secret'])), '{"access_token" : "sealed:access","refresh_token":"sealed:refresh"} trailing');
  });
});

describe('isSealedRefreshGrant', () => {
  it('recognises the placeholder in a form or a JSON refresh grant', () => {
    assert.equal(isSealedRefreshGrant('application/x-www-form-urlencoded', 'grant_type=refresh_token&refresh_token=sealed%3Arefresh'), true);
    assert.equal(isSealedRefreshGrant('application/json; charset=utf-8', '{"grant_type":"refresh_token","refresh_token":"sealed:refresh"}'), true);
  });
  it('recognises it in a multipart form (a FormData body), whatever its boundary', async () => {
    for (const boundary of ['----WebKitFormBoundaryx7Zq', '"a;b=c"']) {
      const form = [`--${boundary.replace(/"/g, '')}`, 'Content-Disposition: form-data; name="grant_type"', '', 'refresh_token', `--${boundary.replace(/"/g, '')}`, 'Content-Disposition: form-data; name="refresh_token"', '', 'sealed:refresh', `--${boundary.replace(/"/g, '')}--`, ''].join('\r\n');
      assert.equal(isSealedRefreshGrant(`multipart/form-data; boundary=${boundary}`, form), true, boundary);
    }
    // As a browser writes one.
    const data = new FormData();
    data.set('grant_type', 'refresh_token');
    data.set('refresh_token', 'sealed:refresh');
    const request = new Request('https://shop.example/spree_oauth/token', { method: 'POST', body: data });
    assert.equal(isSealedRefreshGrant(request.headers.get('Content-Type'), await request.text()), true);
    // A file part is no field, and a real token is the page's own.
    const file = ['--B', 'Content-Disposition: form-data; name="grant_type"', '', 'refresh_token', '--B', 'Content-Disposition: form-data; name="refresh_token"; filename="t.txt"', 'Content-Type: text/plain', '', 'sealed:refresh', '--B--', ''].join('\r\n');
    assert.equal(isSealedRefreshGrant('multipart/form-data; boundary=B', file), false);
    assert.equal(isSealedRefreshGrant('multipart/form-data; boundary=B', file.replace('; filename="t.txt"', '').replace('sealed:refresh', 'R-real')), false);
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
  it('changes only the placeholder: the rest of the URL stays byte for byte as the page wrote it', () => {
    const written = 'https://shop.example/api/v2/storefront/cart/associate?fields%5Bcart%5D=a+b&guest_order_token=sealed:cart&include=line_items,x#top';
    assert.equal(unsealQuery(written, 'T/real+1'), 'https://shop.example/api/v2/storefront/cart/associate?fields%5Bcart%5D=a+b&guest_order_token=T%2Freal%2B1&include=line_items,x#top');
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
