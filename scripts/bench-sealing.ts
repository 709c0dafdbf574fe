/**
 * What sealed tokens add to a cart response, in the worker's own code: `npm run bench:seal` times
 * sealing a small cart document (as the bench's cart GET returns) and a 50 KB one with the seal
 * scanner (sealText: every known value in any spelling, and other orders' tokens), plain and as a
 * PHP server escapes it, and prints the figures. For scale, parsing the body and then searching each
 * token's JSON text took 5.1–5.6 µs and 221–292 µs on the same documents; the scanner that read a
 * whole text (before bodies were sealed as they stream) 7 µs, 34 µs and 613 µs (PHP-escaped), the
 * streaming one 4.5 µs, 95 µs and 238 µs (a plain document costs it more: it must know, wherever a
 * part may end, whether a string is open there, which a scan of the whole text never asks). The
 * stream around it is timed by `npm run bench` in a real browser.
 */
import { sealText } from '../src/sw/sealScanner.js';
import type { SealPlan } from '../src/sw/sealSpellings.js';
import { largeCart } from './largeCart.js';

// What the worker would hold for a signed-in shopper with a cart: the cart token and the pair.
const plan: SealPlan = {
  values: [
    ['T-secret', 'sealed:cart'],
    ['A-access-token-0123456789abcdef', 'sealed:access'],
    ['R+refresh/token=', 'sealed:refresh'],
  ],
  fields: { token: 'sealed:order' },
};

/** Microseconds per call of `seal` on `text`, after a warm-up as a running worker has had. */
function time(seal: (text: string) => string | null, text: string, rounds: number): number {
  for (let i = 0; i < 200; i++) seal(text);
  const started = performance.now();
  for (let i = 0; i < rounds; i++) seal(text);
  return ((performance.now() - started) / rounds) * 1000;
}

const sealers: [string, (text: string) => string | null][] = [['sealText', (text) => sealText(text, plan)]];

for (const size of [600, 50_000]) {
  const plain = largeCart(size);
  // A PHP server (json_encode) escapes every `/`: the scanner's general path, literal by literal.
  const php = plain.replace(/-with-a-long-slug/g, '\\/with\\/a\\/long\\/slug');
  for (const [label, text] of [['', plain], [' (PHP-escaped)', php]] as const) {
    const figures = sealers.map(([name, seal]) => `${name} ${time(seal, text, size > 1_000 ? 2_000 : 20_000).toFixed(1)} µs`);
    console.log(`sealing a ${(text.length / 1024).toFixed(1)} KB cart document${label}: ${figures.join(', ')}`);
  }
}
