// The size budget of the built files (STYLE.md rule 10): fails when a dist file grows past its
// gzip budget. Run after `npm run build`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';

/**
 * Gzip budgets in bytes (level 9, as build.mjs prints them). The workers' budgets are the size they
 * reached (8183 B and 6051 B) rounded up to the next 256 B, plus 256 B for handing the database
 * over to a release with a newer storage schema (8397 B and 6274 B with it). Issue 6's target for the standalone
 * worker is 6144 B, which it is still over: about 1.1 KB of it is the bundled idb and 0.9 KB the
 * Workbox router, both kept because the worker is built on them (a plain fetch listener and raw
 * IndexedDB calls would bring it near 6.2 KB).
 * The bridge's budget was 2048 B until every wait for a worker got its 10 s bound and its early
 * `no_service_worker` rejections (src/page/waitForControl.ts): 2046 B became 2250 B, so it gained
 * 256 B (204 B rounded up to 64 B). The drop-in grew alike (2157 B to 2359 B) and still fits its 2560 B.
 */
const BUDGETS: Record<string, number> = {
  // +2048 B and +2048 B: the one way out (outbound.ts), the refresh back-off, the bounded waits, the
  // request path and bridge actions split, and the unforgeable announcements took the workers from
  // 8397 B and 6275 B to 10289 B and 8216 B gzip; sealed tokens (sealedTokens.ts, the response
  // rewrite and the placeholder swaps) and the back-off rules another 1116 B and 1101 B, to 11405 B and 9317 B. Issue 17
  // (a leaner worker) is to bring them down.
  'storefront-auth-sw.js': 11520,
  'storefront-auth.js': 2560,
  'index.js': 2304,
  'sw.js': 9472,
};

describe('dist size budget', () => {
  for (const [file, budget] of Object.entries(BUDGETS)) {
    it(`${file} stays within ${budget} B gzip`, () => {
      const size = gzipSync(readFileSync(new URL(`../dist/${file}`, import.meta.url)), { level: 9 }).length;
      assert.ok(size <= budget, `dist/${file} is ${size} B gzip, over its ${budget} B budget`);
    });
  }
});
