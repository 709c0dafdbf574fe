/**
 * Fakes and assertions shared by the unit tests: a Web Locks manager that really serialises (Node 20
 * has no `navigator.locks`), a deferred promise, the check of a `StorefrontAuthError`, the
 * Store API's JWTs (docs/servers.md, "The JWT and the refresh token"), storage that hangs, and
 * channels that let the test process end.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before } from 'node:test';
import { isStorefrontAuthError } from '../src/shared/errors.js';
import { memoryStorage, NO_CREDENTIALS, type CredentialStorage, type Credentials } from '../src/sw/credentialStorage.js';

interface Waiter {
  granted: boolean;
  grant: () => void;
}

/**
 * A fake `LockManager`, exclusive mode only, which is all the worker asks for. While a request
 * waits, a timer keeps Node's event loop alive, as the fetch event keeps a worker alive: Node's
 * `AbortSignal.timeout` timer does not, and the wait's bound is that timer.
 */
export class FakeLocks {
  readonly #queues = new Map<string, Waiter[]>();
  #keepAlive: ReturnType<typeof setInterval> | null = null;
  /** Every request made, in order, with whether it carried a signal. */
  readonly requests: { name: string; mode: string | undefined; signalled: boolean }[] = [];

  request<T>(name: string, optionsOrCallback: LockOptions | ((lock: Lock | null) => Promise<T> | T), maybeCallback?: (lock: Lock | null) => Promise<T> | T): Promise<T> {
    const [options, callback] = typeof optionsOrCallback === 'function' ? [{}, optionsOrCallback] : [optionsOrCallback, maybeCallback];
    assert.ok(callback !== undefined, 'a lock request needs a callback');
    const { signal } = options;
    this.requests.push({ name, mode: options.mode, signalled: signal !== undefined });
    if (signal?.aborted) return Promise.reject(signal.reason);
    const queue = this.#queue(name);
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        if (waiter.granted) return;
        queue.splice(queue.indexOf(waiter), 1);
        this.#watchWaiters();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        granted: false,
        grant: () => {
          waiter.granted = true;
          signal?.removeEventListener('abort', onAbort);
          // The callback runs in a later task, and the lock is released once its promise settles.
          const done = new Promise<T>((settle) => setImmediate(() => settle(callback({ name, mode: 'exclusive' } as Lock))));
          done.then(resolve, reject);
          done.then(
            () => this.#release(name, waiter),
            () => this.#release(name, waiter),
          );
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      if (queue.length === 1) waiter.grant();
      this.#watchWaiters();
    });
  }

  /** Names held now, and how many requests wait behind each holder. */
  state(name: string): { held: boolean; waiting: number } {
    const queue = this.#queues.get(name) ?? [];
    return { held: queue[0]?.granted === true, waiting: queue.filter((w) => !w.granted).length };
  }

  /** Another context takes `name` and keeps it until `release` is called (or for ever). */
  holdElsewhere(name: string): { taken: Promise<void>; release: () => void } {
    let release!: () => void;
    let taken!: () => void;
    const takenPromise = new Promise<void>((resolve) => (taken = resolve));
    void this.request(name, { mode: 'exclusive' }, () => {
      taken();
      return new Promise<void>((resolve) => (release = resolve));
    });
    return { taken: takenPromise, release: () => release() };
  }

  #queue(name: string): Waiter[] {
    let queue = this.#queues.get(name);
    if (queue === undefined) this.#queues.set(name, (queue = []));
    return queue;
  }

  #release(name: string, holder: Waiter): void {
    const queue = this.#queue(name);
    assert.equal(queue[0], holder, 'only the holder releases');
    queue.shift();
    queue[0]?.grant();
    this.#watchWaiters();
  }

  #watchWaiters(): void {
    const waiting = [...this.#queues.values()].some((queue) => queue.some((w) => !w.granted));
    if (waiting && this.#keepAlive === null) this.#keepAlive = setInterval(() => {}, 1_000);
    if (!waiting && this.#keepAlive !== null) {
      clearInterval(this.#keepAlive);
      this.#keepAlive = null;
    }
  }
}

/**
 * For the enclosing `describe`: fake Web Locks, and no BroadcastChannel, so that the workers of one
 * test hear no other test's announcements; both put back after it.
 */
export function workersOnTheirOwn(): void {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    installFakeLocks();
  });
  after(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel;
    removeFakeLocks();
  });
}

