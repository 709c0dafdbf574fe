/**
 * `WriteReplayer.run` joins the pass in flight and asks for one more after it, which sees what was
 * queued meanwhile. A run asked for in the moment between the pass loop's last look at that request
 * and the pass settling joined a pass that had already ended: its pass never came, and a write queued
 * just then waited for the next wake-up (a page's `online`, the next request). Found by the review of
 * the refresh lock, whose earlier settling once put a replay test's `run` in that moment.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WriteReplayer, type ReplayerContext } from '../src/sw/writeReplayer.js';

/** Runs `work` after `count` microtasks. */
function afterMicrotasks(count: number, work: () => void): void {
  let chain = Promise.resolve();
  for (let i = 0; i < count; i++) chain = chain.then(() => {});
  void chain.then(work);
}

test('a run asked for as a pass ends gets a pass of its own, whichever microtask it comes in', async () => {
  for (let delay = 0; delay <= 16; delay++) {
    let reads = 0;
    let second: Promise<boolean> | undefined;
    const replayer: WriteReplayer = new WriteReplayer({
      queue: {
        // An empty queue: each pass reads the head once and ends. The first read asks for another pass `delay` microtasks on.
        list: async () => {
          if (++reads === 1) afterMicrotasks(delay, () => (second = replayer.run()));
          return [];
        },
      },
      lockName: 'storefront-auth:test:replay',
    } as unknown as ReplayerContext);
    await replayer.run();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.notEqual(second, undefined);
    assert.equal(await second, false);
    assert.equal(reads, 2, `a run asked for ${delay} microtasks after the first pass read the queue made no pass of its own`);
  }
});
