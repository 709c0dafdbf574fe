/**
 * Sends the queued writes, in the order they were made, one at a time, by one worker at a time
 * across every tab and worker of the origin: the refresh lock's pattern and class (refreshLock.ts),
 * a Web Lock per base URL around each pass and one pass in flight per worker. Each step reads the
 * queue's head from storage again, so a pass sees what other workers queued or settled meanwhile,
 * and settles it by writeSettlement.ts: a write that failed stops the pass (the writes behind it
 * wait, in order) until its back-off ends or the network returns.
 *
 * Promise rules: a pass releases the lock on every path (Web Locks release when the callback's
 * promise settles, or the worker dies); `run` rejects only when storage failed, and its callers
 * handle that.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import type { WriteSettled } from '../shared/writeEvents.js';
import type { Credentials } from './credentialStorage.js';
import type { QueuedWrite } from './queuedWrite.js';
import { RefreshLock } from './refreshLock.js';
import { belongsTo } from './writeIdentity.js';
import type { WriteQueue } from './writeQueue.js';
import { backoffLeftMs, isExpired, settle, type Attempt } from './writeSettlement.js';

/** How long a worker waits for another context's pass before leaving the writes to it. */
export const REPLAY_LOCK_WAIT_MS = 15_000;

/**
 * How long after an attempt that a report of the network's return started, and that failed, later
 * reports are taken for the same return. Every tab reports one return, each a moment after the
 * other: unbounded, each report would send the write again at once, and each failure would double
 * its back-off (three tabs, and a first attempt that met a network not quite back: 20 s, not 5 s).
 * Shorter than the first back-off, so that a network that drops and returns again is still a return.
 */
export const SAME_RETURN_MS = 2_000;

/**
 * A wait for a cart's assignment (`ReplayerContext.ready`) at least this long is long enough for the
 * network to have gone since the pass looked: the browser's report is read again after it.
 */
export const READY_LOOK_AGAIN_MS = 1_000;

/** What the replayer needs; I/O is handed in. */
export interface ReplayerContext {
  queue: WriteQueue;
  /** The credentials held now. */
  held: () => Promise<Credentials>;
  /** Sends `write` as a page request would go now; `null` when, once a due refresh was made, it no longer belongs to what is held. */
  send: (write: QueuedWrite) => Promise<Attempt | null>;
  /** Resolves once `write` may go: no assignment of the cart it would go with is under way (offlineWrites.ts). */
  ready: (write: QueuedWrite) => Promise<void>;
  /** True when a second attempt at `write` cannot apply it twice: it carries a key, or it sets rather than adds. */
  repeatable: (write: QueuedWrite) => boolean;
  /** True when the server answers at all (outbound.ts, `reachable`). */
  reachable: () => Promise<boolean>;
  /** Reports a write settled: removed from the queue here, and by no other context. */
  settled: (detail: WriteSettled) => void;
  /** What the browser reports: `navigator.onLine`. */
  online: () => boolean;
  now: () => number;
  newKey: () => string;
  /** Runs `wake` once `ms` have passed, replacing an earlier call's; the worker's timer. */
  wakeIn: (ms: number, wake: () => void) => void;
  lockName: string;
  log: ((message: string) => void) | undefined;
}

/** One base URL's replays. */
export class WriteReplayer {
  readonly #context: ReplayerContext;
  /** The refresh lock's class: a Web Lock whose wait has a bound, and one holder per worker. */
  readonly #lock: RefreshLock<boolean>;
  #running: Promise<boolean> | null = null;
  /** True when a pass was asked for while one runs. */
  #again = false;
  /**
   * In the order they happened here: when a page last saw the network return, and when a write last
   * failed. The back-off is passed over while the network's return is the later, so that the tabs'
   * many reports of one return send a write at once, not again right after it failed.
   */
  #events = 0;
  #onlineAt = 0;
  #failedAt = 0;
  /** The clock when an attempt made on a report of the network's return last failed and was counted. */
  #returnFailedAtMs = -Infinity;
  /** Set by `settled`: the pass in flight ends after the write it is sending. */
  #stopping = false;

  constructor(context: ReplayerContext, lockWaitMs = REPLAY_LOCK_WAIT_MS) {
    this.#context = context;
    this.#lock = new RefreshLock(context.lockName, lockWaitMs);
  }

