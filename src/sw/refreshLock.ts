/**
 * Exactly one refresh per expiry across every tab and worker of the origin (CONTRACT.md, "Refresh").
 *
 * Two layers: inside one worker, concurrent callers share one in-flight promise; across workers, a
 * Web Lock serialises the holders, and each holder re-reads storage first (the caller's `critical`
 * does), so a worker that waited uses the pair another one already rotated instead of spending a
 * refresh token twice. Web Locks release when the callback's promise settles or the worker dies,
 * so a holder releases on every path, errors included.
 */
export class RefreshLock<T> {
  readonly #name: string;
  #inFlight: Promise<T> | null = null;

  constructor(name: string) {
    this.#name = name;
  }

  /** Runs `critical` under the lock, or joins the run already in flight in this worker. */
  run(critical: () => Promise<T>): Promise<T> {
    if (this.#inFlight !== null) return this.#inFlight;
    const run = this.#acquire(critical).finally(() => {
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

  async #acquire(critical: () => Promise<T>): Promise<T> {
    // Chromium, Firefox and Safari expose Web Locks to service workers; without them the
    // in-worker single flight still holds and the storage re-read narrows the cross-worker window.
    const locks = (globalThis.navigator as Navigator | undefined)?.locks;
    return locks === undefined ? critical() : await locks.request(this.#name, { mode: 'exclusive' }, critical);
  }
}
