// The bench's statistics (scripts/bench/stats.mjs), on small arrays whose answers can be worked out
// by hand: nearest-rank percentiles, medians of odd and even counts, paired ratios per round.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
// @ts-expect-error -- a plain .mjs module of the bench, with no declarations; its values are checked here.
import { median, pairedRatios, percentile, quartiles, rotate, round3, summary, trimmedMean, trimmedSummary } from '../scripts/bench/stats.mjs';

describe('bench statistics', () => {
  it('takes the nearest-rank percentile, whatever the order of the values', () => {
    const values = [50, 10, 40, 20, 30];
    assert.equal(percentile(values, 0), 10);
    assert.equal(percentile(values, 20), 10);
    assert.equal(percentile(values, 21), 20);
    assert.equal(percentile(values, 50), 30);
    assert.equal(percentile(values, 95), 50);
    assert.equal(percentile(values, 100), 50);
    assert.deepEqual(values, [50, 10, 40, 20, 30], 'the input is left as it was');
    assert.ok(Number.isNaN(percentile([], 50)));
  });

  it('takes the median of an odd count, the mean of the middle two of an even one', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([7]), 7);
    assert.ok(Number.isNaN(median([])));
  });

  it('summarises and splits quartiles', () => {
    const values = Array.from({ length: 20 }, (_, i) => i + 1);
    assert.deepEqual(summary(values), { n: 20, median: 10.5, p95: 19, min: 1, max: 20 });
    assert.deepEqual(quartiles(values), [5, 15]);
  });

  it('pairs ratios round by round, and refuses rounds that do not pair', () => {
    const b = [1, 2, 4];
    const c = [1.5, 3, 6];
    assert.deepEqual(pairedRatios(c, b), [1.5, 1.5, 1.5]);
    assert.equal(median(pairedRatios(c, b)), 1.5);
    assert.throws(() => pairedRatios([1, 2], [1]), /as many rounds/);
  });

  it('rounds to three decimals and rotates the order of contexts', () => {
    assert.equal(round3(1.23456), 1.235);
    assert.deepEqual(rotate(['a', 'b', 'c', 'd'], 1), ['b', 'c', 'd', 'a']);
    assert.deepEqual(rotate(['a', 'b', 'c', 'd'], 0), ['a', 'b', 'c', 'd']);
  });

  it('takes the trimmed mean of the middle 80 %, dropping as many values from each end', () => {
    // 10 values: one dropped from each end, the mean of 2..9.
    assert.equal(trimmedMean([10, 1, 9, 2, 8, 3, 7, 4, 6, 1000]), (2 + 3 + 4 + 6 + 7 + 8 + 9 + 10) / 8);
    // 20 values, two from each end: 3..18 averages 10.5, whatever the outliers.
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    twenty[19] = 1e6;
    twenty[0] = -1e6;
    assert.equal(trimmedMean(twenty), 10.5);
    // Fewer than 10 values: 10 % of each end rounds down to none, the plain mean.
    assert.equal(trimmedMean([1, 2, 6]), 3);
    assert.equal(trimmedMean([4, 1, 3, 2], 0.5), 2.5);
    assert.equal(trimmedMean([5]), 5);
    assert.ok(Number.isNaN(trimmedMean([])));
    assert.throws(() => trimmedMean([1], 0), /keep/);
  });

  it('moves smoothly where the median steps with 0.1 ms timers', () => {
    const coarse = [6.9, 7.0, 7.0, 7.0, 7.1, 7.1, 7.1, 7.1, 7.2, 7.3];
    assert.equal(median(coarse), 7.1);
    assert.ok(Math.abs(trimmedMean(coarse) - 7.075) < 1e-9);
    assert.deepEqual(trimmedSummary([1, 2, 3, 4]), { n: 4, trimmedMean: 2.5, median: 2.5, p95: 4, min: 1, max: 4 });
  });
});
