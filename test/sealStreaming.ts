// Helpers for the streaming seal tests (sealScanner.test.ts, sealStream.test.ts): a body cut into
// parts and sent through the scanner as text, or through the seal stream as bytes, with the checks
// every step must pass on the way.
import assert from 'node:assert/strict';
import { applyEdits, SealScanner, type Edit } from '../src/sw/sealScanner.js';
import { TEXT_UNITS, type SealPlan, type Units } from '../src/sw/sealSpellings.js';
import { filledStream, sealedBody, sealedWholeParts } from '../src/sw/sealStream.js';

/** Where to cut a body of `length` units into random parts (1 unit up to about a third of it each). */
export function randomCuts(random: () => number, length: number): number[] {
  const cuts: number[] = [];
  for (let at = 0; at < length; ) {
    at += 1 + Math.floor(random() * Math.max(1, length / 3));
    if (at < length) cuts.push(at);
  }
  return cuts;
}

/** What the page has received after each part: the released text, in order. */
export interface Streamed {
  readonly text: string;
  /** After each part pushed (and after the end), how much of the body was released, in units of the input. */
  readonly released: readonly number[];
  /** The output released after each part (and after the end). */
  readonly parts: readonly string[];
}

/**
 * `text` pushed to a scanner in parts cut at `cuts`, then ended. Checks each step: what it releases
 * only grows, its edits are in order and within what it releases, and the end releases everything.
 */
export function streamText(text: string, plan: SealPlan, cuts: readonly number[], units: Units = TEXT_UNITS): Streamed {
  const scanner = new SealScanner(plan, units);
  const edits: Edit[] = [];
  const released: number[] = [];
  const parts: string[] = [];
  let at = 0;
  let done = 0;
  const take = (step: { edits: readonly Edit[]; to: number }): void => {
    assert.ok(step.to >= done, `released ${step.to} after ${done}`);
    let last = done;
    for (const edit of step.edits) {
      assert.ok(edit.from >= last && edit.to >= edit.from && edit.to <= step.to, `edit ${JSON.stringify(edit)} outside ${last}..${step.to}`);
      last = edit.to;
    }
    parts.push(applyEdits(text.slice(done, step.to), step.edits.map((edit) => ({ ...edit, from: edit.from - done, to: edit.to - done }))));
    edits.push(...step.edits);
    released.push((done = step.to));
  };
  for (const cut of [...cuts, text.length]) {
    take(scanner.push(text.slice(at, cut)));
    at = cut;
  }
  take(scanner.end());
  assert.equal(done, text.length, 'the end releases everything');
  return { text: applyEdits(text, edits), released, parts };
}

/** `streamText`'s sealed text alone. */
export function streamedText(text: string, plan: SealPlan, cuts: readonly number[]): string {
  return streamText(text, plan, cuts).text;
}

/**
 * A stream of `bytes` cut at `cuts`, as the network gives a body: a part per pull, not all queued at
 * the start, since Node's stream queue takes each part off its front by `Array.shift` (quadratic over
 * the 67,000 parts of a megabyte in 16-byte parts, seconds that the timed tests would charge to the
 * sealer).
 */
export function chunked(bytes: Uint8Array, cuts: readonly number[]): ReadableStream<Uint8Array> {
  const parts = [...cuts, bytes.length].map((cut, i, all) => bytes.slice(i === 0 ? 0 : all[i - 1], cut));
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[next++];
      if (part === undefined) controller.close();
      else controller.enqueue(part);
    },
  }, { highWaterMark: 0 });
}

/**
 * `bytes` cut at `cuts` and sealed as the page reads them (`head`: that many parts read ahead first,
 * `whole` when they are all of it); the bytes the page reads.
 */
export async function streamedBytes(bytes: Uint8Array, plan: SealPlan, contentType: string | null, cuts: readonly number[], head = 0): Promise<Uint8Array> {
  const reader = chunked(bytes, cuts).getReader();
  const ahead: Uint8Array[] = [];
  for (let i = 0; i < head; i++) {
    const { done, value } = await reader.read();
    if (!done) ahead.push(value);
  }
  const body = head > cuts.length ? filledStream(sealedWholeParts(reader, ahead, plan, contentType)) : sealedBody(reader, ahead, plan, contentType);
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** Every cut of a body of `length` units into two parts, and into single units. */
export function everyCut(length: number): number[][] {
  return [...Array.from({ length: length - 1 }, (_, i) => [i + 1]), Array.from({ length: length - 1 }, (_, i) => i + 1)];
}

/** The `reals` that `text` holds in a spelling a reader could get back: as it stands, URL-encoded, or JSON-escaped. */
export function leaked(text: string, reals: readonly string[]): string[] {
  const decoded = text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_m, e: string) => (e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : e));
  const found: string[] = [];
  for (const real of reals) {
    const encoded = encodeURIComponent(real);
    for (const form of new Set([real, encoded, encoded.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()), new URLSearchParams({ v: real }).toString().slice(2)])) {
      if (text.includes(form) || decoded.includes(form)) found.push(form);
    }
  }
  return found;
}
