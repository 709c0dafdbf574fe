// The spellings the seal scanner looks for (sealSpellings.ts) of a value that has no URL spelling:
// a token holding a lone surrogate (legal JSON, `"\ud800"`, which a dialect keeps as any string) is
// sealed as it stands and JSON-escaped, and the plan's other values in every spelling; building the
// plan throws for no one, so the worker's sealed answers keep working while it holds such a token.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sealText } from '../src/sw/sealScanner.js';
import { readAhead, sealedResponse, secretHeaders } from '../src/sw/sealedResponse.js';
import type { SealPlan } from '../src/sw/sealSpellings.js';
import { filledStream } from '../src/sw/sealStream.js';
import { streamedBytes } from './sealStreaming.js';

const LONE = 'abc\ud800defghijkl';
const CART = 'a/NobooTrGpX7mR2c9LkQ==';
const plan: SealPlan = { values: [[LONE, 'sealed:access'], [CART, 'sealed:cart']], fields: {} };
const utf8 = (text: string) => new TextEncoder().encode(text);

it('builds a plan holding a value with a lone surrogate, which encodeURIComponent cannot spell', () => {
  assert.doesNotThrow(() => sealText('{}', { values: [[LONE, 'sealed:access']], fields: {} }));
  assert.equal(sealText('{}', plan), null);
  assert.deepEqual(secretHeaders([['x-note', 'none']], plan), []);
});

it('seals that value JSON-escaped, as it stands, and the other values in their URL spellings', async () => {
  // JSON.stringify escapes a lone surrogate: `abc\ud800defghijkl`.
  const body = `{"error":${JSON.stringify(`token ${LONE} revoked`)},"raw":"${LONE}","next":"/cart?t=${encodeURIComponent(CART)}"}`;
  const sealed = '{"error":"token sealed:access revoked","raw":"sealed:access","next":"/cart?t=sealed:cart"}';
  assert.equal(sealText(body, plan), sealed);
  // A UTF-8 body can hold only the escaped spelling; streamed and whole, cut anywhere.
  const escaped = `{"error":${JSON.stringify(`token ${LONE} revoked`)},"next":"/cart?t=${encodeURIComponent(CART)}"}`;
  const expected = utf8('{"error":"token sealed:access revoked","next":"/cart?t=sealed:cart"}');
  for (const cuts of [[], [16], [20, 21, 22, 23], [40]]) {
    for (const head of [0, cuts.length + 1]) assert.deepEqual(await streamedBytes(utf8(escaped), plan, 'application/json', cuts, head), expected, `cut at ${cuts.join(',')}, ${head} parts ahead`);
  }
  const response = new Response(filledStream([utf8(escaped)]), { headers: { 'Content-Type': 'application/json', 'X-Debug': JSON.stringify(LONE) } });
  const page = sealedResponse(response, plan, await readAhead(response, null));
  assert.equal(page.headers.get('x-debug'), null, 'a header echoing the token is dropped');
  assert.equal(await page.text(), new TextDecoder().decode(expected));
});
