/**
 * One page request's waits for storage (docs/behaviour.md, "Bounds on every wait"): its reads
 * together wait at most one bound, and its writes another, however many steps take them (the
 * decision, the load before sending, a refresh's re-read and writes, the write of what the answer
 * brought). With the 2 s bound, 4 s in all. A step that finds its kind spent is answered from
 * memory at once. A request that joins another's refresh sits through that refresh's waits, which
 * are bounded by the first request's allowance and charged to its own as well (`carry`).
 */

/** What a wait is for: reads and writes each have their own allowance. */
export type StorageWait = 'read' | 'write';

/** The allowance left to one request, spent by each wait as long as it lasted. */
export class StorageBudget {
  readonly #left: Record<StorageWait, number>;
  /** The allowances of requests waiting on this one's waits, and since when each waits. */
  readonly #riders = new Map<StorageBudget, number>();

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
    for (const [rider, since] of this.#riders) rider.spend(kind, Math.min(ms, performance.now() - since));
  }

  /**
   * Charges `rider` too, until the returned function is called, with as much of each wait spent here
   * as it sat through. For a request that joins a refresh in flight: that refresh's storage waits
   * keep it waiting as well, so they come out of its one allowance too, and its own steps after the
   * refresh wait only for what is left. The refresh itself stays bounded by this allowance alone.
   */
  carry(rider: StorageBudget): () => boolean {
    this.#riders.set(rider, performance.now());
    return () => this.#riders.delete(rider);
  }
}

/**
 * `work`, or what `instead` gives once the wait `budget` has left for this kind has passed without
 * it settling; the wait spends the budget. The work goes on either way: a read that lands late still
 * fills what it fills, a write still lands.
 */
export function boundedWait<T>(work: Promise<T>, instead: () => T, kind: StorageWait, budget: StorageBudget): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const started = performance.now();
  const waited = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(instead()), budget.left(kind))));
  return Promise.race([work.finally(() => clearTimeout(timer)), waited]).finally(() => budget.spend(kind, performance.now() - started));
}
