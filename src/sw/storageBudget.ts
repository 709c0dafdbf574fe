/**
 * One page request's waits for storage (docs/behaviour.md, "Bounds on every wait"): its reads
 * together wait at most one bound, and its writes another, however many steps take them (the
 * decision, the load before sending, a refresh's re-read and writes, the write of what the answer
 * brought). With the 2 s bound, 4 s in all. A step that finds its kind spent is answered from
 * memory at once. A request that joins another's refresh sits through that refresh's waits, which
 * are bounded by the first request's allowance, and each of them holds it as a wait of its own
 * would: charged to its own allowance, and no longer than that has left (`carry`).
 */

/** What a wait is for: reads and writes each have their own allowance. */
export type StorageWait = 'read' | 'write';

/** The allowance left to one request, spent by each wait as long as it lasted. */
export class StorageBudget {
  readonly #left: Record<StorageWait, number>;
  /** The requests waiting on this one's waits, each held by the one under way as by a wait of its own. */
  readonly #riders = new Set<() => void>();
  /** How the last wait begun here holds a rider: on the rider's allowance, `leave` if that runs out first. */
  #wait: ((rider: StorageBudget, leave: () => void) => void) | undefined;

  /** An allowance of `boundMs` for the reads, and as much for the writes. */
  constructor(boundMs: number) {
    this.#left = { read: boundMs, write: boundMs };
  }

  /** How long a wait of this kind may still last, ms. */
  left(kind: StorageWait): number {
    return this.#left[kind];
  }

  /** Charges a wait of this kind that lasted `ms`. */
  spend(kind: StorageWait, ms: number): void {
    this.#left[kind] = Math.max(0, this.#left[kind] - ms);
  }

  /** A wait of this kind begins here, and is spent when `end` settles; each rider waits for it too. */
  begin(kind: StorageWait, end: Promise<unknown>): void {
    const started = performance.now();
    const spent = () => this.spend(kind, performance.now() - started);
    const over = end.then(spent, spent);
    // A rider that leaves does so once its own wait is spent, so that it goes on with the charge made.
    this.#wait = (rider, leave) => void boundedWait<unknown>(over, () => 1, kind, rider).then((gone) => gone && leave());
    for (const ride of this.#riders) ride();
  }

  /**
   * Holds `rider` in each wait here until `run` settles, from the one under way, as a wait of its own
   * would: charged to its allowance for as long as it sat through it, and no longer than that
   * allowance has left. For a request that joins a refresh in flight: that refresh's storage waits
   * keep it waiting as well, so they come out of its one allowance too, and its own steps after the
   * refresh wait only for what is left. Resolves when a wait outlasts what `rider` had left: it is
   * carried no more, and goes on without `run` (from the memory copy, as after a wait of its own).
   * The refresh itself stays bounded by this allowance alone.
   */
  carry(rider: StorageBudget, run: Promise<unknown>): Promise<void> {
    return new Promise((leave) => {
      const ride = (): void =>
        this.#wait?.(rider, () => {
          this.#riders.delete(ride);
          leave();
        });
      this.#riders.add(ride);
      void run.finally(() => this.#riders.delete(ride));
      ride();
    });
  }
}

/**
 * `work`, or what `instead` gives once the wait `budget` has left for this kind has passed without
 * it settling; the wait spends the budget. The work goes on either way: a read that lands late still
 * fills what it fills, a write still lands.
 */
export function boundedWait<T>(work: Promise<T>, instead: () => T, kind: StorageWait, budget: StorageBudget): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const end = Promise.race([work.finally(() => clearTimeout(timer)), new Promise<T>((resolve) => (timer = setTimeout(() => resolve(instead()), budget.left(kind))))]);
  // Begun after its own timer is set: a rider whose allowance runs out with this wait's goes on with
  // what `instead` put in memory. Spent before whoever awaits `end` goes on (`begin` is first to it).
  budget.begin(kind, end);
  return end;
}
