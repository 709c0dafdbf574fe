/**
 * Where queued writes wait between worker runs: the `writes` store of the `storefront-auth`
 * database (credentialStorage.ts opens it and owns its schema), one record per write, keyed by
 * IndexedDB's key generator, so a base URL's writes read back in the order they were made. Each
 * change is one transaction that reads and writes together (the bound, a replacement only while the
 * write is still there), and resolves once the transaction's `done` has: two workers of the origin
 * never queue past the bound, nor bring back a write the other removed.
 *
 * Only idb's core is used (transactions, `tx.store`, `index`, `tx.done`), as in credentialStorage.ts.
 */
import type { IDBPTransaction } from 'idb';
import { onConnection, WRITES_BY_BASE_URL, WRITES_STORE, type DatabaseOpener } from './credentialStorage.js';
import type { QueuedWrite } from './queuedWrite.js';

/** Durable storage of one base URL's queued writes. */
export interface WriteStorage {
  /** The writes, oldest first. */
  list(): Promise<QueuedWrite[]>;
  count(): Promise<number>;
  /** Stores `write` behind the others: the write as stored (with its `seq`) and the count after, or `null` when `max` are queued already. */
  add(write: QueuedWrite, max: number): Promise<{ write: QueuedWrite; count: number } | null>;
  /** Replaces a stored write by its `seq` and `id`; false when it is gone (settled elsewhere meanwhile, or its database deleted). */
  replace(write: QueuedWrite): Promise<boolean>;
  /**
   * Removes a stored write: the count after, or `null` when it was gone already, or, with
   * `unlessSending`, is marked as on its way (by any worker since it was read), which its answer settles.
   */
  remove(write: QueuedWrite, unlessSending?: boolean): Promise<number | null>;
}

/** The writes store for `baseUrl`, on `open`'s connection. */
export function indexedDbWrites(baseUrl: string, open: DatabaseOpener): WriteStorage {
  // One transaction per change, made again on a new connection when the browser's forced close cut
  // it off (onConnection); its `done` is awaited with `use`, so an abort is never left unobserved.
  const run = <T, Mode extends IDBTransactionMode>(mode: Mode, use: (tx: IDBPTransaction<unknown, [typeof WRITES_STORE], Mode>) => Promise<T>) =>
    onConnection(open, async (db) => {
      const tx = db.transaction(WRITES_STORE, mode);
      return (await Promise.all([use(tx), tx.done]))[0];
    });
  // A deleted database's key generator starts again, so a `seq` read before the deletion may name a
  // write queued after it: the write is the one under its `seq` only with its `id` (a random UUID).
  const stored = async (tx: IDBPTransaction<unknown, [typeof WRITES_STORE], 'readwrite'>, write: QueuedWrite) => {
    const found = write.seq === undefined ? undefined : ((await tx.store.get(write.seq)) as QueuedWrite | undefined);
    return found?.id === write.id ? found : undefined;
  };
  return {
    // An index lists records of one key in the order of their primary keys: the queue's order.
    list: () => run('readonly', (tx) => tx.store.index(WRITES_BY_BASE_URL).getAll(baseUrl) as Promise<QueuedWrite[]>),
    count: () => run('readonly', (tx) => tx.store.index(WRITES_BY_BASE_URL).count(baseUrl)),
    add: (write, max) =>
      run('readwrite', async (tx) => {
        const before = await tx.store.index(WRITES_BY_BASE_URL).count(baseUrl);
        if (before >= max) return null;
        // No `seq`: the key generator gives the next one, after every key it gave before.
        const { seq: _none, ...record } = { ...write, baseUrl };
        return { write: { ...record, seq: (await tx.store.add(record)) as number }, count: before + 1 };
      }),
    replace: (write) =>
      run('readwrite', async (tx) => {
        const there = !!(await stored(tx, write));
        if (there) await tx.store.put(write);
        return there;
      }),
    remove: (write, unlessSending) =>
      run('readwrite', async (tx) => {
        const found = await stored(tx, write);
        const there = !!found && !(unlessSending && found.sending);
        if (there) await tx.store.delete(write.seq as number);
        const count = await tx.store.index(WRITES_BY_BASE_URL).count(baseUrl);
        return there ? count : null;
      }),
  };
}

/** Queued writes that last as long as the worker (tests, and a worker whose database cannot hold them). */
export function memoryWrites(): WriteStorage {
  const writes: QueuedWrite[] = [];
  let next = 1;
  const at = (write: QueuedWrite): number => writes.findIndex((stored) => stored.seq === write.seq);
  return {
    list: () => Promise.resolve(writes.map((write) => ({ ...write }))),
    count: () => Promise.resolve(writes.length),
    add(write, max) {
      if (writes.length >= max) return Promise.resolve(null);
      const stored = { ...write, seq: next++ };
      writes.push(stored);
      return Promise.resolve({ write: { ...stored }, count: writes.length });
    },
    replace(write) {
      const index = at(write);
      if (index >= 0) writes[index] = { ...write };
      return Promise.resolve(index >= 0);
    },
    remove(write, unlessSending) {
      const index = at(write);
      const there = index >= 0 && !(unlessSending && writes[index]?.sending);
      if (there) writes.splice(index, 1);
      return Promise.resolve(there ? writes.length : null);
    },
  };
}
