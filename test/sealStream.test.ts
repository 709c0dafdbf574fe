// Sealing as the body streams: the seal scanner fed in parts (a token cut at every place, in every
// spelling; tokens opening with `/`, `+` and `\`; what is held back and what is released at once;
// the bound on what is held, against a literal that never closes) and the seal stream of bytes
// (sealStream.ts: charsets, byte order marks, binary bodies, refusals).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_HELD, SEALED_ORDER, SealScanner, sealText } from '../src/sw/sealScanner.js';
import { TEXT_UNITS, type SealPlan } from '../src/sw/sealSpellings.js';
import { charsetOf, mayOpenByteOrderMark, UTF8_UNITS } from '../src/sw/sealStream.js';
import { sealedBody, sealedWholeParts } from '../src/sw/sealStream.js';
import { everyCut, leaked, randomCuts, streamedBytes, streamText } from './sealStreaming.js';

// Tokens of standard base64 and the like: their first characters are those an escaper or an
// encoder changes (`/` is `\/` in PHP's JSON, `+` and `/` are `%2B` and `%2F` in a URL, `\` is `\\`).
const SLASH = '/Nob+ooTrG9x=Q';
const PLUS = '+aZ/b9=Kq7Lm';
const BACKSLASH = '\\q/T0k+en=Zz';
const A_SLASH = 'a/NobooTrGpX7mR2c9LkQ==';
const TOKENS = [SLASH, PLUS, BACKSLASH, A_SLASH] as const;
const plan: SealPlan = {
  values: [
    [A_SLASH, 'sealed:cart'],
    [SLASH, 'sealed:access'],
    [PLUS, 'sealed:refresh'],
    [BACKSLASH, 'sealed:order'],
  ],
  fields: { token: SEALED_ORDER, access_token: 'sealed:access' },
};

