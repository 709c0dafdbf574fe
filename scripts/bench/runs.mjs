// The run records (bench/runs/<date>.json): each `npm run bench` leaves its ratios there, and the
// budgets on ratios are judged on the median over the runs of the same build (FLOOR_RUNS or more),
// since one run's ratio moves by several per cent with the machine's load.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './stats.mjs';

/** One run's record: when, which build, the load average, and its ratios and cold-start differences. */
export const runRecord = ({ date, build, loadAverage, ratios, coldExtra, floorPick }) => ({ date, build, loadAverage, ratios: { ...ratios, ...coldExtra }, floorPick });

/** Every record in `dir`, oldest first; none when it does not exist. */
export function readRuns(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
}

/**
 * Per ratio, over the records: each run's value (in the records' order), their median, smallest
 * and largest; and the runs' dates and load averages.
 */
export function medianOfRuns(records) {
  const names = [...new Set(records.flatMap((record) => Object.keys(record.ratios)))];
  const ratios = Object.fromEntries(
    names.map((name) => {
      const values = records.map((record) => record.ratios[name]).filter((value) => typeof value === 'number');
      return [name, { perRun: values, median: median(values), min: Math.min(...values), max: Math.max(...values) }];
    }),
  );
  return { n: records.length, dates: records.map((record) => record.date), loadAverages: records.map((record) => record.loadAverage), floorPicks: records.map((record) => record.floorPick), ratios };
}
