// The size budget of the built files (scripts/budgets.ts): fails when a dist file grows past its
// ceiling (scripts/budgets.ts, shared with the bench), and reports how far a file is from its
// budget while it is over. Run after `npm run build`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { SIZE_BUDGETS } from '../scripts/budgets.js';

describe('dist size budget', () => {
  for (const [file, { budget, ceiling }] of Object.entries(SIZE_BUDGETS)) {
    it(`${file} stays within ${ceiling} B gzip`, (t) => {
      const size = gzipSync(readFileSync(new URL(`../dist/${file}`, import.meta.url)), { level: 9 }).length;
      assert.ok(size <= ceiling, `dist/${file} is ${size} B gzip, over its ${ceiling} B ceiling`);
      if (budget !== null && size > budget) t.diagnostic(`dist/${file} is ${size} B gzip, ${size - budget} B over its ${budget} B budget`);
    });
  }

  it('holds each ceiling at or above its budget, so a file that fits its budget passes', () => {
    for (const [file, { budget, ceiling }] of Object.entries(SIZE_BUDGETS)) assert.ok(budget === null || ceiling >= budget, file);
  });
});
