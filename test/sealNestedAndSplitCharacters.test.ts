// Sealing cases found by randomized testing: a token JSON-escaped inside a string that holds JSON, a
// non-ASCII token cut inside its last character, and the characters next to one (docs/security.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_HELD, sealText } from '../src/sw/sealScanner.js';
import type { SealPlan } from '../src/sw/sealSpellings.js';
import { sealedBody, sealedWholeParts } from '../src/sw/sealStream.js';

/** `chunks` through the seal stream as the network gives them; the text the page reads. */
async function streamed(chunks: readonly Uint8Array[], plan: SealPlan): Promise<string> {
  const source = new ReadableStream<Uint8Array>({ start(c) { for (const chunk of chunks) c.enqueue(chunk); c.close(); } });
  return new TextDecoder().decode(await new Response(sealedBody(source.getReader(), [], plan, 'application/json')).arrayBuffer());
}
/** `text` as one whole body through the seal stream; the text the page reads. */
function whole(text: string, plan: SealPlan): string {
  const none = new ReadableStream<Uint8Array>({ start(c) { c.close(); } }).getReader();
  const parts = sealedWholeParts(none, [new TextEncoder().encode(text)], plan, 'application/json; charset=utf-8');
  return Buffer.concat(parts.map((part) => Buffer.from(part))).toString('utf8');
}
/** `text`'s UTF-8 bytes cut in two `back` bytes after the start of the last `before`. */
function cutInside(text: string, before: string, back: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const at = new TextEncoder().encode(text.slice(0, text.lastIndexOf(before))).length + back;
  return [bytes.slice(0, at), bytes.slice(at)];
}

describe('sealing: nested JSON and characters cut in two', () => {
  it('seals a token JSON-escaped inside a string that holds JSON (a JSON spelling inside a longer string)', () => {
    // PHP: json_encode(['payload' => json_encode(['token' => $t])]): the inner `\/` is escaped again.
    const slash = 'a/NobooTrGpX7mR2c9LkQ==';
    const plan: SealPlan = { values: [[slash, 'sealed:cart']], fields: { token: 'sealed:order' } };
    const body = JSON.stringify({ payload: JSON.stringify({ token: slash }).replace(/\//g, '\\/') }).replace(/\//g, '\\/');
    const out = sealText(body, plan) ?? body;
    assert.notEqual(JSON.parse(JSON.parse(out).payload).token, slash, `the page reads the token from ${out}`);
  });

  it('seals a token holding a quote, JSON-escaped inside a string that holds JSON (any encoder)', () => {
    // Any encoder: an upstream error (JSON) quoted in a message, the token holding a quote (OAuth allows one).
    const quote = 'Kq7"Lm9+ZaT/x';
    const plan2: SealPlan = { values: [[quote, 'sealed:access']], fields: {} };
    const body2 = JSON.stringify({ error: JSON.stringify({ access_token: quote }) });
    const out2 = sealText(body2, plan2) ?? body2;
    assert.notEqual(JSON.parse(JSON.parse(out2).error).access_token, quote, `the page reads the token from ${out2}`);
  });

  it('seals a token that is not ASCII when a chunk ends inside its last character, after an escape', async () => {
    const token = 'Kq7/Zé+Lm9☃';
    const plan: SealPlan = { values: [[token, 'sealed:cart']], fields: { token: 'sealed:order' } };
    // Text with an escape (read decoded, so released up to where no value may straddle the cut).
    const text = 'retry \\/ Kq7\\/Zé+Lm9☃ later';
    assert.equal(whole(text, plan), 'retry \\/ sealed:cart later');
    assert.equal(await streamed(cutInside(text, '☃', 1), plan), 'retry \\/ sealed:cart later');
  });

  it('seals a token that is not ASCII in a JSON string longer than MAX_HELD, cut inside its last character', async () => {
    const token = 'Kq7/Zé+Lm9☃';
    const plan: SealPlan = { values: [[token, 'sealed:cart']], fields: { token: 'sealed:order' } };
    const text = `{"m":"${'x'.repeat(MAX_HELD)} Kq7\\/Zé+Lm9☃ x"}`;
    const out = await streamed(cutInside(text, '☃', 1), plan);
    assert.equal(JSON.parse(out).m.includes(token), false, `streamed: ${JSON.stringify(out.slice(-30))}`);
  });

  it('keeps the characters that are not ASCII next to a token that ends (or starts) with one, in a string with an escape', () => {
    const plan: SealPlan = { values: [['Kq7+Lm9ZaTé', 'sealed:cart']], fields: {} };
    assert.equal(whole('{"note":"a\\/b Kq7+Lm9ZaTéü"}', plan), '{"note":"a\\/b sealed:cartü"}');
    assert.equal(whole('{"note":"\\/ Kq7+Lm9ZaTé😀 café"}', plan), '{"note":"\\/ sealed:cart😀 café"}');
    const plan2: SealPlan = { values: [['ßKq7+Lm9ZaT', 'sealed:cart']], fields: {} };
    assert.equal(whole('{"note":"\\/ üßKq7+Lm9ZaT"}', plan2), '{"note":"\\/ üsealed:cart"}');
  });
});
