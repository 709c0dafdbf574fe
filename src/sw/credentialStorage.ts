/**
 * Where the credentials live between worker runs: IndexedDB database `storefront-auth`, one record
 * per base URL (docs/behaviour.md, "What the worker does to requests": State), beside the offline
 * write queue's store (writeStore.ts). Every write is a read-modify-write in one transaction, so
 * two workers of the origin changing different fields at once never lose each other's change.
 *
 * Promise rules, as idb keeps them (its promises settle in the request's own success or error event,
 * so a transaction stays active across an `await` of one of its requests: IndexedDB 3.0,
 * "transaction lifetime"): each write resolves only after its transaction's `done`, so a caller that
 * reports a change has it on disk; a database connection that the browser closes is reopened on next
 * use, and an operation that its closing cut off is made again on the new one.
 */
import { openDB, type IDBPDatabase, type OpenDBCallbacks } from 'idb';
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { isRecord } from '../shared/protocol.js';
import type { HeldCart } from './dialect.js';
import type { Backoff } from './refreshBackoff.js';
import type { Session } from './tokenResponse.js';

/** Everything the worker holds for one base URL. */
export interface Credentials {
  cart: HeldCart | null;
  session: Session | null;
  /** The refresh back-off, shared by every worker of the origin; `null` when none is due. */
  backoff: Backoff | null;
  /**
   * The idempotency key of a refresh whose answer was lost (a network error, a timeout, a 5xx), so
   * that every retry of that one rotation, from any worker, carries it and the server replays the
   * answer (docs/servers.md, "Every request"). Absent when no refresh is pending.
   */
  refreshKey?: RefreshKey;
  /**
   * The sign-in the session belongs to (signIn.ts): a login starts one, refreshes continue it.
   * Absent for a guest, and for a session an earlier release stored.
   */
  signInId?: string;
  /**
   * The sign-in that took the held cart along from a guest (signIn.ts), the only one a guest's
   * queued write on it is sent under (writeIdentity.ts). Absent while no sign-in took it.
   */
  cartTakenBy?: string;
  /**
   * Until when (the device's clock) the sign-in that took the held cart along may still be assigning
   * it to the user: a guest's queued write on it waits for that in every worker of the origin, not
   * only in the one assigning it (bridgeActions.ts `associated`). Absent once the assignment ended.
   */
  cartAssigningUntil?: number;
}

/** The refresh token a pending rotation spends, and the key its retries carry. */
export interface RefreshKey {
  refreshToken: string;
  key: string;
}

/** Holding nothing. */
export const NO_CREDENTIALS: Credentials = Object.freeze({ cart: null, session: null, backoff: null });

/** Durable storage of one base URL's credentials. */
export interface CredentialStorage {
  read(): Promise<Credentials>;
  /** Applies `change` to the stored value atomically and resolves with the stored result. */
  update(change: (previous: Credentials) => Credentials): Promise<Credentials>;
}

/** The database name is part of the contract; the version is the storage schema's. */
export const DATABASE_NAME = 'storefront-auth';
export const SCHEMA_VERSION = 2;
const STORE = 'credentials';
/** The offline write queue's store (schema 2): one record per queued write, keyed in the order they were made. */
export const WRITES_STORE = 'writes';
/** The writes store's index by base URL, whose entries keep the key's order within one base URL. */
export const WRITES_BY_BASE_URL = 'baseUrl';
/**
 * A record beside the credentials, written by every release's upgrade, naming the schema it
 * upgraded to. It tells a newer storefront-auth schema (which retires this release) from a version
 * bump by anything else on the origin (which does not).
 */
const SCHEMA_KEY = '#schema';

interface StoredRecord extends Credentials {
  baseUrl: string;
}

/** Thrown by storage once a newer storefront-auth schema holds the database: this release lets go. */
export class SupersededError extends Error {
  override readonly name = 'SupersededError';
}

