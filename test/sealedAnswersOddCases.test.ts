// Odd answers a server may send, sealed: an event stream declaring a single-byte charset, a token in a
// Content-Type or a reason phrase, a cross-origin compressed answer, a UTF-16 body holding a token,
// a non-ASCII token in a Latin-1 body, a refresh token spelled by Python's quote (docs/security.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { readAhead, readAheadLimit, sealedResponse } from '../src/sw/sealedResponse.js';
import { sealText } from '../src/sw/sealScanner.js';
import { routedWorker, BASE } from './workerHarness.js';

const REAL_CART = 'cT/9+"q\\wZ-8kk';
const REAL_ACCESS = 'acc+/9Zq"x\\Tm';
const bytes = (text: string) => new TextEncoder().encode(text);
const latin1 = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0));
const plan = { values: [[REAL_CART, 'sealed:cart']] as [string, string][], fields: { token: 'sealed:order' } };

const GUEST: Credentials = { cart: { token: REAL_CART, number: 'R7', id: 'cart_7' }, session: null, backoff: null };

/** A body the test writes to part by part, as a server streams it. */
function pushed() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return { body, write: (chunk: Uint8Array) => controller.enqueue(chunk), close: () => controller.close() };
}

const soon = <T>(promise: Promise<T>, ms = 200): Promise<T | 'pending'> => Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

