// Reading the cart token and number from a cart document (docs/servers.md, "Creating a cart";
// docs/behaviour.md, "What the worker does to requests": `data.attributes.token`, else
// `data.token`). A document without a number (a page's sparse `fields[cart]=token`) still gives
// its token, with the number `''`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readCartDocument } from '../src/sw/dialects/storefrontV2.js';

/** The body of `POST /api/v2/storefront/cart?fields[cart]=number,token` (docs/servers.md, "Creating a cart"). */
const CREATED = {
  data: { id: '17', type: 'cart', attributes: { number: 'R123456789', token: 'order-token-1' }, relationships: {} },
};

describe('readCartDocument', () => {
  it('reads data.attributes.token and data.attributes.number', () => {
    assert.deepEqual(readCartDocument(CREATED), { token: 'order-token-1', number: 'R123456789' });
  });
  it('reads a full cart document with other attributes', () => {
    const body = { data: { ...CREATED.data, attributes: { ...CREATED.data.attributes, item_count: 0, total: '0.0', currency: 'USD' } } };
    assert.deepEqual(readCartDocument(body), { token: 'order-token-1', number: 'R123456789' });
  });
  it('falls back to data.token when the attributes carry none', () => {
    assert.deepEqual(readCartDocument({ data: { id: '1', type: 'cart', token: 'top-level', attributes: { number: 'R1' } } }), { token: 'top-level', number: 'R1' });
  });
  it('falls back to data.token and data.number when there are no attributes', () => {
    assert.deepEqual(readCartDocument({ data: { token: 'top-level', number: 'R2' } }), { token: 'top-level', number: 'R2' });
  });
  it('prefers data.attributes.token over data.token', () => {
    assert.deepEqual(readCartDocument({ data: { token: 'top-level', attributes: { token: 'attribute', number: 'R3' } } }), { token: 'attribute', number: 'R3' });
  });
  it('falls back to data.token when the attribute is empty or not a string', () => {
    for (const token of ['', 42, null, { value: 'x' }]) {
      assert.deepEqual(readCartDocument({ data: { token: 'top-level', attributes: { token, number: 'R4' } } }), { token: 'top-level', number: 'R4' }, JSON.stringify(token));
    }
  });
  it('ignores attributes that are not an object', () => {
    assert.deepEqual(readCartDocument({ data: { token: 't', number: 'R5', attributes: 'nope' } }), { token: 't', number: 'R5' });
    assert.deepEqual(readCartDocument({ data: { token: 't', number: 'R5', attributes: ['token'] } }), { token: 't', number: 'R5' });
  });
  it("reads a token without a number (a page's own `fields[cart]=token`) with the number ''", () => {
    assert.deepEqual(readCartDocument({ data: { id: '7', type: 'cart', attributes: { token: 't' }, relationships: {} } }), { token: 't', number: '' });
    assert.deepEqual(readCartDocument({ data: { attributes: { token: 't', number: 123456789 } } }), { token: 't', number: '' });
  });

  const refused: [what: string, body: unknown][] = [
    ['no token anywhere', { data: { attributes: { number: 'R1' } } }],
    ['a numeric token', { data: { attributes: { token: 123, number: 'R1' }, token: 456 } }],
    ['an empty token and number', { data: { attributes: { token: '', number: '' } } }],
    ['data null', { data: null }],
    ['data an array (a JSON:API collection)', { data: [CREATED.data] }],
    ['data a string', { data: 'cart' }],
    ['no data', { attributes: { token: 't', number: 'R1' } }],
    ['an error body', { error: 'The resource you were looking for could not be found.' }],
    ['null', null],
    ['undefined (a body that was not JSON)', undefined],
    ['an array', [CREATED]],
    ['a string', 'order-token-1'],
  ];
  for (const [what, body] of refused) {
    it(`refuses ${what}`, () => assert.equal(readCartDocument(body), null));
  }
});
