// A long string streamed in small parts is read in linear time when its parts hold quotes too, all
// escaped: a JSON string of escaped HTML (`<a class=\"x\">`) has one in nearly every part.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SEALED_ORDER, sealText } from '../src/sw/sealScanner.js';
import type { SealPlan } from '../src/sw/sealSpellings.js';
import { streamedBytes, streamText } from './sealStreaming.js';

const A_SLASH = 'a/Nob"ooTrG+pX7\\mR2c9LkQ==';
const plan: SealPlan = { values: [[A_SLASH, 'sealed:cart']], fields: { token: SEALED_ORDER } };
const php = (value: string) => JSON.stringify(value).slice(1, -1).replace(/\//g, '\\/');

describe('a long string of escaped quotes, streamed in small parts', () => {
  it('is scanned in linear time, as one without quotes is', () => {
    const text = `{"html":"${'<a class=\\"p\\">lorem<\\/a> '.repeat(40_000)}","token":"${php(A_SLASH)}"}`;
    const cuts = Array.from({ length: Math.floor((text.length - 1) / 16) }, (_, i) => (i + 1) * 16);
    const start = performance.now();
    const streamed = streamText(text, plan, cuts);
    const ms = performance.now() - start;
    assert.equal(streamed.text, sealText(text, plan));
    assert.ok(streamed.text.includes('"token":"sealed:cart"'));
    assert.ok(ms < 5_000, `${text.length} units in 16-unit parts took ${ms.toFixed(0)} ms`);
  });

  it('is sealed as bytes in linear time', async () => {
    const text = `{"html":"${'<p class=\\"caf\u00e9\\">ok<\\/p> '.repeat(40_000)}","token":"${php(A_SLASH)}"}`;
    const bytes = new TextEncoder().encode(text);
    const cuts = Array.from({ length: Math.floor((bytes.length - 1) / 16) }, (_, i) => (i + 1) * 16);
    const start = performance.now();
    const out = new TextDecoder().decode(await streamedBytes(bytes, plan, 'application/json', cuts));
    const ms = performance.now() - start;
    assert.equal(out, sealText(text, plan));
    assert.ok(ms < 5_000, `${bytes.length} bytes in 16-byte parts took ${ms.toFixed(0)} ms`);
  });
});
