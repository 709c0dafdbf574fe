/**
 * `WriteReplayer.run` joins the pass in flight and asks for one more after it, which sees what was
 * queued meanwhile. A run asked for in the moment between the pass loop's last look at that request
 * and the pass settling joined a pass that had already ended: its pass never came, and a write queued
 * just then waited for the next wake-up (a page's `online`, the next request). Found by the review of
 * the refresh lock, whose earlier settling once put a replay test's `run` in that moment.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import type { QueuedWrite } from '../src/sw/queuedWrite.js';
import { WriteReplayer, type ReplayerContext } from '../src/sw/writeReplayer.js';
import { WRITE_LIFETIME_MS } from '../src/sw/writeSettlement.js';

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

// The replay's wait for a cart's assignment (`ready`) may outlast the pass's look at the head's age: a
// write that reaches its 24 h (Spree's idempotency window) meanwhile is given up as expired, never
// sent after its window with its old key.
test('a write whose 24 h end during the wait for an assignment is dropped as expired, not sent after its window', async () => {
  let clock = 1_800_000_000_000;
  const write: QueuedWrite = {
    seq: 1,
    id: 'w-1',
    baseUrl: 'https://lifetime.example/store',
    method: 'PATCH',
    url: 'https://lifetime.example/store/api/v3/store/carts/cart_1/items/li_2',
    headers: [['content-type', 'application/json']],
    body: null,
    credentials: 'same-origin',
    key: 'k/e+y"\\1',
    cart: 'R1',
    signInId: null,
    createdAt: clock - WRITE_LIFETIME_MS + 3_000,
    attempts: 0,
    notBefore: 0,
  };
  let stored: QueuedWrite[] = [write];
  const held: Credentials = { cart: { token: 't/o+k"\\n', number: 'R1' }, session: null, backoff: null };
  const sent: string[] = [];
  const settled: string[] = [];
  const replayer = new WriteReplayer({
    queue: {
      list: async () => stored,
      replace: async (next: QueuedWrite) => {
        const at = stored.findIndex((w) => w.id === next.id);
        if (at < 0) return false;
        stored = stored.map((w, i) => (i === at ? next : w));
        return true;
      },
      remove: async (gone: QueuedWrite) => {
        const before = stored.length;
        stored = stored.filter((w) => w.id !== gone.id);
        return stored.length < before;
      },
    },
    held: async () => held,
    send: async (w: QueuedWrite) => (sent.push(`${w.id} at ${clock - w.createdAt} ms old`), { kind: 'answered', status: 200, retryAfterMs: null }),
    // An assignment under way: the wait lasts 8 s.
    ready: async () => void (clock += 8_000),
    repeatable: () => true,
    reachable: async () => true,
    settled: (detail: { outcome: string }) => void settled.push(detail.outcome),
    online: () => true,
    now: () => clock,
    newKey: () => 'n/e+w"\\k',
    wakeIn: () => {},
    lockName: 'storefront-auth:test:lifetime',
    log: undefined,
  } as unknown as ReplayerContext);
  await replayer.run();
  assert.deepEqual(sent, [], 'sent after its 24 h');
  assert.deepEqual(settled, ['expired']);
});