describe('sealed answers: odd cases', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('an event stream whose Content-Type names a single-byte charset reaches the page as it arrives', async () => {
    const stream = pushed();
    const w = routedWorker({ preset: 'spree' }, GUEST, {
      'GET /api/v2/storefront/cart': () => new Response(stream.body, { headers: { 'Content-Type': 'text/event-stream; charset=ISO-8859-1' } }),
    });
    const answer = w.through(new Request(`${BASE}/api/v2/storefront/cart`));
    stream.write(bytes('data: {"state":"cart"}\n\n'));
    const first = await soon(answer);
    stream.close();
    await answer;
    assert.notEqual(first, 'pending', 'the first event is held back: the page gets no answer until the stream ends or 1 MiB arrives');
  });

  it('a header holding a token is dropped even when the body is re-encoded in UTF-8', async () => {
    const type = `text/plain; charset=iso-8859-1; x-cart=${encodeURIComponent(REAL_CART)}`;
    const response = new Response(latin1(`caf\xe9 ${REAL_CART}`), { headers: { 'Content-Type': type } });
    const answer = sealedResponse(response, plan, await readAhead(response, readAheadLimit(type, null)));
    assert.equal(await answer.text(), 'café sealed:cart');
    const echoed = answer.headers.get('Content-Type') ?? '';
    assert.ok(!echoed.includes(encodeURIComponent(REAL_CART)), `the page reads Content-Type: ${echoed}`);
  });

  it('the status text is no way round sealing', async () => {
    const response = new Response('{"error":"gone"}', { status: 404, statusText: `No order for ${REAL_CART}`, headers: { 'Content-Type': 'application/json' } });
    const answer = sealedResponse(response, plan, await readAhead(response, null));
    assert.ok(!answer.statusText.includes(REAL_CART), `the page reads statusText: ${answer.statusText}`);
  });

  it('a cross-origin compressed answer (Content-Length the compressed length, Content-Encoding not exposed) reaches the page whole', async () => {
    // What a cors response shows the worker: Content-Length is CORS-safelisted, Content-Encoding is not,
    // and the body is already decoded, in the parts the browser hands on.
    const decoded = ['{"data":{"note":"a', 'nd the rest of the decoded body"}}'];
    const compressedLength = String(bytes(decoded[0]!).length);
    let i = 0;
    const body = new ReadableStream<Uint8Array>({ pull: (c) => (i < decoded.length ? c.enqueue(bytes(decoded[i++]!)) : c.close()) });
    const response = new Response(body, { headers: { 'Content-Type': 'application/json', 'Content-Length': compressedLength } });
    Object.defineProperty(response, 'type', { value: 'cors' });
    const answer = sealedResponse(response, plan, await readAhead(response, null));
    assert.equal(await answer.text(), decoded.join(''));
  });

  it('a UTF-16 body streamed without a length, holding a token, makes the page\'s fetch reject', async () => {
    const utf16 = (text: string) => new Uint8Array(Uint16Array.from(text, (c) => c.charCodeAt(0)).buffer);
    const stream = pushed();
    const w = routedWorker({ preset: 'spree' }, GUEST, {
      'GET /api/v2/storefront/cart': () => new Response(stream.body, { headers: { 'Content-Type': 'application/json; charset=utf-16le' } }),
    });
    const answer = w.through(new Request(`${BASE}/api/v2/storefront/cart`));
    stream.write(utf16('{"data":{"attributes":{"token":"'));
    stream.write(utf16(`${REAL_CART}"}}}`));
    stream.close();
    const outcome = await answer.then(
      (response) => `resolved ${response?.status}`,
      () => 'rejected',
    );
    assert.equal(outcome, 'rejected');
  });

  it('a body of known length named UTF-16 only by its byte order mark, holding a token in its second part, makes the page\'s fetch reject', async () => {
    // The BOM decides the reading, as it does for XHR's responseText; the Content-Type names no charset.
    const utf16 = (text: string) => new Uint8Array(Uint16Array.from(text, (c) => c.charCodeAt(0)).buffer);
    const first = new Uint8Array([0xff, 0xfe, ...utf16('{"data":{"attributes":{"token":"')]);
    const second = utf16(`${REAL_CART}"}}}`);
    const stream = pushed();
    const w = routedWorker({ preset: 'spree' }, GUEST, {
      'GET /api/v2/storefront/cart': () => new Response(stream.body, { headers: { 'Content-Type': 'application/json', 'Content-Length': String(first.length + second.length) } }),
    });
    const answer = w.through(new Request(`${BASE}/api/v2/storefront/cart`));
    stream.write(first);
    await new Promise((resolve) => setTimeout(resolve, 20));
    stream.write(second);
    stream.close();
    const outcome = await answer.then(
      (response) => `resolved ${response?.status}`,
      () => 'rejected',
    );
    assert.equal(outcome, 'rejected');
  });

  it('a Latin-1 body whose UTF-8 reading holds a non-ASCII token is refused, as it is when nothing else was replaced (docs/security.md, "Charsets")', async () => {
    const accent = 'tök/én+9"Zq';
    const both = { values: [[REAL_ACCESS, 'sealed:access'], [accent, 'sealed:refresh']] as [string, string][], fields: {} };
    const type = 'text/plain; charset=iso-8859-1';
    // The server wrote the non-ASCII token in UTF-8 into a body it declares Latin-1.
    const body = (extra: string) => {
      const raw = new Uint8Array([...latin1(`error ${extra}: `), ...bytes(accent)]);
      return new Response(raw, { headers: { 'Content-Type': type } });
    };
    const alone = body('none');
    await assert.rejects(async () => sealedResponse(alone, both, await readAhead(alone, readAheadLimit(type, null))), 'alone, it is refused');
    const beside = body(REAL_ACCESS);
    const outcome = await (async () => {
      try {
        const answer = sealedResponse(beside, both, await readAhead(beside, readAheadLimit(type, null)));
        const text = await answer.text();
        // The page's text is the Latin-1 reading, re-encoded: undone, it is the token.
        const undone = new TextDecoder().decode(latin1(text));
        return undone.includes(accent) ? `token recoverable from: ${text}` : 'sealed';
      } catch {
        return 'refused';
      }
    })();
    assert.equal(outcome, 'refused');
  });

  it("a refresh token spelled by Python's quote is sealed, whatever VSCHARs it holds (docs/security.md: \"Python's `quote`\")", () => {
    // RFC 6749: a refresh token is 1*VSCHAR. urllib.parse.quote('rF/9*Zq+x') == 'rF/9%2AZq%2Bx' (`/` kept, `*` encoded).
    const refresh = 'rF/9*Zq+x';
    const refreshPlan = { values: [[refresh, 'sealed:refresh']] as [string, string][], fields: {} };
    assert.equal(sealText('{"next":"https://shop.example/?r=rF/9%2AZq%2Bx"}', refreshPlan), '{"next":"https://shop.example/?r=sealed:refresh"}');
  });
});