/** What the worker does when another context takes the database away. */
export interface StorageHooks {
  /**
   * The database was deleted (the user cleared the site's data, or an uninstall) or closed by the
   * browser: what the memory copy holds may be gone from disk. `deleted`: nothing is stored any more.
   */
  lost(how: 'deleted' | 'closed'): void;
  /**
   * Another connection asks for a newer version. Resolves once this worker's writes in flight
   * (a refresh) have landed, so that an upgrade carries them over; the connection then closes.
   */
  settleWrites(): Promise<void>;
}

/**
 * Opens the database, sharing one connection among its users until the browser or another context
 * takes it away. `closed`: what an earlier call gave, when its user found the browser taking that
 * connection away: a new one opens.
 */
export type DatabaseOpener = (closed?: Promise<IDBPDatabase>) => Promise<IDBPDatabase>;

/** The connection that the credentials and the write queue share: opened on first use, and again after it was taken away. */
export function databaseOpener(hooks: StorageHooks): DatabaseOpener {
  let connection: Connection = null;
  return (closed) => {
    if (closed === connection) connection = null;
    if (connection !== null) return connection;
    // Forgets this connection only while it is the shared one: one taken away and replaced already stays replaced.
    const drop = (): void => {
      if (connection === mine) connection = null;
    };
    const mine: Promise<IDBPDatabase> = openCurrent(hooks, () => mine, drop).catch((error: unknown) => {
      drop();
      throw error;
    });
    return (connection = mine);
  };
}

/**
 * `use` on `open`'s connection and, when the browser is taking that away (the site's data cleared: a
 * forced close aborts its transactions and refuses new ones, IndexedDB 3.0 "close a database
 * connection"), once more on a new one, which opens behind the deletion. That is no failure of
 * IndexedDB: a change applies to what is stored then, after the deletion nothing, as if made after it.
 * `use` awaits each transaction's `done` with its requests, so an abort is never left unobserved.
 */
export async function onConnection<T>(open: DatabaseOpener, use: (db: IDBPDatabase) => Promise<T>): Promise<T> {
  const opening = open();
  const db = await opening;
  try {
    return await use(db);
  } catch (error) {
    if (!(error instanceof DOMException && (error.name === 'AbortError' || error.name === 'InvalidStateError'))) throw error;
    db.close();
    return use(await open(opening));
  }
}

/** IndexedDB storage for `baseUrl`, on `open`'s connection. */
export function indexedDbStorage(baseUrl: string, hooks: StorageHooks, open: DatabaseOpener = databaseOpener(hooks)): CredentialStorage {
  return {
    read: () =>
      onConnection(open, async (db) => {
        const tx = db.transaction(STORE);
        return readRecord((await Promise.all([tx.store.get(baseUrl), tx.done]))[0]);
      }),
    update: (change) =>
      onConnection(open, async (db) => {
        const tx = db.transaction(STORE, 'readwrite');
        // The put runs in the same transaction: the `get` settles in its success event, while the
        // transaction is still active. Credentials come from readRecord or are spread from ones that
        // did: their fields only. The write counts only once its transaction committed.
        const written = tx.store.get(baseUrl).then((stored) => {
          const next = change(readRecord(stored));
          return tx.store.put({ ...next, baseUrl } satisfies StoredRecord).then(() => next);
        });
        return (await Promise.all([written, tx.done]))[0];
      }),
  };
}

type Connection = Promise<IDBPDatabase> | null;

/**
 * Opens the database at this release's schema, upgrading an older one. A database already at a
 * higher version is opened as it is: a newer storefront-auth schema (its marker says so) retires
 * this release with `SupersededError`; a version some other script set leaves the store as it was,
 * and this release goes on using it.
 */
