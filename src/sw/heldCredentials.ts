/**
 * The worker's memory copy of the stored credentials, so that no request waits on a storage read
 * once they are loaded (docs/behaviour.md, "What the worker does to requests": State). Storage
 * stays the source of truth across workers: another worker's change invalidates the copy, and the
 * refresh lock re-reads it before deciding.
 */
import { memoryStorage, NO_CREDENTIALS, SupersededError, type CredentialStorage, type Credentials } from './credentialStorage.js';
import { boundedWait, StorageBudget, type StorageWait } from './storageBudget.js';

/**
 * How long a storage read or write may hold a request (docs/behaviour.md, "Bounds on every wait"):
 * then the worker answers from its memory copy, and a write lands when storage answers (an upgrade
 * blocked by another connection, a stuck disk). A page request's reads share one such wait, and
 * its writes another (storageBudget.ts).
 */
export const STORAGE_WAIT_MS = 2_000;

/** What the worker is told of storage: when it goes away for this worker run, and when the memory copy catches up with it. */
export interface StorageEvents {
  /** IndexedDB refused (private mode, quota, a broken profile): the credentials now live in memory. */
  failed(error: unknown): void;
  /** A newer storefront-auth schema took the database: this release serves from memory and stops refreshing. */
  superseded(): void;
  /**
   * Writes that outlasted their wait have all landed, and the memory copy, `before` (`null`: unknown)
   * until then, now holds what storage does, which the pages were not told when it differs.
   */
  caughtUp?(before: Credentials | null, after: Credentials): void;
}

/** A write's change held in memory while the write, having outlasted its wait, is on its way (`HeldCredentials.update`). */
interface StandIn {
  readonly seq: number;
  readonly change: (previous: Credentials) => Credentials;
  /** The copy it was last applied over. */
  prior: Credentials;
  /** `#lineage` when it was: a copy forgotten or re-read since is no base for a write made before it. */
  lineage: number;
}

/** A write or read on its way to durable storage (`HeldCredentials.#routed`). */
interface InFlight {
  readonly seq: number;
  /** Applies the write (or makes the read) in the memory store that took over, and settles it with what that store then holds. */
  readonly redirect: (fallback: CredentialStorage) => void;
}

/** Memory copy over durable storage, falling back to memory alone when storage fails. */
export class HeldCredentials {
  #storage: CredentialStorage;
  #current: Credentials | null = null;
  /** The copy held before the last invalidation: what an announcement tells when a re-read does not come in time. */
  #last = NO_CREDENTIALS;
  /** The last announcement's credentials, so that each waits for those asked before it. */
  #told = Promise.resolve(NO_CREDENTIALS);
  #loading: Promise<Credentials> | null = null;
  /** Set when a change is announced while a re-read is under way: one more read follows it. */
  #stale = false;
  /** Bumped by every change, so a read that started before a change cannot overwrite it. */
  #generation = 0;
  readonly #events: StorageEvents;
  /** The memory store taken over when durable storage went away, once per worker run. */
  #fallback: CredentialStorage | null = null;

  readonly #waitMs: number;
  /** Bumped when the database is deleted: a write that lands after that must not bring back what it wrote. */
  #deletions = 0;
  /** Writes of this worker not yet landed: storage commits them in the order they were made, so the last to land holds them all. */
  #writing = 0;
  /** The memory copy is a stand-in made with nothing read (a write outlasted its wait during a re-read), until it catches up with storage. */
  #guessed = false;
  /** Bumped when the memory copy is replaced by anything but this worker's own changes (forgotten, re-read, deleted). */
  #lineage = 0;
  /**
   * A late write landed while another write was in flight: the memory copy catches up with the last to
   * land, late or not. Until then, what storage held under the writes still in flight (`false`: none
   * known): what that write stored, or what a read answered since (`#read`); `true` once another
   * worker's change is heard, until a read made since answers. Storage commits writes and answers
   * reads in the order made, so the writes still in flight go over it.
   */
  #behind: Credentials | boolean = false;
  /** Bumped when another worker's change is heard (`invalidate`): a read made before it may have missed that change. */
  #heard = 0;
  /**
   * The changes of this worker's writes that outlasted their wait and are still on their way, in the
   * order made (`seq`), each with the copy it was last applied over: each is in the memory copy as a
   * stand-in, and storage applies them, in that order, after every write made before them. A write
   * that lands in time is applied to the copy with them over it.
   */
  #standIns: StandIn[] = [];
  /** Counts writes: the order they were made in, which storage commits them in. */
  #made = 0;
  /**
   * This worker's writes and reads on their way to durable storage, in the order made: when storage
   * fails, the memory store that takes over applies and answers them, in that order, and what the
   * failed storage does with them no longer counts (one may never settle).
   */
  #inFlight: InFlight[] = [];

