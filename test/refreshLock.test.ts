// The refresh lock (docs/behaviour.md, "Refresh": one refresh per expiry across every tab and
// worker; "Bounds on every wait"). Node 20 has no `navigator.locks`, so the tests install a fake
// Web Locks manager that really serialises: one FIFO queue per name, a wait that `{ signal }`
// aborts (it rejects with the signal's reason and leaves the queue), and a release when the
// callback's promise settles, errors included (Web Locks API, "request a lock"). The holder keeps the
// lock until what its run wrote has landed (`landed`).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { LOCK_WAIT_MS, RefreshLock } from '../src/sw/refreshLock.js';
import { deferred, FakeLocks, installFakeLocks, removeFakeLocks } from './fakes.js';

const NAME = 'storefront-auth:refresh:https://shop.example';
let locks: FakeLocks;

function installLocks(): void {
  locks = installFakeLocks();
}

const removeLocks = removeFakeLocks;


const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Lets every queued task and microtask run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};
const neverGivesUp = (): Promise<never> => assert.fail('gave up while the lock was free');

after(removeLocks);

describe('the fake navigator.locks itself', () => {
  before(installLocks);
  afterEach(() => assert.deepEqual(locks.state(NAME), { held: false, waiting: 0 }, 'a test left the lock taken'));

  it('grants in request order and one at a time', async () => {
    const order: string[] = [];
    const gates = [deferred<void>(), deferred<void>(), deferred<void>()];
    const runs = gates.map((gate, i) =>
      locks.request(NAME, { mode: 'exclusive' }, async () => {
        order.push(`start ${i}`);
        await gate.promise;
        order.push(`end ${i}`);
      }),
    );
    await settle();
    assert.deepEqual(order, ['start 0']);
    gates[2]?.resolve();
    gates[1]?.resolve();
    await settle();
    assert.deepEqual(order, ['start 0']);
    gates[0]?.resolve();
    await Promise.all(runs);
    assert.deepEqual(order, ['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('an aborted wait rejects with the reason and leaves the queue; the holder is untouched', async () => {
    const holder = locks.holdElsewhere(NAME);
    await holder.taken;
    const controller = new AbortController();
    const waiting = locks.request(NAME, { signal: controller.signal }, () => assert.fail('granted after abort'));
    await settle();
    assert.deepEqual(locks.state(NAME), { held: true, waiting: 1 });
    const reason = new DOMException('gave up', 'TimeoutError');
    controller.abort(reason);
    await assert.rejects(waiting, (error) => error === reason);
    assert.deepEqual(locks.state(NAME), { held: true, waiting: 0 });
    holder.release();
    await settle();
  });

  it('releases when the callback rejects, and passes the rejection on', async () => {
    await assert.rejects(
      locks.request(NAME, () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await locks.request(NAME, () => 'next'), 'next');
  });
});

describe('RefreshLock with navigator.locks', () => {
  before(installLocks);
  afterEach(() => assert.deepEqual(locks.state(NAME), { held: false, waiting: 0 }, 'a test left the lock taken'));

  it('waits 15 s by default', () => assert.equal(LOCK_WAIT_MS, 15_000));

  it('asks for the named lock, exclusive, with a signal that bounds the wait', async () => {
    const sent = locks.requests.length;
    assert.equal(await new RefreshLock<string>(NAME).run(async () => 'done', neverGivesUp), 'done');
    assert.deepEqual(locks.requests.slice(sent), [{ name: NAME, mode: 'exclusive', signalled: true }]);
  });

  it('concurrent runs in one instance share one flight', async () => {
    const lock = new RefreshLock<string>(NAME);
    const gate = deferred<string>();
    let criticalRuns = 0;
    const critical = (): Promise<string> => {
      criticalRuns++;
      return gate.promise;
    };
    const sent = locks.requests.length;
    const runs = Array.from({ length: 10 }, () => lock.run(critical, neverGivesUp));
    await settle();
    assert.equal(criticalRuns, 1);
    assert.equal(locks.requests.length - sent, 1, 'one lock request for one flight');
    gate.resolve('rotated');
    assert.deepEqual(await Promise.all(runs), Array(10).fill('rotated'));
    assert.equal(criticalRuns, 1);
  });

  it('a run after the flight settled starts a new one', async () => {
    const lock = new RefreshLock<number>(NAME);
    let count = 0;
    const critical = async (): Promise<number> => ++count;
    assert.equal(await lock.run(critical, neverGivesUp), 1);
    assert.equal(await lock.run(critical, neverGivesUp), 2);
  });

  it('two instances (two workers) never overlap their critical sections', async () => {
    const workers = [new RefreshLock<number>(NAME), new RefreshLock<number>(NAME), new RefreshLock<number>(NAME)];
    let inside = 0;
    let mostInside = 0;
    const entered: number[] = [];
    const critical = (id: number) => async (): Promise<number> => {
      inside++;
      mostInside = Math.max(mostInside, inside);
      entered.push(id);
      // Hold the lock across several tasks, as a grant in flight does.
      await sleep(5);
      await settle();
      inside--;
      return id;
    };
    const runs = workers.map((worker, id) => worker.run(critical(id), neverGivesUp));
    assert.deepEqual(await Promise.all(runs), [0, 1, 2]);
    assert.equal(mostInside, 1, 'two critical sections overlapped');
    assert.deepEqual(entered, [0, 1, 2]);
  });

  it('the holder releases on error: the error reaches the callers and the next run gets the lock', async () => {
    const first = new RefreshLock<string>(NAME);
    const second = new RefreshLock<string>(NAME);
    const failing = first.run(async () => {
      await settle();
      throw new Error('storage broke');
    }, neverGivesUp);
    const joined = first.run(neverGivesUp, neverGivesUp);
    const waiting = second.run(async () => 'second got the lock', neverGivesUp);
    await assert.rejects(failing, /storage broke/);
    await assert.rejects(joined, /storage broke/);
    assert.equal(await waiting, 'second got the lock');
    assert.equal(await first.run(async () => 'first again', neverGivesUp), 'first again');
  });

  it('a waiter gives up after waitMs and runs gaveUp without the lock', async () => {
    const holder = locks.holdElsewhere(NAME);
    await holder.taken;
    const lock = new RefreshLock<string>(NAME, 40);
    let gaveUpWhileHeld: boolean | null = null;
    const started = Date.now();
    const result = await lock.run(
      () => assert.fail('ran critical without the lock'),
      async () => {
        gaveUpWhileHeld = locks.state(NAME).held;
        // The wait has left the queue: nothing of ours would run when the holder lets go.
        assert.equal(locks.state(NAME).waiting, 0);
        return 'from storage';
      },
    );
    const waited = Date.now() - started;
    assert.equal(result, 'from storage');
    assert.equal(gaveUpWhileHeld, true);
    assert.ok(waited >= 35, `gave up after ${waited} ms, before the wait`);
    assert.ok(waited < 1_000, `gave up after ${waited} ms`);
    holder.release();
    await settle();
  });

  it('a waiter granted within waitMs runs critical, not gaveUp, however long critical then takes', async () => {
    const holder = locks.holdElsewhere(NAME);
    await holder.taken;
    const lock = new RefreshLock<string>(NAME, 60);
    const run = lock.run(async () => {
      // Past the wait: once granted, the holder runs to its end.
      await sleep(100);
      return 'under the lock';
    }, () => assert.fail('gave up after the lock was granted'));
    await sleep(10);
    holder.release();
    assert.equal(await run, 'under the lock');
  });

  it('the holder answers its callers when its run settles, and lets go once what it wrote has landed', async () => {
    const written = deferred<void>();
    const first = new RefreshLock<string>(NAME, LOCK_WAIT_MS, () => written.promise);
    const second = new RefreshLock<string>(NAME);
    const order: string[] = [];
    // The run answers from memory while its write is still on its way (a write past the storage bound).
    const run = first.run(async () => 'answered', neverGivesUp);
    const waiting = second.run(async () => (order.push('second ran'), 'second'), neverGivesUp);
    assert.equal(await run, 'answered');
    await settle();
    assert.deepEqual(locks.state(NAME), { held: true, waiting: 1 }, 'let go before the write landed');
    assert.equal(order.length, 0, 'the second ran before the write landed');
    order.push('write landed');
    written.resolve();
    assert.equal(await waiting, 'second');
    assert.deepEqual(order, ['write landed', 'second ran']);
  });

  it('settled() resolves after the run in flight, however it ended, and at once when none is', async () => {
    const lock = new RefreshLock<string>(NAME);
    await lock.settled();

    for (const ending of ['resolve', 'reject'] as const) {
      const gate = deferred<string>();
      const run = lock.run(() => gate.promise, neverGivesUp);
      run.catch(() => {});
      let isSettled = false;
      const settled = lock.settled().then(() => (isSettled = true));
      await settle();
      assert.equal(isSettled, false, `settled before the run (${ending}) ended`);
      if (ending === 'resolve') gate.resolve('ok');
      else gate.reject(new Error('failed'));
      await settled;
      assert.equal(isSettled, true);
    }
  });

  it('settled() also waits for a waiter that ends by giving up', async () => {
    const holder = locks.holdElsewhere(NAME);
    await holder.taken;
    const lock = new RefreshLock<string>(NAME, 30);
    let gaveUp = false;
    void lock.run(neverGivesUp, async () => {
      await sleep(10);
      gaveUp = true;
      return 'gave up';
    });
    await lock.settled();
    assert.equal(gaveUp, true);
    holder.release();
    await settle();
  });
});

describe('RefreshLock without navigator.locks', () => {
  before(removeLocks);

  it('still single-flights concurrent runs in one instance', async () => {
    assert.equal((globalThis as { navigator?: { locks?: unknown } }).navigator?.locks, undefined);
    const lock = new RefreshLock<string>(NAME);
    const gate = deferred<string>();
    let criticalRuns = 0;
    const runs = Array.from({ length: 5 }, () =>
      lock.run(() => {
        criticalRuns++;
        return gate.promise;
      }, neverGivesUp),
    );
    await settle();
    assert.equal(criticalRuns, 1);
    gate.resolve('done');
    assert.deepEqual(await Promise.all(runs), Array(5).fill('done'));
    assert.equal(await lock.run(async () => 'again', neverGivesUp), 'again');
  });

  it('passes an error on to every caller of the flight and starts afresh after it', async () => {
    const lock = new RefreshLock<string>(NAME);
    const runs = [lock.run(() => Promise.reject(new Error('down')), neverGivesUp), lock.run(neverGivesUp, neverGivesUp)];
    for (const run of runs) await assert.rejects(run, /down/);
    let isSettled = false;
    await lock.settled().then(() => (isSettled = true));
    assert.equal(isSettled, true);
    assert.equal(await lock.run(async () => 'fine', neverGivesUp), 'fine');
  });
});

describe('RefreshLock where navigator.locks refuses every request', () => {
  const refusing = (name: string) => () => Promise.reject(new DOMException('Access to the Locks API is denied in this context.', name));
  after(removeLocks);

  it('runs critical as without Web Locks when the refusal is not the wait running out (a context denied the Locks API)', async () => {
    Object.defineProperty(globalThis, 'navigator', { value: { locks: { request: refusing('SecurityError') } }, configurable: true, writable: true });
    const lock = new RefreshLock<string>(NAME);
    const gate = deferred<string>();
    let criticalRuns = 0;
    const runs = Array.from({ length: 3 }, () =>
      lock.run(() => {
        criticalRuns++;
        return gate.promise;
      }, neverGivesUp),
    );
    await settle();
    assert.equal(criticalRuns, 1, 'still one flight');
    gate.resolve('refreshed');
    assert.deepEqual(await Promise.all(runs), Array(3).fill('refreshed'));
    assert.equal(await lock.run(async () => 'and the next', neverGivesUp), 'and the next');
  });

  it('gives up as after a stuck holder when the wait is what ended (a TimeoutError, or an AbortError from an older engine)', async () => {
    for (const name of ['TimeoutError', 'AbortError']) {
      Object.defineProperty(globalThis, 'navigator', { value: { locks: { request: refusing(name) } }, configurable: true, writable: true });
      const lock = new RefreshLock<string>(NAME);
      assert.equal(await lock.run(() => assert.fail(`ran critical after a ${name}`), async () => 'gave up'), 'gave up', name);
    }
  });
});