/** Installs a fresh fake `navigator.locks` and returns it; `removeFakeLocks` puts back what was there. */
export function installFakeLocks(): FakeLocks {
  const locks = new FakeLocks();
  Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true, writable: true });
  return locks;
}

const originalNavigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');

/** Restores `navigator` as it was before the first `installFakeLocks`. */
export function removeFakeLocks(): void {
  if (originalNavigator === undefined) delete (globalThis as { navigator?: unknown }).navigator;
  else Object.defineProperty(globalThis, 'navigator', originalNavigator);
}

/** A promise with its resolve and reject at hand. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Expects `promise` to reject with a StorefrontAuthError of `code`, and returns the error. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<Error & { code: string; status: number | undefined }> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    return true;
  });
  assert.ok(isStorefrontAuthError(caught), String(caught));
  assert.equal(caught.code, code, caught.message);
  return caught;
}

/** A base64url segment (RFC 7515 2: no padding) of `text`'s UTF-8 bytes. */
export function base64url(text: string | Buffer): string {
  return Buffer.from(text).toString('base64url');
}

/**
 * An HS256 JWT as Spree's Store API signs it (docs/servers.md, "The JWT and the refresh token":
 * those claims exactly, no `iat`), with `payload` instead of the claims when given as text.
 */
export function storeApiJwt(exp: unknown, payload?: string, secret = 'test-secret'): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const claims = payload ?? JSON.stringify({ user_id: 1, user_type: 'customer', jti: '6f1c2b4e-3d5a-4c8e-9b7f-0a1b2c3d4e5f', iss: 'spree', aud: 'store_api', exp });
  const body = base64url(claims);
  const signature = createHmac('sha256', secret).update(`${header}.${body}`).digest('base64url');
  return `${header}.${body}.${signature}`;
}

/**
 * Storage whose reads and writes hang until `release` (an open blocked behind another connection, a
 * stuck disk), holding `initial`; `stored` is what it holds.
 */
export function stuckStorage(initial: Credentials = NO_CREDENTIALS) {
  let value = initial;
  const pending: (() => void)[] = [];
  const storage: CredentialStorage = {
    read: () => new Promise((resolve) => pending.push(() => resolve(value))),
    update: (change) => new Promise((resolve) => pending.push(() => resolve((value = change(value))))),
  };
  return { storage, release: () => pending.splice(0).forEach((settle) => settle()), stored: () => value };
}

/** Credential storage whose reads wait while `hold()` is on, until `release()` (IndexedDB busy or blocked); writes go through. */
export function heldReads(initial: Credentials) {
  const stored = memoryStorage(initial);
  let gate: Promise<void> | null = null;
  let release = (): void => {};
  const storage: CredentialStorage = { read: async () => (await gate, stored.read()), update: (change) => stored.update(change) };
  return { stored, storage, hold: () => void (gate = new Promise<void>((resolve) => (release = resolve))), release: () => release() };
}

/**
 * Credential storage whose reads and writes wait while `stall()` is on, until `resume()` (a stuck
 * disk, an open blocked behind another connection); `stored` is what lies beneath, read directly.
 */
export function stallingStorage(initial: Credentials) {
  const stored = memoryStorage(initial);
  let gate: Promise<void> | null = null;
  let resume = (): void => {};
  const storage: CredentialStorage = { read: async () => (await gate, stored.read()), update: async (change) => (await gate, stored.update(change)) };
  return { stored, storage, stall: () => void (gate = new Promise<void>((resolve) => (resume = resolve))), resume: () => resume() };
}

