/**
 * The worker's memory copy of the stored credentials, so that no request waits on a storage read
 * once they are loaded (CONTRACT.md). Storage stays the source of truth across workers: another
 * worker's change invalidates the copy, and the refresh lock re-reads it before deciding.
 */
import { memoryStorage, NO_CREDENTIALS, type CredentialStorage, type Credentials } from './credentialStorage.js';

/** Memory copy over durable storage, falling back to memory alone when storage fails. */
export class HeldCredentials {
  #storage: CredentialStorage;
  #current: Credentials | null = null;
  #loading: Promise<Credentials> | null = null;
  /** Bumped by every change, so a read that started before a change cannot overwrite it. */
  #generation = 0;
  readonly #onStorageFailure: (error: unknown) => void;

  constructor(storage: CredentialStorage, onStorageFailure: (error: unknown) => void) {
    this.#storage = storage;
    this.#onStorageFailure = onStorageFailure;
  }

  /** The credentials in memory, or `null` while they are unknown (not yet loaded, or invalidated). */
  get current(): Credentials | null {
    return this.#current;
  }

  /** The credentials, from memory when known; else one shared storage read. */
  load(): Promise<Credentials> {
    return this.#current !== null ? Promise.resolve(this.#current) : (this.#loading ??= this.reread());
  }

  /**
   * Forgets the memory copy because another context changed storage, and reloads it at once if one
   * was loaded; a worker that has loaded nothing yet (a new release, not yet serving) waits for first use.
   */
  invalidate(): void {
    const loaded = this.#current !== null || this.#loading !== null;
    this.#current = null;
    this.#loading = null;
    if (loaded) void this.load();
  }

  /** Reads storage again (inside the refresh lock, where another worker may have rotated the pair). */
  async reread(): Promise<Credentials> {
    const generation = this.#generation;
    let stored: Credentials;
    try {
      stored = await this.#storage.read();
    } catch (error) {
      stored = await this.#fallBackToMemory(error).read();
    }
    if (generation === this.#generation) {
      this.#current = stored;
      this.#loading = null;
    }
    return this.#current ?? stored;
  }

  /** Applies `change` to the stored credentials, then to the memory copy; resolves once stored. */
  async update(change: (previous: Credentials) => Credentials): Promise<Credentials> {
    let next: Credentials;
    try {
      next = await this.#storage.update(change);
    } catch (error) {
      next = await this.#fallBackToMemory(error).update(change);
    }
    this.#generation++;
    this.#current = next;
    this.#loading = null;
    return next;
  }

  /** Keeps what storage holds now in memory alone, from now on: a newer release is taking the database. */
  async detach(): Promise<void> {
    const held = await this.load();
    this.#storage = memoryStorage(held);
  }

  /** IndexedDB refused (private mode, quota, a broken profile): keep working from memory for this run. */
  #fallBackToMemory(error: unknown): CredentialStorage {
    this.#storage = memoryStorage(this.#current ?? NO_CREDENTIALS);
    this.#onStorageFailure(error);
    return this.#storage;
  }
}
