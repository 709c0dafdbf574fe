// A body the worker reads as UTF-16 (its first bytes `FF FE` or `FE FF`, or a declared
// `charset=utf-16`) is read by fetch's `text()` and `json()` as UTF-8, which ignores a UTF-16 byte
// order mark: a token written in ASCII in it (a MessagePack body that happens to open with -1, -2)
// reaches the page unless the worker looks for it there too. It does (sealStream.ts), and refuses
// such a body, whole or streamed, however it is cut; a UTF-16 body that holds no value passes byte
// for byte.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { readAhead, sealedResponse } from '../src/sw/sealedResponse.js';
import type { SealPlan } from '../src/sw/sealSpellings.js';
import { filledStream } from '../src/sw/sealStream.js';
import { everyCut, streamedBytes } from './sealStreaming.js';

const CART = 'a/NobooTrGpX7mR2c9LkQ==';
const plan: SealPlan = { values: [[CART, 'sealed:cart']], fields: { token: 'sealed:order' } };
const utf8 = (text: string) => new TextEncoder().encode(text);
const utf16le = (text: string) => new Uint8Array(Uint16Array.from(text, (char) => char.charCodeAt(0)).buffer);

/** Bodies read as UTF-16 that hold the cart token in a spelling UTF-8 reads: as it stands, `\/`-escaped, URL-encoded. */
const bodies: [Uint8Array, string][] = [
  [new Uint8Array([0xff, 0xfe, 0xb7, ...utf8(`{"cart":"${CART}"}`)]), 'application/msgpack'],
  [new Uint8Array([0xfe, 0xff, 0xb7, ...utf8(`{"cart":"${CART.replace('/', '\\/')}"}`)]), 'application/octet-stream'],
  [new Uint8Array([0xff, 0xfe, ...utf8(`?t=${encodeURIComponent(CART)}`)]), 'text/plain'],
  [utf8(`{"cart":"${CART}"}`), 'application/json; charset=utf-16'],
];

it('refuses a body read as UTF-16 that holds a known value in ASCII: the page reads it as UTF-8', async () => {
  for (const [body, type] of bodies) {
    const response = new Response(filledStream([body]), { headers: { 'Content-Type': type, 'Content-Length': String(body.length) } });
    // Whole ahead of the page: its fetch rejects.
    const head = await readAhead(response, null);
    await assert.rejects(async () => sealedResponse(response, plan, head).text(), /refused/, type);
  }
});

it('refuses such a body streamed, however it is cut', async () => {
  for (const [body, type] of bodies) {
    for (const cuts of everyCut(body.length)) {
      for (const head of [0, 1]) await assert.rejects(streamedBytes(body, plan, type, cuts, head), /refused/, `${type} cut at ${cuts.join(',')}, ${head} ahead`);
    }
  }
});

it('passes a UTF-16 body that holds no known value byte for byte', async () => {
  const clean = [new Uint8Array([0xff, 0xfe, ...utf16le('{"cart":"none"}')]), new Uint8Array([0xff, 0xfe, 0xb7, ...utf8('{"cart":"none"}')])];
  for (const body of clean) {
    for (const cuts of everyCut(body.length)) assert.deepEqual(await streamedBytes(body, plan, 'application/msgpack', cuts, 0), body);
    const response = new Response(filledStream([body]), { headers: { 'Content-Type': 'application/msgpack', 'Content-Length': String(body.length) } });
    assert.deepEqual(new Uint8Array(await sealedResponse(response, plan, await readAhead(response, null)).arrayBuffer()), body);
  }
});
