/**
 * The few IndexedDB calls credentialStorage.ts makes, as promises: open with an upgrade and the
 * version-change callbacks, one request's result, one transaction's end. It replaces the `idb`
 * package in the worker (about 1 KB gzip of the standalone worker, most of it idb's proxy of every
 * IndexedDB method), and follows idb's rules where they matter: a request's promise settles in its
 * own success or error event, so a transaction stays active across an `await` of it
 * (IndexedDB 3.0, "transaction lifetime": a request's events run while it is active, and so do the
 * microtasks they queue); a transaction counts as written only once it completes.
 */

/** What the database's other users can do to this connection (idb's `openDB` callbacks, as used). */
export interface OpenCallbacks {
  /** Runs inside the version-change transaction when the database is created or upgraded. */
  upgrade?(db: IDBDatabase, oldVersion: number, transaction: IDBTransaction): void;
  /** Another connection asks for `newVersion`, or (`null`) deletes the database: close this one. */
  blocking?(oldVersion: number, newVersion: number | null): void;
  /** The browser closed the connection abnormally (storage cleared, disk failure). */
  terminated?(): void;
}

/** Opens `name` at `version` (its current version when `undefined`), with the callbacks wired. */
export function openDatabase(name: string, version: number | undefined, callbacks: OpenCallbacks): Promise<IDBDatabase> {
  const request = indexedDB.open(name, version);
  const { upgrade, blocking, terminated } = callbacks;
  if (upgrade !== undefined) {
    request.addEventListener('upgradeneeded', (event) => upgrade(request.result, event.oldVersion, request.transaction as IDBTransaction));
  }
  return requestResult(request).then((db) => {
    if (terminated !== undefined) db.addEventListener('close', () => terminated());
    if (blocking !== undefined) db.addEventListener('versionchange', (event) => blocking(event.oldVersion, event.newVersion));
    return db;
  });
}

/** Settles with `request`'s result or error, in the event that delivers it. */
export function requestResult<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.addEventListener('success', () => resolve(request.result));
    request.addEventListener('error', () => reject(request.error));
  });
}

/** Resolves once `transaction` has committed; rejects when it fails or is aborted. */
export function transactionDone(transaction: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    transaction.addEventListener('complete', () => resolve());
    const fail = (): void => reject(transaction.error ?? new DOMException('AbortError', 'AbortError'));
    transaction.addEventListener('error', fail);
    transaction.addEventListener('abort', fail);
  });
}
