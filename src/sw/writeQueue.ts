/**
 * The offline write queue of one base URL, over its storage (writeStore.ts), with how many writes
 * wait known in memory: a request reads no storage to learn that none do. The count is read once,
 * kept by every change made here, and read again when another worker of the origin says it changed
 * the queue (the announcer's channel).
 *
 * Storage stays the source of truth: the writes themselves are read from it whenever they are sent
 * or dropped, so two workers never act on an outdated copy. A storage operation that fails rejects
 * (the write is then not queued, and the page gets the network error it would have had): a queue in
 * memory would not survive the browser stopping the worker, which is what a queued write promises.
 */
import type { QueuedWrite } from './queuedWrite.js';
import { MAX_QUEUED_WRITES } from './queuedWrite.js';
import type { WriteStorage } from './writeStore.js';

/** One base URL's queued writes. */
export class WriteQueue {
  readonly #storage: WriteStorage;
  #count: number | null = null;
  #loading: Promise<number> | null = null;
  /** Bumped by every change, so that a count read before a change never overwrites it. */
  #generation = 0;
  /** Bumped by every deletion of the database. */
  #deletions = 0;

  constructor(storage: WriteStorage) {
    this.#storage = storage;
  }

  /** True once the count is known in memory. */
  get known(): boolean {
    return this.#count !== null;
  }

  /** How many writes wait, as far as this worker knows; 0 while unknown. */
  get pending(): number {
    return this.#count ?? 0;
  }

  /** How many writes wait: from memory when known, else one shared storage read. */
  load(): Promise<number> {
    if (this.#count !== null) return Promise.resolve(this.#count);
    return (this.#loading ??= this.#read().finally(() => (this.#loading = null)));
  }

  /**
   * The count from storage. A change meanwhile knows better; an invalidation meanwhile left it
   * unknown, and one more read, after it, knows it (`pending` would tell 0 until then).
   */
  async #read(again = true): Promise<number> {
    const generation = this.#generation;
    const count = await this.#storage.count();
    return generation === this.#generation ? (this.#count = count) : (this.#count ?? (again ? this.#read(false) : count));
  }

  /** Another context changed the queue: the count is read again, at once if one was known. */
  invalidate(): void {
    const known = this.#count !== null;
    this.#generation++;
    this.#count = null;
    if (known) this.load().catch(() => {});
  }

  /** The database was deleted: no write waits, known without a read (which would create the database again). */
  cleared(): void {
    this.#deletions++;
    this.#counted(0);
  }

  /** The writes, oldest first, from storage. */
  list(): Promise<QueuedWrite[]> {
    return this.#storage.list();
  }

  /** Queues `write` behind the others: the write as stored, or `null` when the queue is full. */
  async add(write: QueuedWrite): Promise<QueuedWrite | null> {
    const deletions = this.#deletions;
    const added = await this.#storage.add(write, MAX_QUEUED_WRITES);
    if (added === null) return null;
    this.#counted(added.count, deletions);
    return added.write;
  }

  /** Stores `write`'s next state; false when it is no longer queued (settled elsewhere meanwhile). */
  replace(write: QueuedWrite): Promise<boolean> {
    return this.#storage.replace(write);
  }

  /**
   * Takes `write` out of the queue; false when it was gone already, so that only one context reports
   * it settled, or, with `unlessSending`, is on its way (`WriteStorage.remove`).
   */
  async remove(write: QueuedWrite, unlessSending?: boolean): Promise<boolean> {
    const deletions = this.#deletions;
    const count = await this.#storage.remove(write, unlessSending);
    if (count === null) return false;
    this.#counted(count, deletions);
    return true;
  }

  /**
   * `count`: what a change made since `deletions` left stored. A deletion since came after it: the
   * change began on the connection the deletion closes, which lets its transactions finish before the
   * database goes. The deletion took it too, and the 0 `cleared()` set stands, unread: a read would
   * create the database again.
   */
  #counted(count: number, deletions = this.#deletions): void {
    if (deletions !== this.#deletions) return;
    this.#generation++;
    this.#count = count;
  }
}
