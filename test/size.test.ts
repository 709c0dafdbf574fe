// The size budget of the built files (STYLE.md rule 10): fails when a dist file grows past its
// gzip budget. Run after `npm run build`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';

/** Gzip budgets in bytes; the standalone worker bundles workbox-routing, workbox-core and idb. */
const BUDGETS: Record<string, number> = {
  'storefront-auth-sw.js': 9 * 1024,
  'storefront-auth.js': 2.5 * 1024,
  'index.js': 2 * 1024,
  'sw.js': 6.5 * 1024,
};

describe('dist size budget', () => {
  for (const [file, budget] of Object.entries(BUDGETS)) {
    it(`${file} stays within ${budget} B gzip`, () => {
      const size = gzipSync(readFileSync(new URL(`../dist/${file}`, import.meta.url)), { level: 9 }).length;
      assert.ok(size <= budget, `dist/${file} is ${size} B gzip, over its ${budget} B budget`);
    });
  }
});
