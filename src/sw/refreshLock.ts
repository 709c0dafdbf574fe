/**
 * Exactly one refresh per expiry across every tab and worker of the origin (docs/behaviour.md,
 * "Refresh").
 *
 * Two layers: inside one worker, concurrent callers share one in-flight promise; across workers, a
 * Web Lock serialises the holders, and each holder re-reads storage first (the caller's `critical`
 * does), so a worker that waited uses the pair another one already rotated instead of spending a
 * refresh token twice. Web Locks release when the callback's promise settles or the worker dies,
 * so a holder releases on every path, errors included.
 *
 * Waiting has a bound, as every wait does: a holder of ours finishes within the grant's 8 s budget,
 * so a lock held for `LOCK_WAIT_MS` is held by something stuck, and the caller's `gaveUp` decides
 * from storage instead of waiting for ever.
 *
 * A holder answers its callers when its run settles, but lets go only once what it wrote has landed
 * (`landed`): a write that outlasts the storage bound answers from memory and lands later, and a
 * holder that let go before that would leave the next one a re-read queued behind the write, which
 * times out and answers from that worker's memory: the spent pair, or nothing held. `landed` bounds
 * its own wait (sessionRefresher.ts: `LOCK_WAIT_MS`, past which the waiters have given up anyway).
 * A run of the same worker meanwhile goes under that hold, as the lock is still this worker's: it
 * waits for nothing its own request has not, and the hold lasts until its writes have landed too.
 */

/** How long a worker waits for another context's refresh before re-reading storage instead. */
export const LOCK_WAIT_MS = 15_000;

export class RefreshLock<T> {
  readonly #name: string;
  readonly #waitMs: number;
  readonly #landed: () => unknown;
  #inFlight: Promise<T> | null = null;
  /** While this worker holds the lock for its writes to land: adds a run to that hold. */
  #holding: ((run: Promise<T>) => void) | null = null;

  /** `landed`: settles once the writes a run made have landed or failed, or a bounded while has passed; never rejects. */
  constructor(name: string, waitMs = LOCK_WAIT_MS, landed: () => unknown = () => {}) {
    this.#name = name;
    this.#waitMs = waitMs;
    this.#landed = landed;
  }

  /**
   * Runs `critical` under the lock, or joins the run already in flight in this worker. When the lock
   * is not granted within the wait, runs `gaveUp` instead (without the lock).
   */
  run(critical: () => Promise<T>, gaveUp: () => Promise<T>): Promise<T> {
    if (this.#inFlight !== null) return this.#inFlight;
    const run = this.#acquire(critical, gaveUp).finally(() => {
      this.#inFlight = null;
    });
    this.#inFlight = run;
    return run;
  }

  /** Resolves once the run in flight in this worker, if any, has settled, however it ended. */
  settled(): Promise<void> {
    return Promise.resolve(this.#inFlight).then(
      () => {},
      () => {},
    );
  }

  async #acquire(critical: () => Promise<T>, gaveUp: () => Promise<T>): Promise<T> {
    // Chromium, Firefox and Safari expose Web Locks to service workers; without them the
    // in-worker single flight still holds and the storage re-read narrows the cross-worker window.
    const locks = (globalThis.navigator as WorkerNavigator | undefined)?.locks;
    if (locks === undefined) return critical();
    if (this.#holding !== null) {
      const run = critical();
      this.#holding(run);
      return run;
    }
    return new Promise<T>((resolve) => {
      // The signal only bounds the wait: once granted, the holder runs to its end, then holds on
      // while its writes land (above). That hold never rejects, so a refusal caught here is always
      // the wait's.
      locks
        .request(this.#name, { mode: 'exclusive', signal: AbortSignal.timeout(this.#waitMs) }, async () => {
          const run = critical();
          resolve(run);
          const runs = [run];
          this.#holding = (run) => void runs.push(run);
          // Each run under this grant, its writes landed, before the lock goes.
          for (const run of runs) await run.then(this.#landed, this.#landed);
          this.#holding = null;
        })
        .catch((error: unknown) => {
          // Only the bounded wait ending means a holder is stuck. Any other refusal (a context denied
          // the Locks API: Chromium's SecurityError) would refuse every later request too, so the
          // refresh runs as it does without Web Locks rather than never again.
          const name = (error as { name?: unknown } | null)?.name;
          resolve(name === 'TimeoutError' || name === 'AbortError' ? gaveUp() : critical());
        });
    });
  }
}
