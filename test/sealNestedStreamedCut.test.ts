// a token JSON-escaped inside a string that holds JSON (80c1d9a seals it whole) leaks
// when the body is streamed and a chunk ends inside the run of backslashes that escapes its `\"`: the
// level decoded once ends in a dangling `\`, which the next level reads as a `\` of its own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_HELD } from '../src/sw/sealScanner.js';
import type { SealPlan } from '../src/sw/sealSpellings.js';
import { sealedBody } from '../src/sw/sealStream.js';

async function streamed(chunks: readonly Uint8Array[], plan: SealPlan, type: string): Promise<string> {
  const source = new ReadableStream<Uint8Array>({ start(c) { for (const chunk of chunks) c.enqueue(chunk); c.close(); } });
  return new TextDecoder().decode(await new Response(sealedBody(source.getReader(), [], plan, type)).arrayBuffer());
}

/**
 * Every cut of `text` in two (from `from` on; with `edges`, only those next to a backslash, each a
 * megabyte streamed), streamed; the cuts after which the page reads `token` back through `read`.
 */
async function leakingCuts(text: string, plan: SealPlan, type: string, read: (out: string) => unknown, from = 0, edges = false): Promise<string[]> {
  const bytes = new TextEncoder().encode(text);
  const bad: string[] = [];
  const BACKSLASH = 0x5c;
  for (let cut = Math.max(1, from); cut < bytes.length; cut++) {
    if (edges && bytes[cut - 1] !== BACKSLASH && bytes[cut] !== BACKSLASH) continue;
    const out = await streamed([bytes.slice(0, cut), bytes.slice(cut)], plan, type);
    let value: unknown;
    try { value = read(out); } catch { value = undefined; }
    if (value === plan.values[0]![0]) bad.push(`cut at ${cut}: ${JSON.stringify(out.slice(-60))}`);
  }
  return bad;
}

describe('sealing: JSON inside a JSON string, streamed, cut inside an escaped backslash run', () => {
  const token = String.raw`Z\"TE5B/+x\"1A`;
  const plan: SealPlan = { values: [[token, 'sealed:access']], fields: {} };
  const doc = JSON.stringify({ payload: JSON.stringify({ token }) });

  it('an event after a stray quote on its line: no cut lets the page read the token', async () => {
    const text = `data: the 5" screen ${doc}\n\n`;
    const read = (out: string) => JSON.parse(JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1)).payload).token;
    assert.deepEqual(await leakingCuts(text, plan, 'text/event-stream', read), []);
  });

  it('a JSON string longer than MAX_HELD: no cut in or at the edge of a backslash run near the token lets the page read it', async () => {
    const text = JSON.stringify({ m: 'x'.repeat(MAX_HELD) + ' ' + JSON.stringify({ token }) + ' end' });
    const read = (out: string) => { const m = JSON.parse(out).m as string; return JSON.parse(m.slice(m.indexOf('{'), m.lastIndexOf('}') + 1)).token; };
    const at = new TextEncoder().encode(text).length;
    assert.deepEqual(await leakingCuts(text, plan, 'application/json', read, at - 60, true), []);
  });
});
