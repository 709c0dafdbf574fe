/**
 * Where the credentials live between worker runs: IndexedDB database `storefront-auth`, one record
 * per base URL (CONTRACT.md). Every write is a read-modify-write in one transaction, so two workers
 * of the origin changing different fields at once never lose each other's change.
 *
 * Promise rules: each write resolves only after its transaction's `done`, so a caller that reports
 * a change has it on disk; a database connection that the browser closes is reopened on next use.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { isRecord } from '../shared/protocol.js';
import type { HeldCart } from './cartDocument.js';
import type { Session } from './tokenResponse.js';

/** Everything the worker holds for one base URL. */
export interface Credentials {
  cart: HeldCart | null;
  session: Session | null;
}

/** Holding nothing. */
export const NO_CREDENTIALS: Credentials = Object.freeze({ cart: null, session: null });

/** Durable storage of one base URL's credentials. */
export interface CredentialStorage {
  read(): Promise<Credentials>;
  /** Applies `change` to the stored value atomically and resolves with the stored result. */
  update(change: (previous: Credentials) => Credentials): Promise<Credentials>;
}

/** The database name is part of the contract; the version is the storage schema's. */
export const DATABASE_NAME = 'storefront-auth';
export const SCHEMA_VERSION = 1;
const STORE = 'credentials';

interface StoredRecord extends Credentials {
  baseUrl: string;
}

interface Schema extends DBSchema {
  credentials: { key: string; value: StoredRecord };
}

/**
 * IndexedDB storage for `baseUrl`. The database opens on first use. `onLost` runs when the
 * connection is taken away: the user cleared the site's data, the database was deleted, or a newer
 * worker upgrades the schema; what the memory copy holds may then be gone from disk.
 */
export function indexedDbStorage(baseUrl: string, onLost: () => void = () => {}): CredentialStorage {
  let connection: Promise<IDBPDatabase<Schema>> | null = null;
  const open = (): Promise<IDBPDatabase<Schema>> =>
    (connection ??= openDB<Schema>(DATABASE_NAME, SCHEMA_VERSION, {
      upgrade(db) {
        db.createObjectStore(STORE, { keyPath: 'baseUrl' });
      },
      // A newer worker wants to upgrade the schema: let it, and reopen on next use.
      blocking() {
        void connection?.then((db) => db.close());
        connection = null;
        onLost();
      },
      terminated() {
        connection = null;
        onLost();
      },
    }).catch((error: unknown) => {
      connection = null;
      throw error;
    }));

  return {
    async read() {
      return readRecord(await (await open()).get(STORE, baseUrl));
    },
    async update(change) {
      const tx = (await open()).transaction(STORE, 'readwrite');
      const next = change(readRecord(await tx.store.get(baseUrl)));
      await Promise.all([tx.store.put({ baseUrl, cart: next.cart, session: next.session }), tx.done]);
      return next;
    },
  };
}

/** Storage that lasts as long as the worker: the fallback when IndexedDB cannot be used. */
export function memoryStorage(initial: Credentials = NO_CREDENTIALS): CredentialStorage {
  let value = initial;
  return {
    read: () => Promise.resolve(value),
    update: (change) => Promise.resolve((value = change(value))),
  };
}

/** Reads a stored record defensively: a field of the wrong shape counts as absent. */
export function readRecord(record: unknown): Credentials {
  if (!isRecord(record)) return NO_CREDENTIALS;
  return {
    cart: pick<HeldCart>(record['cart'], { token: 'string', number: 'string' }),
    session: pick<Session>(record['session'], { accessToken: 'string', refreshToken: 'string', expiresAt: 'number', lifetimeMs: 'number' }),
  };
}

/** A copy of `value` with exactly the fields of `shape`, each of the `typeof` it names; else `null`. */
function pick<T>(value: unknown, shape: Record<keyof T, 'string' | 'number'>): T | null {
  if (!isRecord(value)) return null;
  const picked: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(shape)) {
    if (typeof value[field] !== type) return null;
    picked[field] = value[field];
  }
  return picked as T;
}
