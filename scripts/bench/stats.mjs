// The bench's statistics: plain functions of arrays of numbers (ms), tested in Node
// (test/benchStats.test.ts).

/** A sorted copy, smallest first. */
const sorted = (values) => [...values].sort((x, y) => x - y);

/** Nearest-rank percentile: the smallest value with at least `p` % of the values at or below it; NaN when empty. */
export function percentile(values, p) {
  const s = sorted(values);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** The middle value, or the mean of the two middle ones; NaN when empty. */
export function median(values) {
  const s = sorted(values);
  const mid = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * The mean of the middle `keep` share of the values (0.8: the lowest and highest 10 % dropped, as
 * many from each end, rounded down); NaN when empty. Pages get 0.1 ms timers, so a median of ~7 ms
 * moves in steps of ~1.5 %; a trimmed mean moves smoothly and still ignores the GC pauses and
 * scheduling hiccups in the tails.
 */
export function trimmedMean(values, keep = 0.8) {
  if (!(keep > 0 && keep <= 1)) throw new Error(`keep must be in (0, 1], not ${keep}`);
  const s = sorted(values);
  const cut = Math.floor((s.length * (1 - keep)) / 2 + 1e-9);
  const middle = s.slice(cut, s.length - cut);
  return middle.length === 0 ? NaN : middle.reduce((sum, value) => sum + value, 0) / middle.length;
}

/** Count, median, p95, min and max. */
export const summary = (values) => ({ n: values.length, median: median(values), p95: percentile(values, 95), min: Math.min(...values), max: Math.max(...values) });

/** Count, trimmed mean (middle 80 %), median, p95, min and max. */
export const trimmedSummary = (values) => ({ n: values.length, trimmedMean: trimmedMean(values), median: median(values), p95: percentile(values, 95), min: Math.min(...values), max: Math.max(...values) });

/** The 25th and 75th percentiles. */
export const quartiles = (values) => [percentile(values, 25), percentile(values, 75)];

/**
 * Round by round, `values[i] / reference[i]`: a paired ratio (each round's two medians were taken
 * side by side), less sensitive to drift between rounds than the ratio of pooled medians.
 */
export function pairedRatios(values, reference) {
  if (values.length !== reference.length) throw new Error(`paired ratios need as many rounds on both sides, not ${values.length} and ${reference.length}`);
  return values.map((value, i) => value / reference[i]);
}

/** Three decimals, for the JSON results. */
export const round3 = (value) => Math.round(value * 1000) / 1000;

/** `list` rotated left by `by`: each round starts with another context, so drift falls on all of them. */
export const rotate = (list, by) => list.map((_, i) => list[(i + by) % list.length]);