  constructor(storage: CredentialStorage, events: StorageEvents, waitMs = STORAGE_WAIT_MS) {
    this.#storage = storage;
    this.#events = events;
    this.#waitMs = waitMs;
  }

  /** The credentials in memory, or `null` while they are unknown (not yet loaded, or invalidated). */
  get current(): Credentials | null {
    return this.#current;
  }

  /**
   * The credentials the pages are told (an announcement, `getState`'s answer), resolved in the order
   * asked. A re-read under way is waited for as `load` waits: told meanwhile, a stand-in would show
   * every page a state nobody holds (nothing held), which no later announcement corrects. When
   * storage does not answer in time, the copy held before the re-read.
   */
  announced(): Promise<Credentials> {
    const known = this.load().catch(() => {});
    return (this.#told = this.#told.then(() => known).then(() => this.#current ?? this.#last));
  }

  /**
   * A new allowance for one page request's or action's waits (storageBudget.ts): a bound for its
   * reads, one for its writes, each at most `capMs` (what an action's time budget has left).
   */
  budget(capMs = Infinity): StorageBudget {
    return new StorageBudget(Math.min(this.#waitMs, capMs));
  }

  /**
   * The credentials, from memory when known; else one shared storage read, waited for as long as
   * `budget` allows (without one, `STORAGE_WAIT_MS`). A read that outlasts the wait goes on, and
   * fills the memory copy when it lands. With `null`, however long the read takes: for a replay, which
   * no page waits on, and which must not drop a write for a stand-in's sake ("nothing held").
   */
  load(budget?: StorageBudget | null): Promise<Credentials> {
    // With `null`, a guess made with nothing read (a write that outlasted its wait) is no answer: storage is.
    if (budget === null) return this.#guessed ? this.#read() : this.#current !== null ? Promise.resolve(this.#current) : (this.#loading ??= this.#readShared());
    if (this.#current !== null) return Promise.resolve(this.#current);
    return this.#bounded((this.#loading ??= this.#readShared()), () => this.#current ?? NO_CREDENTIALS, 'read', budget);
  }

  /**
   * Forgets the memory copy because another context changed storage, and reloads it at once if one
   * was loaded; a worker that has loaded nothing yet (a new release, not yet serving) waits for first
   * use. Coalesced: however many changes arrive while a read is under way, one more read follows it,
   * so a flood of announcements costs a read at a time, not one per message.
   */
  invalidate(): void {
    // What storage held under this worker's writes in flight is no longer known (a logout elsewhere).
    this.#heard++;
    if (this.#behind) this.#behind = true;
    if (this.#loading !== null) {
      this.#stale = true;
      return;
    }
    if (this.#current === null) return;
    this.#lineage++;
    this.#last = this.#current;
    this.#current = null;
    void this.load();
  }

  /**
   * The database was deleted: the memory copy becomes "nothing held" without reading storage, since
   * a read would create the database again. A read in flight is outdated by it (the generation).
   */
  cleared(): void {
    this.#deletions++;
    this.#lineage++;
    // The writes in flight land in nothing: no catch-up waits for them, nor do their stand-ins stay.
    this.#guessed = this.#behind = false;
    this.#standIns = [];
    // A memory store that took over from a failed database holds what was deleted too.
    if (this.#fallback !== null) this.#fallback = this.#storage = memoryStorage(NO_CREDENTIALS);
    this.#changed(NO_CREDENTIALS);
  }

  /**
   * What storage holds, however long it takes: as `load(null)`, except that with a write of this
   * worker in flight, whose stand-in the memory copy may hold, storage is read (behind that write).
   */
  stored(): Promise<Credentials> {
    return this.#writing > 0 ? this.#read() : this.load(null);
  }

  /** Reads storage again (inside the refresh lock, where another worker may have rotated the pair), waiting as `load` does. */
  reread(budget?: StorageBudget): Promise<Credentials> {
    return this.#bounded(this.#read(), () => this.#current ?? NO_CREDENTIALS, 'read', budget);
  }

  /**
   * Applies `change` to the stored credentials, then to the memory copy; resolves once stored, or
   * once the wait `budget` allows (without one, `STORAGE_WAIT_MS`) has passed, with `change` applied
   * to the memory copy while the write goes on. Once it and every write after it have landed, the
   * memory copy takes what storage holds: with nothing read yet, the answer was a guess at it. In that
   * case `unread` is told at once, with what storage held before the write, once that lands; else
   * `known` is (the memory copy may be behind storage: another worker's change not heard yet).
   * `change` may run more than once, and after this resolves: as a stand-in, again over a write that
   * landed in time, and in a database that failed after the write was redirected (`#lose`). A caller
   * reads what it sets in its own variables as this resolves, before any wait.
   */
  update(change: (previous: Credentials) => Credentials, budget?: StorageBudget, unread?: (before: Promise<Credentials>) => void, known?: (before: Promise<Credentials>) => void): Promise<Credentials> {
    let late = false;
    let before = NO_CREDENTIALS;
    const deletions = this.#deletions;
    // This write's stand-in, while it is on its way after outlasting its wait.
    const standIn: StandIn = { seq: this.#made++, change, prior: NO_CREDENTIALS, lineage: -1 };
    const written = this.#write(standIn.seq, change, (previous) => (before = previous));
    // Landed after the database was deleted: the deletion took it too, and the memory copy keeps nothing.
    const landed = written.then((next) => {
      this.#standIns = this.#standIns.filter((pending) => pending !== standIn);
      return deletions !== this.#deletions ? (this.#current ?? NO_CREDENTIALS) : late || this.#behind ? this.#caughtUp(next, !late) : this.#landedInTime(next);
    });
    return this.#bounded(
      landed,
      () => {
        late = true;
        // A write made after this one whose shorter wait ran out first is storage's next, not its last:
        // this change goes under its stand-in, over what that one was applied over; not over a copy
        // forgotten or re-read since (another worker's logout heard), but over what memory holds now.
        const at = this.#standIns.findIndex((pending) => pending.seq > standIn.seq);
        const under = this.#standIns[at];
        const prior = under !== undefined && under.lineage === this.#lineage ? under.prior : (this.#current ?? NO_CREDENTIALS);
        const replaced = written.then(() => before);
        // Nothing read, or only a stand-in made so since: what the change replaced is known once it lands.
        if (this.#current === null || this.#guessed) {
          this.#guessed = true;
          unread?.(replaced);
        } else known?.(replaced);
        this.#standIns.splice(at < 0 ? this.#standIns.length : at, 0, standIn);
        return this.#changed(this.#over(prior, at < 0 ? this.#standIns.length - 1 : at));
      },
      'write',
      budget,
    );
  }

  /**
   * Applies `change` to the stored credentials and, once stored, to the memory copy; resolves with
   * what was stored, or `null` when the wait `budget` allows (without one, `STORAGE_WAIT_MS`) passed
   * first. For a change the worker must not act on before it is on disk: unlike `update`, the memory
   * copy never holds it before storage does. A write that outlasts the wait goes on, and the memory
   * copy takes what storage holds once it and every write after it have landed: before that, it may
   * hold a later change whose own write timed out and is still queued behind this one, which the
   * stored result would undo. After storage failed for this run, the memory store that took over is
   * all there is, and counts as stored.
   */
  persist(change: (previous: Credentials) => Credentials, budget?: StorageBudget): Promise<Credentials | null> {
    let late = false;
    const deletions = this.#deletions;
    return boundedWait(
      this.#write(this.#made++, change).then((next) => (deletions !== this.#deletions ? null : late ? (this.#caughtUp(next), null) : (this.#behind ? this.#caughtUp(next, true) : this.#landedInTime(next), next))),
      () => ((late = true), null),
      'write',
      budget ?? this.budget(),
    );
  }

  /**
   * `change`, made `seq`-th, written to storage, or to the memory store that takes over when storage
   * fails; counted while in flight. `seen` is told what the change was applied over where it landed.
   */
  #write(seq: number, change: (previous: Credentials) => Credentials, seen?: (previous: Credentials) => void): Promise<Credentials> {
    this.#writing++;
    // Not once settled: failed storage that still lands a redirected write is not where it landed.
    const apply = (previous: Credentials): Credentials => (seen?.(previous), change(previous));
    // Applied at once, in the order called (a change that throws rejects the write).
    return this.#routed(seq, (store) => new Promise((applied) => applied(store.update(apply))), () => (seen = undefined)).finally(() => this.#writing--);
  }

  /**
   * `use` of storage, made `seq`-th (a read: -1), or of the memory store that takes over when storage
   * fails: there it is redirected with this worker's others still on their way, in the order made, and
   * what the failed storage does with it no longer counts. `settled` is told once it has.
   */
  #routed(seq: number, use: (store: CredentialStorage) => Promise<Credentials>, settled?: () => void): Promise<Credentials> {
    const fallback = this.#fallback;
    return fallback !== null
      ? use(fallback)
      : new Promise<Credentials>((resolve) => {
          const way: InFlight = { seq, redirect: (store) => settle(use(store)) };
          const settle = (landed: Credentials | Promise<Credentials>): void => {
            if (!this.#inFlight.includes(way)) return;
            settled?.();
            this.#inFlight = this.#inFlight.filter((other) => other !== way);
            resolve(landed);
          };
          this.#inFlight.push(way);
          use(this.#storage).then(settle, (error: unknown) => void this.#lose(error));
        });
  }

  /**
   * A write that outlasted its wait landed with `next` (or a later one, `inTime`, behind it): the memory
   * copy takes it unless a later write is still on its way, which catches up in its stead. One that
   * landed in time always does: the change it landed (a logout) must not wait for a later write. A
   * later write whose shorter wait ran out first keeps its stand-in over it (`#landedInTime`).
   */
  #caughtUp(next: Credentials, inTime?: boolean): Credentials {
    if ((this.#behind = !inTime && this.#writing > 0 && next)) return next;
    this.#guessed = false;
    const before = this.#current;
    // Changed before the call: an optional call skips its arguments when there is nothing to call.
    const held = this.#landedInTime(next);
    this.#events.caughtUp?.(before, held);
    // What an in-time `update` answers with: the copy with the later stand-ins over what landed.
    return held;
  }

  /**
   * The memory copy once a write landed in time with `next`: `next`, with the stand-ins of the later
   * writes that outlasted a shorter wait applied over it, as storage applies them once they land
   * (without them, a login answered from its stand-in would read as signed out until its write
   * lands). Storage commits writes in the order made, so none of those is in `next` yet.
   */
  #landedInTime(next: Credentials): Credentials {
    return this.#changed(this.#over(next));
  }

  /** `held` with the stand-ins from `from` on applied over it in the order made, each noting what it was applied over. */
  #over(held: Credentials, from = 0): Credentials {
    for (const standIn of this.#standIns.slice(from)) {
      standIn.lineage = this.#lineage;
      held = standIn.change((standIn.prior = held));
    }
    return held;
  }

  /** One storage read, however long it takes; landing late, it still fills the memory copy unless a change came first. */
  #read(): Promise<Credentials> {
    const generation = this.#generation;
    const deletions = this.#deletions;
    const heard = this.#heard;
    // Issued before storage failed, answered by the memory store that took over, in the order made.
    const read = this.#routed(-1, (store) => store.read());
    return read.then((stored) => {
      // Outdated for the memory copy (a stand-in made since, over a guess), or answered after a late
      // write landed (its catch-up waiting): storage held it under this worker's writes still in flight,
      // all made after it, and after any other worker's change since that write (a logout): what the
      // memory store that takes over starts from if one of them fails (`#beforeInFlight`).
      if (this.#writing > 0 && deletions === this.#deletions && heard === this.#heard && (this.#behind || generation !== this.#generation)) this.#behind = stored;
      if (generation !== this.#generation) return this.#current ?? stored;
      // Not while a late write's catch-up waits for a write in flight: that catch-up takes it, and
      // tells the pages where they were told otherwise (a read taking it first would hide that). Unless
      // nothing is in memory (forgotten for this read): the requests meanwhile would each read again,
      // behind that write, and go on with nothing held once their wait passed. No stand-in was made
      // since the read began (the generation), so it is the copy the writes still on their way go over.
      if (!this.#behind || this.#current === null) {
        this.#lineage++;
        this.#current = stored;
        this.#guessed = false;
      }
      return stored;
    });
  }

  /** The memory copy after a change: `next`, past every read that started before it. */
  #changed(next: Credentials): Credentials {
    this.#generation++;
    return (this.#current = next);
  }

  /**
   * `work`, or what `instead` gives once the wait has passed without it settling: what `budget` has
   * left for this kind of wait, which the wait then spends; without a budget, `STORAGE_WAIT_MS`.
   */
  #bounded(work: Promise<Credentials>, instead: () => Credentials, kind: StorageWait, budget: StorageBudget | undefined): Promise<Credentials> {
    return boundedWait(work, instead, kind, budget ?? this.budget());
  }

  /** The shared read behind `load`, repeated once when a change was announced meanwhile. */
  async #readShared(): Promise<Credentials> {
    let held: Credentials;
    try {
      this.#stale = false;
      held = await this.#read();
      // A change announced while reading may have missed this read; one more covers every such change.
      if (this.#stale) {
        this.#stale = false;
        held = await this.#read();
      }
    } finally {
      this.#loading = null;
    }
    // Changes announced during the second read: served what was read, then read again in the
    // background, so a flood of announcements never keeps a waiting request waiting.
    if (this.#stale) this.invalidate();
    return held;
  }

  /**
   * Storage went away for this run: keep working from memory, and say why once. Several calls in
   * flight fail together (they share one failed open): all of them land in the same memory store.
   */
  #lose(error: unknown): CredentialStorage {
    if (this.#fallback !== null) return this.#fallback;
    const fallback = (this.#fallback = this.#storage = memoryStorage(this.#beforeInFlight()));
    // The writes (and reads) still on their way to the storage that failed land here, in the order made,
    // as they would have there: what that storage does with them no longer counts (one may never settle,
    // and the writes made from now on must not wait for it, nor go under it).
    for (const write of this.#inFlight) write.redirect(fallback);
    if (error instanceof SupersededError) this.#events.superseded();
    else this.#events.failed(error);
    return fallback;
  }

  /**
   * What storage held under this worker's writes still in flight: `#behind` (what the last write to
   * land stored, or a read answered since), while a catch-up waits for them; else what the first of their stand-ins in
   * the memory copy was applied over; with none, the memory copy, which holds none of them ("nothing
   * held" when unknown). A stand-in applied to a copy forgotten or re-read since is not in it.
   */
  #beforeInFlight(): Credentials {
    const first = this.#standIns.find((standIn) => standIn.lineage === this.#lineage && this.#inFlight.some((write) => write.seq === standIn.seq));
    // A write landed there while a later one was on its way (its catch-up waits for them): storage held
    // exactly what it stored, under the writes in flight, whatever memory guessed or holds without it.
    return (this.#behind !== true && this.#behind) || (first?.prior ?? this.#current ?? NO_CREDENTIALS);
  }
}
