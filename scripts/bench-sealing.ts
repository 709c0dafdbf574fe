/**
 * What sealed tokens add to a cart response, in the worker's own code: `npm run bench:seal` times
 * sealing a 50 KB cart document (and a small one, as the bench's cart GET returns) and prints the
 * figures. The response buffering around it is timed by `npm run bench` in a real browser.
 */
import { store } from '../src/sw/dialects/store.js';
import { sealCartDocument as seal } from '../src/sw/sealedTokens.js';

const sealCartDocument = (text: string): string | null => seal(text, store);
import { largeCart } from './largeCart.js';

function time(text: string, rounds: number): number {
  for (let i = 0; i < 50; i++) sealCartDocument(text); // warm-up, as a running worker is
  const started = performance.now();
  for (let i = 0; i < rounds; i++) sealCartDocument(text);
  return ((performance.now() - started) / rounds) * 1000;
}

for (const size of [600, 50_000]) {
  const text = largeCart(size);
  console.log(`sealing a ${(text.length / 1024).toFixed(1)} KB cart document: ${time(text, 2_000).toFixed(1)} µs`);
}
