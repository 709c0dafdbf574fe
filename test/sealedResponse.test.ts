// The answer a page gets from a sealed response (sealedResponse.ts): what is read ahead of the page
// (bounded for what the worker keeps; the first chunk of a body of known length, whole when it is
// all of it), and the rebuilt response (status and headers kept, a header holding a token dropped).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_HELD } from '../src/sw/sealScanner.js';
import { readAhead, readAheadLimit, rebuilt, sealedResponse, secretHeaders } from '../src/sw/sealedResponse.js';
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
  it('keeps Content-Length and Content-Encoding on an answer without a body (a HEAD): the length is what the page asked for', () => {
    const head = new Response(null, { headers: { 'Content-Length': '4096', 'Content-Encoding': 'gzip', 'X-Echo': 'T-real-cart-token' } });
    const answer = sealedResponse(head, plan, null);
    assert.equal(answer.headers.get('Content-Length'), '4096');
    assert.equal(answer.headers.get('Content-Encoding'), 'gzip');
    assert.equal(answer.headers.get('X-Echo'), null, 'a header holding a token still goes');
  });

  it('keeps status, status text and headers, drops Content-Length, Content-Encoding and a header holding a token', async () => {
    const response = network(['{"token":"T-real-', 'cart-token"}'], { 'Content-Type': 'application/json', 'Content-Length': '30', 'X-Echo': 'order T-real-cart-token', 'X-Other': 'fine', ETag: '"v1"' }, 201);
    const head = await readAhead(response, null);
    const sealed = sealedResponse(response, plan, head);
    assert.equal(sealed.status, 201);
    assert.deepEqual([...sealed.headers].sort(), [['content-type', 'application/json'], ['etag', '"v1"'], ['x-other', 'fine']]);
    assert.equal(await sealed.text(), '{"token":"sealed:cart"}');
  });

  it('gives a body the worker had whole before the page the Content-Length of what the page reads, and none to one still streaming', async () => {
    const whole = async (text: string, headers: Record<string, string>) => {
      const response = network([text], headers);
      const answer = sealedResponse(response, plan, await readAhead(response, readAheadLimit(headers['Content-Type'] ?? null, null)));
      return { length: answer.headers.get('Content-Length'), bytes: (await answer.arrayBuffer()).byteLength };
    };
    const json = { 'Content-Type': 'application/json' };
    assert.deepEqual(await whole('{"token":"T-real-cart-token"}', { ...json, 'Content-Length': '29' }), { length: '23', bytes: 23 }, 'a token replaced: the sealed length');
    assert.deepEqual(await whole('{"note":"nothing"}', { ...json, 'Content-Length': '18' }), { length: '18', bytes: 18 }, 'nothing replaced: the length as sent');
    assert.deepEqual(await whole('{"a":1}', json), { length: null, bytes: 7 }, 'no length sent: the body streams, no length is made up');
    const latin1 = { 'Content-Type': 'text/plain; charset=iso-8859-1' };
    const cafe = new Response(Uint8Array.from('caf\xe9 T-real-cart-token', (char) => char.charCodeAt(0)), { headers: latin1 });
    const recoded = sealedResponse(cafe, plan, await readAhead(cafe, readAheadLimit(latin1['Content-Type'], null)));
    assert.equal(recoded.headers.get('Content-Length'), String(bytes('café sealed:cart').length), 're-encoded in UTF-8: the new length');
    const parted = network(['{"token":"T-real-', 'cart-token"}'], { ...json, 'Content-Length': '29' });
    assert.equal(sealedResponse(parted, plan, await readAhead(parted, null)).headers.get('Content-Length'), null, 'still streaming: not known yet');
  });

  it('gives a null-body status no body, and passes a body unread where there is nothing to seal by', async () => {
    assert.equal(sealedResponse(new Response(null, { status: 304 }), plan, null).body, null);
    const passed = rebuilt(network(['as sent'], { 'X-Echo': 'T-real-cart-token' }), network(['as sent']).body, null);
    assert.equal(await passed.text(), 'as sent');
    assert.equal(passed.headers.get('X-Echo'), 'T-real-cart-token', 'no plan: no header is judged');
  });
});

describe('a body that came whole in the first read', () => {
  const utf16 = (text: string) => Uint8Array.from([...text].flatMap((char) => [char.charCodeAt(0), 0]));
  const sent = (body: Uint8Array, cuts: number[]) =>
    new Response(chunked(body, cuts), { headers: { 'Content-Type': 'application/json; charset=utf-16le', 'Content-Length': String(body.length) } });

  it('is sealed before the page gets it: one holding a token the worker cannot rewrite is refused at once, so the page’s fetch rejects', async () => {
    const whole = sent(utf16('{"error":"order T-real-cart-token"}'), []);
    const head = await readAhead(whole, null);
    assert.equal(head?.whole, true);
    assert.throws(() => sealedResponse(whole, plan, head), /refused/);
  });

  it('in parts, the same body is refused as its stream ends: the page’s read of it fails', async () => {
    const body = utf16('{"error":"order T-real-cart-token"}');
    const parted = sent(body, [11]);
    const head = await readAhead(parted, null);
    assert.equal(head?.whole, false);
    await assert.rejects(sealedResponse(parted, plan, head).arrayBuffer(), /refused/);
  });

  it('without a known value, reaches the page byte for byte', async () => {
    const body = utf16('{"note":"café, no token"}');
    const whole = sent(body, []);
    const answer = sealedResponse(whole, plan, await readAhead(whole, null));
    assert.deepEqual(new Uint8Array(await answer.arrayBuffer()), body);
  });
});