/** As a JSON string's content: `JSON.stringify`'s spelling, PHP's (`\/`), or every character `\u`-escaped (in either hex case). */
const json = (value: string) => JSON.stringify(value).slice(1, -1);
const php = (value: string) => json(value).replace(/\//g, '\\/');
const escaped = (value: string, upper = false) => [...value].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).map((e) => (upper ? e.toUpperCase().replace('\\U', '\\u') : e)).join('');
/** URL encodings a server may use: encodeURIComponent's, strict RFC 3986, a form's, Python's quote, lower-case hex. */
const urlEncodings = (value: string) => {
  const encoded = encodeURIComponent(value);
  return [encoded, encoded.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`), new URLSearchParams({ v: value }).toString().slice(2), encoded.replace(/%2F/g, '/'), encoded.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())];
};

/** Bodies that hold `token` in every spelling the scanner knows, in JSON and out of it. */
function spellings(token: string): string[] {
  return [
    `{"data":{"attributes":{"token":"${json(token)}"}}}`,
    `{"access_token":"${php(token)}","token_type":"Bearer"}`,
    `{"x":"${escaped(token)}","y":"${escaped(token, true)}"}`,
    `{"\\u0074oken":"${php(token)}"}`,
    `{"error":"The order ${php(token)} could not be found; try again with another order"}`,
    `{"error":"The order ${json(token)} could not be found; try again with another order"}`,
    `{"m":"${json(token.slice(0, 3))}\\u00${token.charCodeAt(3).toString(16)}${json(token.slice(4))} 😀"}`,
    ...urlEncodings(token).map((spelled) => `{"self":"https:\\/\\/shop.example\\/cart?t=${spelled.replace(/\//g, '\\/')}&x=1"}`),
    ...urlEncodings(token).map((spelled) => `<a href="/cart?t=${spelled}">retry</a> ${token}\n`),
    `data: {"token":"${json(token)}","n":1}\n\n`,
  ];
}

describe('the seal scanner, streamed', () => {
  it('seals a token cut at every place, in every spelling, as it seals the whole body, and never lets one out', () => {
    for (const token of TOKENS) {
      for (const text of spellings(token)) {
        const whole = sealText(text, plan);
        assert.notEqual(whole, null, text);
        assert.deepEqual(leaked(whole!, [token]), [], text);
        for (const cuts of everyCut(text.length)) assert.equal(streamText(text, plan, cuts).text, whole, `${text} cut at ${cuts.join(',')}`);
      }
    }
  });

  it("seals a token opening with '/' inside a long \\/-escaped message (the review's first finding), however it is cut", () => {
    const text = `{"error":"The order ${php(A_SLASH)} could not be found"}`;
    assert.equal(sealText(text, plan), '{"error":"The order sealed:cart could not be found"}');
    for (const cuts of everyCut(text.length)) assert.equal(streamText(text, plan, cuts).text, '{"error":"The order sealed:cart could not be found"}');
  });

  it('seals the field rule across parts: a key, its colon and its value in separate parts', () => {
    const text = '{"token"  :  "other-order-token", "note": "token", "access_token":"\\u0078", "x": ["token"::"y", "token" "z"]}';
    const expected = `{"token"  :  "${SEALED_ORDER}", "note": "token", "access_token":"sealed:access", "x": ["token"::"y", "token" "z"]}`;
    assert.equal(sealText(text, plan), expected);
    for (const cuts of everyCut(text.length)) assert.equal(streamText(text, plan, cuts).text, expected);
  });

  it('seals a known value inside a token field that opens with "sealed:", however it is cut', () => {
    const text = `{"token":"sealed:cart,${php(A_SLASH)} ${json(BACKSLASH)}"}`;
    for (const cuts of everyCut(text.length)) assert.equal(streamText(text, plan, cuts).text, '{"token":"sealed:cart,sealed:cart sealed:order"}', `cut at ${cuts.join(',')}`);
  });

  it('releases an event at once when nothing in it may still hold a token', () => {
    const event = `event: cart\ndata: {"token":"${json(A_SLASH)}","n":1}\n\n`;
    const scanner = new SealScanner(plan);
    const step = scanner.push(event);
    assert.equal(step.to, event.length, 'the whole event is released with its part');
    assert.deepEqual(step.edits.map((edit) => edit.text), ['sealed:cart']);
  });

  it('releases an event with a stray quote at once, and seals the strings after it however the stream is cut', () => {
    const event = 'data: the 5" screen is back\n\n';
    assert.equal(new SealScanner(plan).push(event).to, event.length, 'a line feed ends what the quote opened');
    const body = `${event}data: {"self":"https:\\/\\/shop\\/cart?t=${php(SLASH)}","token":"${php(PLUS)}"}\n\n`;
    const expected = `${event}data: {"self":"https:\\/\\/shop\\/cart?t=sealed:access","token":"sealed:refresh"}\n\n`;
    for (const cuts of everyCut(body.length)) assert.equal(streamText(body, plan, cuts).text, expected, `cut at ${cuts.join(',')}`);
  });

  it('holds back the literal being read, and a tail that may start a spelling, nothing more', () => {
    const held = (text: string) => text.length - new SealScanner(plan).push(text).to;
    assert.equal(held('{"n":1,"note":"for a/Nob'), '"for a/Nob'.length, 'the open literal, from its quote');
    assert.equal(held('{"n":1} Bearer a/Nob'), 'a/Nob'.length, 'outside a literal: the start of a spelling');
    assert.equal(held('{"n":1} Bearer a%2FN'), 'a%2FN'.length, 'an URL-encoded start');
    assert.equal(held('{"n":1} Bearer xyz'), 0, 'text that starts no spelling');
    assert.equal(held('{"n":1} Bearer a'), 1, 'one character');
    assert.equal(held('{"token":'), 0, 'a field name and its colon: the value is sealed when it comes');
    assert.equal(held('{"token"'), 0);
  });

  it('never releases more than MAX_HELD of a literal that never closes, and lets no token out of it', () => {
    // Tokens in every spelling, spread so that some straddle the cuts the bound makes.
    const piece = (i: number) => `${'lorem ipsum \\/ dolor '.repeat(Math.floor(Math.random() * 0) + 1500 + (i % 7))}${[php(A_SLASH), escaped(SLASH), json(PLUS), encodeURIComponent(BACKSLASH), escaped(A_SLASH, true)][i % 5]} `;
    let text = '{"note":"';
    for (let i = 0; text.length < 3 * MAX_HELD; i++) text += piece(i);
    const cuts = Array.from({ length: Math.floor(text.length / 65_536) }, (_, i) => (i + 1) * 65_536);
    const streamed = streamText(text, plan, cuts.slice(0, -1));
    // Until the end, what is held stays within the bound and a part.
    let pushed = 0;
    streamed.released.slice(0, -1).forEach((released, i) => {
      pushed = cuts[i] ?? text.length;
      assert.ok(pushed - released <= MAX_HELD + 65_536, `${pushed - released} units held after ${pushed}`);
    });
    assert.ok(streamed.released[Math.floor(cuts.length / 2)]! > 0, 'parts of it reached the page before its end');
    assert.deepEqual(leaked(streamed.text, TOKENS), []);
    assert.equal(streamed.text, text.replaceAll(php(A_SLASH), 'sealed:cart').replaceAll(escaped(SLASH), 'sealed:access').replaceAll(json(PLUS), 'sealed:refresh').replaceAll(encodeURIComponent(BACKSLASH), 'sealed:order').replaceAll(escaped(A_SLASH, true), 'sealed:cart'));
    // Every part on its own too: no token whole in any of them.
    for (const part of streamed.parts) assert.deepEqual(leaked(part, TOKENS), []);
  });

  it("turns a field's value past MAX_HELD into its placeholder at once and drops the rest, escaped quotes and all", () => {
    const filler = 'x\\"y\\\\'.repeat(Math.ceil((2 * MAX_HELD) / 7));
    const text = `{"token":"${filler}","next":"${json(PLUS)}"}`;
    const cutAt = [65_536, text.indexOf('\\', MAX_HELD + 10) + 1];
    const streamed = streamText(text, plan, [...Array.from({ length: 40 }, (_, i) => (i + 1) * 65_536).filter((cut) => cut < cutAt[1]!), cutAt[1]!]);
    assert.equal(streamed.text, `{"token":"${SEALED_ORDER}","next":"sealed:refresh"}`);
    assert.ok(streamed.released.every((released, i) => i === streamed.released.length - 1 || (Math.min(((i + 1) * 65_536), text.length) - released) <= MAX_HELD + 65_536));
  });

  it("holds no more than MAX_HELD of a long run of backslashes, in a field's value (which becomes its placeholder), another string or outside one", () => {
    const run = '\\'.repeat(48 * 65_536);
    const cuts = Array.from({ length: 48 }, (_, i) => 10 + i * 65_536);
    for (const [text, expected] of [
      [`{"token":"${run}"}`, `{"token":"${SEALED_ORDER}"}`],
      [`{"token":"${run}\\"more"}`, `{"token":"${SEALED_ORDER}"}`],
      [`{"n":"${run}"}`, null],
      [`12" pizza${run}`, null],
    ] as const) {
      const streamed = streamText(text, plan, cuts);
      streamed.released.slice(0, -1).forEach((released, i) => assert.ok((cuts[i] ?? text.length) - released <= MAX_HELD, `${(cuts[i] ?? text.length) - released} units held`));
      assert.equal(streamed.text, expected ?? text);
    }
  });

  it('seals a spelling that stands as sent in an escaped string, though the decoded text hides it (`\\t` before `tok…`)', () => {
    const tok: SealPlan = { values: [['tok+en=Zz9', 'sealed:cart']], fields: {} };
    const text = '{"m":"x\\tok+en=Zz9 y","n":"\\u0074ok+en=Zz9"}';
    assert.equal(sealText(text, tok), '{"m":"x\\sealed:cart y","n":"sealed:cart"}');
    for (const cuts of everyCut(text.length)) assert.equal(streamText(text, tok, cuts).text, '{"m":"x\\sealed:cart y","n":"sealed:cart"}');
  });

  it('cuts a literal past MAX_HELD before a known value that runs into the tail it holds, so that value is sealed whole', () => {
    // `zzzzabcd` is whole at the cut; `abcd12` may still become `abcd1234`: the cut goes before both.
    const overlapping: SealPlan = { values: [['abcd1234', 'sealed:cart'], ['zzzzabcd', 'sealed:access']], fields: {} };
    const text = `{"n":"${'x'.repeat(MAX_HELD)} zzzzabcd1234 more"}`;
    const cut = text.indexOf('abcd12') + 6;
    assert.equal(streamText(text, overlapping, [cut]).text, sealText(text, overlapping));
    assert.ok(sealText(text, overlapping)!.endsWith(' sealed:access1234 more"}'));
  });

  // A string streamed in small parts was copied whole at every part (a 1 MB one in 32-byte parts took
  // 8 s to scan, 10 s as bytes): the scanner now appends a part that cannot close it unread.
  it('reads a 1 MB string streamed in 16-unit parts in linear time, and seals the token after it', () => {
    const text = `{"note":"${'lorem \\/ ipsum '.repeat(62_500)}","token":"${php(A_SLASH)}","m":"${'x'.repeat(500_000)}"}`;
    const cuts = Array.from({ length: Math.floor((text.length - 1) / 16) }, (_, i) => (i + 1) * 16);
    const start = performance.now();
    const streamed = streamText(text, plan, cuts);
    const ms = performance.now() - start;
    assert.equal(streamed.text, sealText(text, plan));
    assert.ok(streamed.text.includes('"token":"sealed:cart"'));
    // Linear, about 100 ms; copied at every part, 15 s or more. The bound sits far from both.
    assert.ok(ms < 5_000, `${text.length} units in 16-unit parts took ${ms.toFixed(0)} ms`);
  });

  it('holds a string streamed in small parts within MAX_HELD as it holds one that comes whole, and seals what straddles the cut', () => {
    const text = `{"note":"${'y'.repeat(MAX_HELD - 3)}${php(A_SLASH)} and ${json(SLASH)} ${'z'.repeat(MAX_HELD / 2)}"}`;
    const cuts = Array.from({ length: Math.floor((text.length - 1) / 1000) }, (_, i) => (i + 1) * 1000);
    const streamed = streamText(text, plan, cuts);
    assert.equal(streamed.text, sealText(text, plan));
    assert.deepEqual(leaked(streamed.text, TOKENS), []);
    streamed.released.slice(0, -1).forEach((released, i) => assert.ok((cuts[i] ?? text.length) - released <= MAX_HELD, `${(cuts[i] ?? text.length) - released} units held`));
    assert.ok(streamed.released[Math.floor(cuts.length / 2)]! > 0, 'parts of it went out before its end');
  });

  it('seals a value cut off at the end of a body, in a literal, outside one, and in an escape', () => {
    for (const [text, expected] of [
      [`{"a":"${A_SLASH.slice(0, 10)}`, '{"a":"sealed:cart'],
      [`Bearer ${A_SLASH.slice(0, 10)}`, 'Bearer sealed:cart'],
      [`{"a":"${escaped(A_SLASH.slice(0, 10))}\\u00`, '{"a":"sealed:cart\\u00'],
      [`{"token":"${php(A_SLASH)}\\`, `{"token":"sealed:cart\\`],
    ] as const) {
      for (const cuts of everyCut(text.length)) assert.equal(streamText(text, plan, cuts).text, expected, text);
    }
  });
});