  /**
   * Sends what is due; `online`: a page saw the network return, and the head goes whatever its
   * back-off, unless it is a report of a return whose attempt has just failed (`SAME_RETURN_MS`).
   * Joins a pass in flight here, and asks for one more after it, which sees what was queued
   * meanwhile. Resolves with whether writes are left waiting.
   */
  run(online = false): Promise<boolean> {
    if (online && this.#context.now() - this.#returnFailedAtMs >= SAME_RETURN_MS) this.#onlineAt = ++this.#events;
    this.#again = true;
    return (this.#running ??= this.#passes());
  }

  /**
   * Resolves once the pass in flight here, if any, has settled the write it is sending, and stops
   * there: the database is wanted by a newer release, which must not find a write this one has
   * already sent (credentialStorage.ts, `settleWrites`).
   */
  settled(): Promise<void> {
    if (this.#running === null) return Promise.resolve();
    this.#stopping = true;
    this.#again = false;
    return this.#running.then(
      () => {},
      () => {},
    );
  }

  /**
   * Drops, sending nothing, the writes that no longer belong to what is held, marked ones too: under
   * the lock, which a live sender holds until it has settled its write, so a mark found then is a
   * stopped worker's. A pass in flight here drops them itself as it meets them. Rejects where Web
   * Locks are missing or refuse the worker: a live sender cannot be told from a stopped one then, and
   * a marked write is left to the next pass.
   */
  async drop(): Promise<void> {
    if (this.#running === null)
      await navigator.locks.request(this.#context.lockName, { signal: AbortSignal.timeout(REPLAY_LOCK_WAIT_MS) }, async () => {
        for (const write of await this.#context.queue.list()) if (!belongsTo(write, await this.#context.held())) await this.#settled(write, { outcome: 'dropped' });
      });
  }

  async #passes(): Promise<boolean> {
    let left = false;
    try {
      while (this.#again) {
        this.#again = false;
        // Where another context holds the lock for the whole wait, the writes are its to send.
        left = await this.#lock.run(
          () => this.#pass(),
          () => Promise.resolve(true),
        );
      }
    } finally {
      this.#stopping = false;
      // Cleared as the loop ends, not once the pass's promise has settled a few microtasks later: a
      // run asked for in between would join a pass that no longer looks, and its pass never come.
      this.#running = null;
    }
    return left;
  }

  async #pass(): Promise<boolean> {
    const context = this.#context;
    const { queue, log } = context;
    for (;;) {
      if (this.#stopping) return true;
      const [head] = await queue.list();
      if (head === undefined) return false;
      const at = context.now();
      // A page saw the network return since the last failure here: that report outranks this worker's
      // own `navigator.onLine`, which may not have caught up yet, and the head's back-off.
      const returned = this.#onlineAt > this.#failedAt;
      if (!belongsTo(head, await context.held())) {
        await this.#settled(head, { outcome: 'dropped' });
      } else if (isExpired(head, at)) {
        await this.#settled(head, { outcome: 'expired' });
      } else if (!returned && !context.online()) {
        // Sent when the network returns: a page's `online` message, Background Sync, the next request.
        return true;
      } else if (!returned && backoffLeftMs(head, at) > 0) {
        context.wakeIn(backoffLeftMs(head, at), () => void this.run().catch(() => {}));
        return true;
      } else {
        const repeatable = context.repeatable(head);
        let attempt: Attempt | null;
        if (!repeatable && head.sending === true) {
          // An attempt whose end was never seen may have reached the server: never sent again.
          await this.#settled(head, { outcome: 'expired' });
          continue;
        } else if (!repeatable && !(await context.reachable())) {
          // The browser reports the network's return before it carries requests: a write that cannot
          // be sent twice goes only once the server answers, so that a lost answer means it may have landed.
          attempt = { kind: 'unsent' };
        } else {
          // Any wait for a cart's assignment comes before the mark: a worker stopped in that wait has
          // sent nothing, and the next pass must not take the write for one that may have landed.
          const waitedFrom = context.now();
          await context.ready(head);
          // The wait may outlast what was judged before it: a write that has reached its end meanwhile
          // is given up (looked at again), and one whose network has gone waits for its return.
          if (isExpired(head, context.now())) continue;
          if (context.now() - waitedFrom >= READY_LOOK_AGAIN_MS && !context.online()) return true;
          // Marked first: a drop (a logout in any worker) leaves a write on its way to its answer, and
          // a worker stopped before this attempt ends leaves the next pass the mark.
          if (!(await queue.replace({ ...head, sending: true }))) continue;
          attempt = await this.#send(head);
        }
        // `head`, unmarked: a write kept for another attempt is stored without the mark.
        const settlement = attempt === null ? ({ outcome: 'dropped' } as const) : settle(head, attempt, context.online(), context.now(), repeatable);
        if (settlement.outcome !== 'retry') {
          await this.#settled(head, settlement);
          continue;
        }
        const { write, newKey } = settlement;
        if (DEBUG_BUILD) log?.(`offline writes: ${head.method} ${new URL(head.url).pathname} kept (${attempt?.kind === 'answered' ? attempt.status : 'no answer'}), ${write.attempts} attempts counted`);
        this.#failedAt = ++this.#events;
        const now = context.now();
        // Only a counted failure has a back-off to keep; one this worker made while it saw itself
        // offline cost nothing, and the next report may try again at once.
        if (returned && write.notBefore > now) this.#returnFailedAtMs = now;
        await queue.replace(newKey && write.key !== null ? { ...write, key: context.newKey() } : write);
        // A drop that met it on its way (a logout, a new cart, a login here, whose `drop` leaves it to
        // this pass) found it marked: no longer this shopper's, it is dropped now, unsent, not left counted.
        if (!belongsTo(head, await context.held())) continue;
        if (write.notBefore > now) context.wakeIn(write.notBefore - now, () => void this.run().catch(() => {}));
        return true;
      }
    }
  }

  #send(write: QueuedWrite): Promise<Attempt | null> {
    if (DEBUG_BUILD) this.#context.log?.(`offline writes: replaying ${write.method} ${new URL(write.url).pathname}`);
    return this.#context.send(write);
  }

  async #settled(write: QueuedWrite, { outcome, status }: { outcome: WriteSettled['outcome']; status?: number }): Promise<void> {
    if (DEBUG_BUILD) this.#context.log?.(`offline writes: ${write.method} ${new URL(write.url).pathname} ${outcome}${status === undefined ? '' : ` (${status})`}`);
    if (await this.#context.queue.remove(write)) this.#context.settled(status === undefined ? { id: write.id, outcome } : { id: write.id, outcome, status });
  }
}
