// The bench's run records (scripts/bench/runs.mjs): the budgets on ratios take the median over the
// runs of one build, so one noisy run neither passes nor fails them alone.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
// @ts-expect-error -- a plain .mjs module of the bench, with no declarations; its values are checked here.
import { medianOfRuns, readRuns, runRecord } from '../scripts/bench/runs.mjs';

const record = (date: string, ratio: number, cold: number) =>
  runRecord({ date, build: 'x', loadAverage: { before: 1, during: 2, max: 3, after: 2 }, ratios: { 'c/aFloor': ratio }, coldExtra: { 'cold start c - b (ms)': cold }, floorPick: { v2: 'pipe', v3: 'read' } });

describe('bench runs', () => {
  it('takes each ratio\'s median over the runs, with every run\'s value in order', () => {
    const runs = [record('1', 1.1, 7), record('2', 0.99, 4), record('3', 1.02, 5), record('4', 1.05, 6), record('5', 1.0, 3)];
    const { n, ratios, floorPicks } = medianOfRuns(runs);
    assert.equal(n, 5);
    assert.deepEqual(ratios['c/aFloor'], { perRun: [1.1, 0.99, 1.02, 1.05, 1.0], median: 1.02, min: 0.99, max: 1.1 });
    assert.equal(ratios['cold start c - b (ms)'].median, 5);
    assert.deepEqual(floorPicks[0], { v2: 'pipe', v3: 'read' });
  });

  it('reads the records of a folder oldest first, and none from a folder that is not there', () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'bench-runs-'));
    try {
      writeFileSync(join(dir, '2026-11-24T06-00-00-000Z.json'), JSON.stringify(record('b', 1, 1)));
      writeFileSync(join(dir, '2026-11-24T05-00-00-000Z.json'), JSON.stringify(record('a', 2, 2)));
      writeFileSync(join(dir, 'notes.txt'), 'not a record');
      assert.deepEqual(readRuns(dir).map((run: { date: string }) => run.date), ['a', 'b']);
      assert.deepEqual(readRuns(join(dir, 'absent')), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