/** Storage that, while stalled, queues reads and writes, and answers them one at a time, each in a task of its own (as IndexedDB does). */
export function oneByOneStorage(initial: Credentials) {
  const stored = memoryStorage(initial);
  let stalled = false;
  const queue: (() => void)[] = [];
  const wait = (): Promise<void> => (stalled ? new Promise<void>((resolve) => queue.push(resolve)) : Promise.resolve());
  const storage: CredentialStorage = { read: async () => (await wait(), stored.read()), update: async (change) => (await wait(), stored.update(change)) };
  return {
    stored,
    storage,
    waiting: () => queue.length,
    stall: () => void (stalled = true),
    /** Answers the first waiting read or write, then lets 20 ms pass. */
    releaseOne: async () => (queue.shift()!(), await new Promise((resolve) => setTimeout(resolve, 20))),
    resume: async () => {
      stalled = false;
      while (queue.length > 0) {
        queue.shift()!();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

/**
 * IndexedDB as a queue of stalled transactions, reads and writes alike, each answered (`land`) or
 * refused (`refuse`, a quota refusal of its transaction) in turn; one left in `queue` never settles.
 */
export function refusingQueue(initial: Credentials) {
  const stored = memoryStorage(initial);
  let stalled = false;
  const queue: { go: () => void; fail: (error: unknown) => void }[] = [];
  const gate = (): Promise<void> => (stalled ? new Promise<void>((go, fail) => queue.push({ go, fail })) : Promise.resolve());
  const storage: CredentialStorage = { read: async () => (await gate(), stored.read()), update: async (change) => (await gate(), stored.update(change)) };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  return {
    stored,
    storage,
    queue,
    stall: () => void (stalled = true),
    refuse: async () => (queue.shift()!.fail(new DOMException('The quota has been exceeded.', 'QuotaExceededError')), await pause(10)),
    land: async () => (queue.shift()!.go(), await pause(10)),
  };
}

/**
 * Storage that answers reads and writes strictly in the order they were made, each a task or two after
 * the one before (as IndexedDB does for transactions over one store); while stalled, each waits to be
 * released, one at a time (`kinds`: what waits, in order).
 */
export function steppedFifo(initial: Credentials) {
  const stored = memoryStorage(initial);
  const tick = (ms = 15) => new Promise((resolve) => setTimeout(resolve, ms));
  let stalled = false;
  let chain: Promise<unknown> = Promise.resolve();
  const held: { kind: string; go: () => void }[] = [];
  const inOrder = <T>(kind: string, op: () => Promise<T>): Promise<T> => {
    let go!: () => void;
    const released = stalled ? new Promise<void>((resolve) => (go = resolve)) : Promise.resolve();
    if (stalled) held.push({ kind, go });
    const result = chain.then(() => released).then(() => tick(2)).then(op);
    chain = result.catch(() => {});
    return result;
  };
  const storage: CredentialStorage = { read: () => inOrder('read', () => stored.read()), update: (change) => inOrder('update', () => stored.update(change)) };
  return {
    stored,
    storage,
    kinds: () => held.map((op) => op.kind),
    stall: () => void (stalled = true),
    releaseOne: async () => (held.shift()!.go(), await tick()),
    resume: async () => {
      stalled = false;
      while (held.length > 0) (held.shift()!.go(), await tick());
    },
  };
}

/**
 * `shared` as one worker sees it: its reads and writes wait while stalled, and fail (as IndexedDB's do
 * once the connection is lost) from `fail()` on; its reads go on answering when `readsFail` is false.
 */
export function failingView(shared: CredentialStorage, readsFail = true) {
  let gate: Promise<void> | null = null;
  let failing = false;
  let open = (): void => {};
  const storage: CredentialStorage = {
    read: async () => {
      await gate;
      if (failing && readsFail) throw new DOMException('The database connection is closing', 'InvalidStateError');
      return shared.read();
    },
    update: async (change) => {
      await gate;
      if (failing) throw new DOMException('The transaction was aborted', 'AbortError');
      return shared.update(change);
    },
  };
  return { storage, stall: () => void (gate = new Promise<void>((resolve) => (open = resolve))), fail: () => ((failing = true), open()) };
}

/**
 * Node keeps a process alive while a BroadcastChannel is open, and the worker never closes its own:
 * from here on every channel the test process opens lets it end.
 */
export function unrefChannels(): void {
  const Native = globalThis.BroadcastChannel;
  globalThis.BroadcastChannel = class extends Native {
    constructor(name: string) {
      super(name);
      (this as unknown as { unref?: () => void }).unref?.();
    }
  };
}

/** What fetch gives a script for a redirect met with `redirect: 'manual'` (Fetch: opaque-redirect filtered response). */
export function opaqueRedirect(): Response {
  return Object.defineProperty(new Response(null), 'type', { value: 'opaqueredirect' });
}

/** A response that fetch followed to `url` through at least one redirect, whose body is `body`. */
export function redirectedTo(url: string, body = '{}'): Response {
  const response = new Response(body);
  Object.defineProperty(response, 'redirected', { value: true });
  Object.defineProperty(response, 'url', { value: url });
  return response;
}
