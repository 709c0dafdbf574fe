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

/** What the worker does when another context takes the database away. */
export interface StorageHooks {
  /** The database was deleted (the user cleared the site's data) or closed by the browser: what the memory copy holds may be gone from disk. */
  lost(): void;
  /**
   * A newer release wants to upgrade the schema. Resolves once this worker's writes in flight have
   * landed, so the upgrade carries them over; the memory copy stays right, as upgrades keep records.
   */
  superseded(): Promise<void>;
}

/** IndexedDB storage for `baseUrl`. The database opens on first use, and again after it was taken away. */
export function indexedDbStorage(baseUrl: string, hooks: StorageHooks): CredentialStorage {
  let connection: Promise<IDBPDatabase<Schema>> | null = null;
  const open = (): Promise<IDBPDatabase<Schema>> =>
    (connection ??= openDB<Schema>(DATABASE_NAME, SCHEMA_VERSION, {
      // One step per schema version, from the version on disk: a release adds its step and never
      // edits an earlier one, so a database of any earlier release upgrades with its records.
      upgrade(db, oldVersion) {
        if (oldVersion < 1) db.createObjectStore(STORE, { keyPath: 'baseUrl' });
      },
      // Close so that the deletion or upgrade can go ahead; an upgrade waits for our writes first.
      blocking(_version, newVersion) {
        const closing = connection;
        const close = (): void => {
          void closing?.then((db) => db.close());
          if (connection === closing) connection = null;
        };
        if (newVersion === null) {
          close();
          hooks.lost();
        } else {
          // Closed whatever happens: an unclosed connection would block the newer release for good.
          void hooks.superseded().then(close, close);
        }
      },
      terminated() {
        connection = null;
        hooks.lost();
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
