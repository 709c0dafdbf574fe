/**
 * The site's data cleared while the worker uses IndexedDB, as the storage tests do it with
 * fake-indexeddb: an opener that shows the test its connection and the transactions made on it, and
 * what the browser then does to them.
 */
import { forceCloseDatabase as forceClose } from 'fake-indexeddb';
import { deleteDB, unwrap } from 'idb';
import { databaseOpener, DATABASE_NAME, type StorageHooks } from '../src/sw/credentialStorage.js';

/**
 * `databaseOpener(hooks)`, telling the test the raw connection it last handed out and the
 * transactions made on it, so that the test can do to them what the browser does.
 */
export function watchedOpener(ours: StorageHooks) {
  const shared = databaseOpener(ours);
  const seen = { db: null as IDBDatabase | null, transactions: [] as IDBTransaction[] };
  const open: typeof shared = async (closed) => {
    const db = await shared(closed);
    const raw = unwrap(db);
    if (seen.db !== raw) {
      seen.db = raw;
      const transaction = raw.transaction.bind(raw);
      raw.transaction = ((...args: Parameters<IDBDatabase['transaction']>) => {
        const tx = transaction(...args);
        seen.transactions.push(tx);
        return tx;
      }) as IDBDatabase['transaction'];
    }
    return db;
  };
  return { open, seen };
}

/**
 * What the browser does when the site's data is cleared (Clear-Site-Data: "storage", DevTools,
 * settings), in IndexedDB 3.0's order: the connection's transactions abort with AbortError, the
 * connection is closed (its `close` event fires once they have finished), and the database is deleted.
 */
export function clearSiteData(db: IDBDatabase, transactions: IDBTransaction[]): Promise<void> {
  for (const tx of transactions) {
    try {
      tx.abort();
    } catch {
      // Finished already.
    }
  }
  forceCloseDatabase(db);
  return deleteDB(DATABASE_NAME);
}

/** fake-indexeddb's forced close (its typings ask for the IDBDatabase class, its code takes a connection). */
const forceCloseDatabase = forceClose as unknown as (db: IDBDatabase) => void;