describe('the seal stream of bytes', () => {
  const utf8 = (text: string) => new TextEncoder().encode(text);
  const latin1 = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0));
  const utf16le = (text: string) => new Uint8Array(Uint16Array.from(text, (char) => char.charCodeAt(0)).buffer);
  const utf16be = (text: string) => Uint8Array.from([...utf16le(text)].map((_, i, bytes) => bytes[i ^ 1]!));
  const random = (seed: number) => () => ((seed = (seed * 48271) % 2147483647) - 1) / 2147483646;
  const through = (bytes: Uint8Array, type: string | null, cuts: readonly number[] = []) => streamedBytes(bytes, plan, type, cuts);
  const refused = (bytes: Uint8Array, type: string | null) => assert.rejects(through(bytes, type), (error: Error) => error.name === 'TypeError' && /refused/.test(error.message));

  it('reads the charset a Content-Type declares, UTF-8 when none or unknown', () => {
    assert.equal(charsetOf(null), 'utf-8');
    assert.equal(charsetOf('application/json'), 'utf-8');
    assert.equal(charsetOf('text/plain; charset=ISO-8859-1'), 'windows-1252');
    assert.equal(charsetOf('application/json; charset="utf-16le"'), 'utf-16le');
    assert.equal(charsetOf('text/html;charset=Shift_JIS;foo=bar'), 'shift_jis');
    assert.equal(charsetOf('text/plain; charset=no-such-charset'), 'utf-8');
    assert.equal(charsetOf('application/json; charset = utf-16le'), 'utf-8', 'no charset to a browser');
    assert.equal(charsetOf('application/json; charset=utf-8, text/plain; charset=utf-16le'), 'utf-16le');
  });

  it('passes a body in which nothing is replaced byte for byte, in any charset, however it is cut', async () => {
    const bodies: [Uint8Array, string | null][] = [
      [latin1('{"name":"café","note":"naïve \\u00e9"}'), 'application/json; charset=iso-8859-1'],
      [Uint8Array.from([0x7b, 0x22, 0xc7, 0xe0, 0xea, 0xe0, 0xe7, 0x22, 0x7d]), 'text/plain; charset=windows-1251'],
      [utf8('{"name":"Café 😀 \\/ \\u00e9"}'), 'application/json'],
      [Uint8Array.from([0xff, 0xc3, 0x22, 0x5c, 0xe9, 0x80, 0x22, 0x20, 0xed, 0xa0, 0x80]), 'text/plain; charset=utf-8'],
      [utf16le('{"name":"café"}'), 'application/json; charset=utf-16le'],
      [utf16be('{"name":"café"}'), 'application/json; charset=utf-16be'],
      [Uint8Array.from([0xff, 0xfe, ...utf16le('{"a":"b"}')]), 'application/json'],
      [Uint8Array.from([0x82, 0xa0, 0x22, 0x5c, 0x22]), 'text/plain; charset=shift_jis'],
      [new Uint8Array(0), 'application/json'],
      [Uint8Array.from([0xef, 0xbb]), null],
    ];
    for (const [bytes, type] of bodies) {
      for (const cuts of bytes.length > 1 ? everyCut(bytes.length) : [[]]) assert.deepEqual(await through(bytes, type, cuts), bytes, `${type}: ${bytes.join(',')} cut at ${cuts.join(',')}`);
    }
  });

  it('passes binary bodies (an image, a PDF) unchanged, and replaces only a token written into one', async () => {
    for (const [seed, size] of [[1, 256], [2, 4096], [3, 70_000]] as const) {
      const next = random(seed);
      const bytes = Uint8Array.from({ length: size }, () => Math.floor(next() * 256));
      for (const type of ['image/png', 'application/pdf', null]) assert.deepEqual(await through(bytes, type, randomCuts(next, size)), bytes, `${size} random bytes as ${type}`);
      const pdf = new Uint8Array([...utf8('%PDF-1.4\n'), ...bytes]);
      assert.deepEqual(await through(pdf, 'application/pdf', randomCuts(next, pdf.length)), pdf);
      // The token, with a space on either side, at three places.
      const marked = new Uint8Array([...bytes.subarray(0, size / 4), ...utf8(` ${PLUS} `), ...bytes.subarray(size / 4, size / 2), ...utf8(` ${A_SLASH} `), ...bytes.subarray(size / 2), ...utf8(` ${SLASH} `)]);
      const expected = new Uint8Array([...bytes.subarray(0, size / 4), ...utf8(' sealed:refresh '), ...bytes.subarray(size / 4, size / 2), ...utf8(' sealed:cart '), ...bytes.subarray(size / 2), ...utf8(' sealed:access ')]);
      assert.deepEqual(await through(marked, 'application/octet-stream', randomCuts(next, marked.length)), expected);
    }
  });

  it('streams a Latin-1 or windows-1251 body (one longer than a response holds) in its own charset: only the token replaced, every other byte as sent', async () => {
    const body = latin1(`{"note":"café ${php(A_SLASH)} naïve","token":"${json(PLUS)}"}`);
    const expected = latin1('{"note":"café sealed:cart naïve","token":"sealed:refresh"}');
    for (const cuts of everyCut(body.length)) assert.deepEqual(await through(body, 'application/json; charset=ISO-8859-1', cuts), expected);
    const cyrillic = new Uint8Array([0xc7, 0xe0, 0xea, 0xe0, 0xe7, 0x20, ...utf8(A_SLASH), 0x20, 0xff]);
    assert.deepEqual(await through(cyrillic, 'text/plain; charset=windows-1251', [3, 9]), new Uint8Array([0xc7, 0xe0, 0xea, 0xe0, 0xe7, 0x20, ...utf8('sealed:cart'), 0x20, 0xff]));
  });

  it('seals a UTF-8 body byte by byte: invalid sequences and characters beside a token stay as sent', async () => {
    const body = new Uint8Array([...utf8('{"m":"Café 😀 \\/ '), 0xff, ...utf8(`${escaped(SLASH)}`), 0xc3, ...utf8(' ü"}')]);
    const expected = new Uint8Array([...utf8('{"m":"Café 😀 \\/ '), 0xff, ...utf8('sealed:access'), 0xc3, ...utf8(' ü"}')]);
    for (const cuts of everyCut(body.length)) assert.deepEqual(await through(body, 'application/json; charset=utf-8', cuts), expected);
    // A non-ASCII token, raw and escaped.
    const wide: SealPlan = { values: [['tök/én-ü', 'sealed:cart']], fields: {} };
    const text = '{"a":"tök\\/én-ü","b":"t\\u00f6k/\\u00e9n-\\u00fc","c":"x tök/én-ü y"}';
    assert.deepEqual(new TextDecoder().decode(await streamedBytes(utf8(text), wide, null, [8, 9, 30])), '{"a":"sealed:cart","b":"sealed:cart","c":"x sealed:cart y"}');
  });

  it('refuses a body in a charset it cannot rewrite that holds a token, and one over MAX_HELD', async () => {
    await refused(utf16le(`{"token":"${A_SLASH}"}`), 'application/json; charset=utf-16le');
    await refused(utf16be(`{"x":"${json(PLUS)}"}`), 'application/json; charset=utf-16be');
    await refused(new Uint8Array([0xff, 0xfe, ...utf16le(`{"x":"${json(PLUS)}"}`)]), 'application/json');
    await refused(new Uint8Array([0xfe, 0xff, ...utf16be(`Bearer ${SLASH}`)]), 'text/plain; charset=iso-8859-1');
    await refused(new Uint8Array([0x82, 0xa0, ...utf8(` ${SLASH}`)]), 'text/plain; charset=shift_jis');
    await refused(new Uint8Array(MAX_HELD + 10), 'application/json; charset=utf-16le');
  });

  it("refuses a body whose token one of the page's readings holds: fetch's text() reads UTF-8, XHR the charset a browser reads in the Content-Type", async () => {
    const doc = `{"data":{"attributes":{"token":"${A_SLASH}"}}}`;
    // A UTF-8 body labelled UTF-16: read as UTF-16 it holds nothing, but res.json() reads the token.
    for (const type of ['application/json; charset=utf-16', 'application/json; charset=UTF-16LE', 'text/plain; charset=shift_jis']) await refused(utf8(doc), type);
    // White space around `=` makes no charset parameter for a browser: the body is UTF-8, and sealed as such.
    assert.deepEqual(await through(utf8(doc), 'application/json; charset = utf-16le', [1, 40]), utf8('{"data":{"attributes":{"token":"sealed:cart"}}}'));
    // A UTF-16 body that XHR decodes as UTF-16: the last type of a repeated header, a charset after a quoted `;`, an escaped quoted label.
    for (const type of ['application/json; charset=utf-8, text/plain; charset=utf-16le', 'application/json; foo="; charset=x"; charset=utf-16le', 'application/json; charset="utf\\-16le"']) await refused(utf16le(doc), type);
    // A Shift_JIS lead byte takes a token's first character into a character of its own; UTF-8 reads it.
    for (const token of [A_SLASH, BACKSLASH]) await refused(new Uint8Array([0x81, ...utf8(token), 0x20]), 'text/plain; charset=shift_jis');
    // A single-byte reading spells a value past ASCII apart from the UTF-8 one: the body is refused, not passed.
    const wide: SealPlan = { values: [['tök/én-ü', 'sealed:cart']], fields: {} };
    await assert.rejects(streamedBytes(utf8('{"a":"tök/én-ü"}'), wide, 'application/json; charset=iso-8859-1', [3]), /refused/);
    assert.deepEqual(await streamedBytes(latin1('{"a":"café"}'), wide, 'application/json; charset=iso-8859-1', [3]), latin1('{"a":"café"}'));
  });

  it('reads a 1 MB string streamed in 16-byte parts in linear time', async () => {
    const text = `{"note":"${'caf\u00e9 \\/ ok '.repeat(62_500)}","token":"${php(A_SLASH)}"}`;
    const bytes = new TextEncoder().encode(text);
    const cuts = Array.from({ length: Math.floor((bytes.length - 1) / 16) }, (_, i) => (i + 1) * 16);
    const start = performance.now();
    const out = new TextDecoder().decode(await streamedBytes(bytes, plan, 'application/json', cuts));
    const ms = performance.now() - start;
    assert.equal(out, sealText(text, plan));
    // Linear, about 100 ms; the held bytes joined at every part, 20 s or more.
    assert.ok(ms < 5_000, `${bytes.length} bytes in 16-byte parts took ${ms.toFixed(0)} ms`);
  });

  it('gives the same bytes whether none, some or all of the parts were read ahead', async () => {
    const body = utf8(`{"a":"${php(A_SLASH)}","token":"other","b":"${escaped(PLUS)}"} Bearer ${SLASH}`);
    const cuts = [5, 11, 30, 31, 60];
    const expected = utf8(`{"a":"sealed:cart","token":"${SEALED_ORDER}","b":"sealed:refresh"} Bearer sealed:access`);
    for (let head = 0; head <= cuts.length + 1; head++) assert.deepEqual(await streamedBytes(body, plan, 'application/json', cuts, head), expected, `${head} parts ahead`);
  });

  it('stops the network body when it refuses one: at once when it was read whole ahead, past MAX_HELD when it never ends', async () => {
    for (const whole of [true, false]) {
      let cancelled: unknown;
      // Longer than MAX_HELD, so that a stream that went on past the bound fails the test, not hangs it.
      let sent = 0;
      const network = new ReadableStream<Uint8Array>({
        pull: (controller) => (sent++ > (2.5 * MAX_HELD) / 64 ? controller.close() : controller.enqueue(utf16le(`{"x":"${A_SLASH}"} `))),
        cancel: (reason) => void (cancelled = reason),
      });
      const reader = network.getReader();
      if (whole) {
        // Refused before the page gets a response: its fetch rejects.
        const ahead = (await reader.read()).value!;
        assert.throws(() => sealedWholeParts(reader, [ahead], plan, 'application/json; charset=utf-16le'), /refused/);
      } else {
        await assert.rejects(new Response(sealedBody(reader, [], plan, 'application/json; charset=utf-16le')).arrayBuffer(), /refused/);
      }
      assert.match(String(cancelled), /refused/, whole ? 'whole' : 'endless');
    }
  });

  it('waits for a third byte only while the first two may open a byte order mark', () => {
    const opens = (...bytes: number[]) => mayOpenByteOrderMark(Uint8Array.from(bytes));
    for (const start of [[], [0xef], [0xef, 0xbb], [0xfe], [0xff]]) assert.equal(opens(...start), true, start.join(','));
    for (const start of [[0x3a], [0x7b, 0x22], [0xef, 0x22], [0xfe, 0xff], [0xff, 0xfe], [0xfe, 0x00], [0xef, 0xbb, 0xbf], [0xef, 0xbb, 0x22]]) assert.equal(opens(...start), false, start.join(','));
  });

  it("releases a streamed body's first byte or two at once where they open no byte order mark", async () => {
    for (const [first, type] of [[':\n', 'text/event-stream'], ['{', 'application/json'], ['\xfe', 'text/plain; charset=iso-8859-1']] as const) {
      let network!: ReadableStreamDefaultController<Uint8Array>;
      const reader = new ReadableStream<Uint8Array>({ start: (controller) => void (network = controller) }).getReader();
      network.enqueue(latin1(first));
      const page = sealedBody(reader, [], plan, type).getReader();
      const read = await Promise.race([page.read(), new Promise((resolve) => setTimeout(() => resolve('held'), 100))]);
      network.close();
      assert.deepEqual(read, first === '\xfe' ? 'held' : { done: false, value: latin1(first) }, `${JSON.stringify(first)} as ${type}`);
    }
  });

  it('reads a body by its UTF-8 byte order mark whatever the label says', async () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(`{"a":"${json(SLASH)}"}`)]);
    assert.deepEqual(await through(body, 'application/json; charset=utf-16le', [1, 2, 4]), new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('{"a":"sealed:access"}')]));
  });

  it('gives a UTF-8 body units one per byte, and back', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const units = new TextDecoder('windows-1252').decode(bytes);
    assert.equal(units.length, 256);
    assert.equal(UTF8_UNITS.text(units.slice(0x80)), new TextDecoder().decode(bytes.subarray(0x80)));
    assert.equal(UTF8_UNITS.of('é'), new TextDecoder('windows-1252').decode(new TextEncoder().encode('é')));
    assert.equal(TEXT_UNITS.of('é'), 'é');
  });
});