describe('a body in a single-byte charset', () => {
  const latin1 = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0));
  /** A network response whose body is `body`'s bytes, cut at `cuts`. */
  const sent = (body: Uint8Array, type: string, cuts: number[] = []) => new Response(chunked(body, cuts), { headers: { 'Content-Type': type } });
  /** What the page gets: read ahead as the request path does for an answer the worker does not keep. */
  const page = async (response: Response) => {
    const answer = sealedResponse(response, plan, await readAhead(response, readAheadLimit(response.headers.get('Content-Type'), null)));
    return { type: answer.headers.get('Content-Type'), bytes: [...new Uint8Array(await answer.arrayBuffer())] };
  };

  it('is read whole (up to the bound) before the page gets any of it; a UTF-8 one or one of no charset only as known', () => {
    const limit = (type: string) => readAheadLimit(type, null);
    assert.equal(limit('text/plain; charset=ISO-8859-1'), MAX_HELD);
    assert.equal(limit('application/json; charset="windows-1251"'), MAX_HELD);
    assert.equal(limit('application/json; charset=utf-8'), null);
    assert.equal(limit('application/json'), null);
    assert.equal(limit('application/json; charset=utf-16le'), MAX_HELD, 'held whole, so that a refusal fails the fetch');
    assert.equal(limit('text/event-stream; charset=ISO-8859-1'), null, 'an event stream streams, rewritten in place');
    assert.equal(readAheadLimit('text/plain; charset=latin1', 64), 64, 'what the worker keeps has its own bound');
  });

  it('holding a token, reaches the page re-encoded in UTF-8, its Content-Type saying so, whatever the chunks', async () => {
    const body = latin1('{"note":"café T-real-cart-token reçue"}');
    for (const cuts of [[], [10], [13, 14, 20]]) {
      const answer = await page(sent(body, 'application/json; charset=ISO-8859-1; version=2', cuts));
      assert.equal(answer.type, 'application/json; charset=utf-8; version=2');
      assert.deepEqual(answer.bytes, [...bytes('{"note":"café sealed:cart reçue"}')], `cut at ${cuts.join(', ')}`);
    }
    const quoted = await page(sent(latin1('T-real-cart-token ü'), 'text/plain;charset="windows-1252"'));
    assert.deepEqual([quoted.type, quoted.bytes], ['text/plain; charset=utf-8', [...bytes('sealed:cart ü')]]);
  });

  it('holding no token, reaches the page byte for byte in its own charset', async () => {
    const body = latin1('{"note":"café reçue, ÿþ"}');
    const answer = await page(sent(body, 'application/json; charset=iso-8859-1', [3]));
    assert.deepEqual([answer.type, answer.bytes], ['application/json; charset=iso-8859-1', [...body]]);
  });

  it('opening with a UTF-8 byte order mark, is read as UTF-8 as the mark says, and keeps its type', async () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('café T-real-cart-token')]);
    const answer = await page(sent(body, 'text/plain; charset=iso-8859-1'));
    assert.deepEqual([answer.type, answer.bytes], ['text/plain; charset=iso-8859-1', [0xef, 0xbb, 0xbf, ...bytes('café sealed:cart')]]);
  });

  it('longer than the bound, streams and is rewritten in its own charset', async () => {
    const body = latin1(`${'é'.repeat(MAX_HELD)} T-real-cart-token`);
    const answer = await page(sent(body, 'text/plain; charset=iso-8859-1', [MAX_HELD / 2, MAX_HELD + 3]));
    assert.equal(answer.type, 'text/plain; charset=iso-8859-1');
    assert.deepEqual(answer.bytes.slice(-12), [...latin1(' sealed:cart')]);
    assert.equal(answer.bytes.length, MAX_HELD + 12);
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

  it('finds an escaped token in a header whatever a stray quote in another', () => {
    const entries: [string, string][] = [['a-note', 'a 5" screen'], ['x-debug', `{"cart":"${REFRESH.replace('/', '\\/')}"}`], ['x-more', 'one "more']];
    assert.deepEqual(secretHeaders(entries, known), ['x-debug']);
  });

  it('finds an escaped token in a header after a stray quote in the same value', () => {
    const entries: [string, string][] = [['x-debug', `a 12" pizza {"cart":"${REFRESH.replace('/', '\\/')}"}`], ['x-note', 'a 12" pizza {"n":"\\/"}']];
    assert.deepEqual(secretHeaders(entries, known), ['x-debug']);
  });
});