async function openCurrent(hooks: StorageHooks, own: () => Promise<IDBPDatabase>, drop: () => void): Promise<IDBPDatabase> {
  const callbacks: OpenDBCallbacks<unknown> = {
    // Close so that the deletion or upgrade can go ahead; an upgrade waits for our writes first.
    blocking(_version, newVersion) {
      const close = (): void => {
        void own().then((db) => db.close());
        // The next use opens again, behind the other opener, and sees what it left. Not before:
        // a write in flight must land on this connection, or its open would queue behind the
        // upgrade that waits for this connection to close.
        drop();
      };
      if (newVersion === null) {
        close();
        hooks.lost('deleted');
      } else {
        // Closed whatever happens: an unclosed connection would block the other opener for good.
        void hooks.settleWrites().then(close, close);
      }
    },
    terminated() {
      drop();
      hooks.lost('closed');
    },
  };
  try {
    return await openDB(DATABASE_NAME, SCHEMA_VERSION, {
      ...callbacks,
      // One step per schema version, from the version on disk: a release adds its step and never
      // edits an earlier one, so a database of any earlier release upgrades with its records.
      upgrade(db, oldVersion, _newVersion, transaction) {
        if (oldVersion < 1) db.createObjectStore(STORE, { keyPath: 'baseUrl' });
        if (oldVersion < 2) db.createObjectStore(WRITES_STORE, { keyPath: 'seq', autoIncrement: true }).createIndex(WRITES_BY_BASE_URL, 'baseUrl');
        // Not awaited: the open's promise waits for the upgrade transaction, which fails the open if this put fails.
        void transaction.objectStore(STORE).put({ baseUrl: SCHEMA_KEY, version: SCHEMA_VERSION });
      },
    });
  } catch (error) {
    if (!(error instanceof DOMException && error.name === 'VersionError')) throw error;
  }
  // The database is at a higher version than ours: open it at whatever version it has.
  const db = await openDB(DATABASE_NAME, undefined, callbacks);
  const marker = db.objectStoreNames.contains(STORE) ? await db.transaction(STORE).store.get(SCHEMA_KEY) : undefined;
  if (isRecord(marker) && marker['version'] === db.version) {
    db.close();
    // Only its class is read (heldCredentials.ts): the production build keeps the schema alone.
    throw new SupersededError(DEBUG_BUILD ? `A newer storefront-auth release upgraded the database to schema ${db.version}.` : `schema ${db.version}`);
  }
  return db;
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
  // A session may carry whether its bearer was confirmed and the user a Store API answer described.
  const session = pick<Session>(record['session'], { accessToken: 'string', refreshToken: 'string', expiresAt: 'number', lifetimeMs: 'number' }, { confirmed: (value) => typeof value === 'boolean', user: isRecord });
  const credentials: Credentials = {
    // A Store API cart's paths use its id; a v2 cart has none.
    cart: pick<HeldCart>(record['cart'], { token: 'string', number: 'string' }, { id: (value) => typeof value === 'string' }),
    // An earlier release stored no `confirmed`: its bearer was in use, so it counts as accepted.
    session: session === null ? null : { ...session, confirmed: session.confirmed !== false },
    backoff: pick<Backoff>(record['backoff'], { attempts: 'number', until: 'number' }),
  };
  const refreshKey = pick<RefreshKey>(record['refreshKey'], { refreshToken: 'string', key: 'string' });
  if (refreshKey !== null) credentials.refreshKey = refreshKey;
  // A sign-in is a session's: without one, there is none to name.
  if (session !== null && typeof record['signInId'] === 'string') credentials.signInId = record['signInId'];
  // Kept past the session's end: the cart is still the one that sign-in took.
  if (typeof record['cartTakenBy'] === 'string') credentials.cartTakenBy = record['cartTakenBy'];
  if (typeof record['cartAssigningUntil'] === 'number') credentials.cartAssigningUntil = record['cartAssigningUntil'];
  return credentials;
}

/**
 * A copy of `value` with the fields of `shape`, each of the `typeof` it names, and those of
 * `optional` that pass their check; `null` when a field of `shape` is missing or of another type.
 */
function pick<T>(value: unknown, shape: Record<string, 'string' | 'number'>, optional: Record<string, (field: unknown) => boolean> = {}): T | null {
  if (!isRecord(value)) return null;
  const picked: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(shape)) {
    if (typeof value[field] !== type) return null;
    picked[field] = value[field];
  }
  for (const [field, check] of Object.entries(optional)) if (check(value[field])) picked[field] = value[field];
  return picked as T;
}
