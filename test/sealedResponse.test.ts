// The answer a page gets from a sealed response (sealedResponse.ts): what is read ahead of the page
// (bounded for what the worker keeps; the first chunk of a body of known length, whole when it is
// all of it), and the rebuilt response (status and headers kept, a header holding a token dropped).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readAhead, rebuilt, sealedResponse, secretHeaders } from '../src/sw/sealedResponse.js';
import { chunked } from './sealStreaming.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const plan = { values: [['T-real-cart-token', 'sealed:cart']] as [string, string][], fields: { token: 'sealed:order' } };

/** A network response whose body comes in the given parts. */
const network = (parts: string[], headers: Record<string, string> = {}, status = 200) => {
  const body = bytes(parts.join(''));
  const cuts = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('').length);
  return new Response(chunked(body, cuts), { status, headers });
};

describe('reading ahead of the page', () => {
  it('reads what the worker keeps up to its limit: whole when it ends within it, else past it and no further', async () => {
    const whole = await readAhead(network(['{"a":', '1}']), 64);
    assert.deepEqual([whole?.chunks.length, whole?.size, whole?.whole], [2, 7, true]);
    const over = await readAhead(network(['12345', '67890', 'abc']), 6);
    assert.deepEqual([over?.chunks.length, over?.size, over?.whole], [2, 10, false]);
    assert.equal(new TextDecoder().decode((await over!.reader.read()).value), 'abc', 'the rest is left for the page');
  });

  it('reads the first chunk of a body of known length, whole when it is all of it, and nothing of one of unknown length', async () => {
    const all = await readAhead(network(['{"a":1}'], { 'Content-Length': '7' }), null);
    assert.deepEqual([all?.size, all?.whole], [7, true]);
    const first = await readAhead(network(['{"a":', '1}'], { 'Content-Length': '7' }), null);
    assert.deepEqual([first?.chunks.length, first?.size, first?.whole], [1, 5, false]);
    assert.equal(await readAhead(network(['{"a":1}']), null), null, 'no Content-Length: a stream, never waited for');
    assert.equal(await readAhead(network(['{"a":1}'], { 'Content-Length': '7', 'Content-Encoding': 'gzip' }), null), null, 'encoded: the length is not what the worker reads');
    assert.equal(await readAhead(new Response(null, { status: 204 }), null), null);
  });
});

describe('the sealed response', () => {
  it('keeps status, status text and headers, drops Content-Length, Content-Encoding and a header holding a token', async () => {
    const response = network(['{"token":"T-real-', 'cart-token"}'], { 'Content-Type': 'application/json', 'Content-Length': '30', 'X-Echo': 'order T-real-cart-token', 'X-Other': 'fine', ETag: '"v1"' }, 201);
    const head = await readAhead(response, null);
    const sealed = sealedResponse(response, plan, head);
    assert.equal(sealed.status, 201);
    assert.deepEqual([...sealed.headers].sort(), [['content-type', 'application/json'], ['etag', '"v1"'], ['x-other', 'fine']]);
    assert.equal(await sealed.text(), '{"token":"sealed:cart"}');
  });

  it('gives a null-body status no body, and passes a body unread where there is nothing to seal by', async () => {
    assert.equal(sealedResponse(new Response(null, { status: 304 }), plan, null).body, null);
    const passed = rebuilt(network(['as sent'], { 'X-Echo': 'T-real-cart-token' }), network(['as sent']).body, null);
    assert.equal(await passed.text(), 'as sent');
    assert.equal(passed.headers.get('X-Echo'), 'T-real-cart-token', 'no plan: no header is judged');
  });
});

describe('headers that hold a token', () => {
  const CART = 'T-cart-0123456789';
  const ACCESS = 'Z-access-abcdefghij';
  const REFRESH = 'R+fresh/Tok=';
  const known = { values: [[CART, 'sealed:cart'], [ACCESS, 'sealed:access'], [REFRESH, 'sealed:refresh']] as [string, string][], fields: { token: 'sealed:order' } };
  const escaped = (value: string) => [...value].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

  it('finds a token in a header raw, URL-encoded or escaped, and leaves the others', () => {
    const entries: [string, string][] = [
      ['authorization-echo', `Bearer ${ACCESS}`],
      ['link', `</cart?t=${encodeURIComponent(REFRESH)}>; rel="self"`],
      ['x-debug', `{"t":"${escaped(CART)}"}`],
      ['x-order', `X-Spree-Order-Token: ${CART}`],
      ['content-type', 'application/json'],
      ['x-sealed', 'Bearer sealed:access'],
      ['x-field', '{"token":"some other order"}'],
    ];
    assert.deepEqual(secretHeaders(entries, known), ['authorization-echo', 'link', 'x-debug', 'x-order']);
    assert.deepEqual(secretHeaders(entries.slice(4), known), []);
    assert.deepEqual(secretHeaders(entries, { values: [], fields: {} }), []);
  });
});
