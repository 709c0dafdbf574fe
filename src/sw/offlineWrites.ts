/**
 * Offline cart writes: a cart write that cannot reach the server is stored (queuedWrite.ts,
 * writeQueue.ts) and answered `202` at once, then sent when the network returns (writeReplayer.ts),
 * as that shopper (writeIdentity.ts), once (queueDecision.ts, idempotencyKey.ts). This file wires
 * them: what the request path hands over, the triggers of a replay, the drops when a cart or a
 * sign-in ends, and what the pages are told.
 *
 * Nothing here runs while the option is off (the worker holds no `OfflineWrites`), and a request
 * while nothing is queued reads a number in memory, no storage.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { isStorefrontAuthError } from '../shared/errors.js';
import type { WriteQueued, WriteSettled } from '../shared/writeEvents.js';
import type { Announcer } from './announcer.js';
import type { CartWrite } from './dialect.js';
import type { Credentials } from './credentialStorage.js';
import type { HeldCredentials } from './heldCredentials.js';
import { IDEMPOTENCY_HEADER, writeKey } from './idempotencyKey.js';
import type { ResolvedOptions } from './options.js';
import { requestAt, retryAfterMs, type BufferedBody } from './outbound.js';
import { publicState } from './publicState.js';
import { carriesOwnCredential, mayQueue, queuePlan } from './queueDecision.js';
import { queuedWriteOf, type QueuedWrite } from './queuedWrite.js';
import type { KeepAlive } from './requestPath.js';
import { pathUnderBase } from './requestRules.js';
import { currentSignIn } from './signIn.js';
import { boundedWait, type StorageBudget } from './storageBudget.js';
import { belongsTo } from './writeIdentity.js';
import type { WriteQueue } from './writeQueue.js';
import { WriteReplayer } from './writeReplayer.js';
import { failedAttempt, type Attempt } from './writeSettlement.js';

/** The header of the answer to a queued write, naming it (as its body's `id` does). */
export const QUEUED_HEADER = 'Storefront-Auth-Queued';

/**
 * How long one replay may take from when it goes out, answer included: a write that gets no answer in
 * time is retried, with its key. The waits before (storage, a due refresh) have bounds of their own.
 */
export const REPLAY_BUDGET_MS = 8_000;

/** What the offline writes need; I/O is handed in. */
export interface OfflineWritesContext {
  options: Pick<ResolvedOptions, 'baseUrl' | 'base' | 'dialect'>;
  held: HeldCredentials;
  announcer: Announcer;
  queue: WriteQueue;
  /**
   * Sends a replay as a page request would go now (requestPath.ts, `sendQueued`), `request()` made as
   * it goes out; `null` when, once a due refresh was made, `belongs` no longer holds for what is held.
   */
  sendQueued: (request: () => Request, body: BufferedBody, belongs: (held: Credentials) => boolean, keepAlive: KeepAlive) => Promise<Response | null>;
  /** Resolves once a guest cart's assignment to a new sign-in, if one is under way here, has ended. */
  associated: () => Promise<void>;
  /** Resolves once a signed-in write's call may go: no assignment of the cart its sign-in took along holds it (requestPath.ts `assignment`). */
  assigned: () => Promise<void>;
  /** Asks the browser for a Background Sync, where it has one (Chromium). */
  requestSync: () => void;
  /** What the browser reports: `navigator.onLine`. */
  online: () => boolean;
  /** True when the server answers at all (outbound.ts, `reachable`). */
  reachable: () => Promise<boolean>;
  now: () => number;
  /** A random UUID v4. */
  newKey: () => string;
  wakeIn: (ms: number, wake: () => void) => void;
  log: ((message: string) => void) | undefined;
}

/**
 * How long a write to be queued waits for the writes this worker is sending to end (sent, or lost and
 * queued): the network's own failure of a request in flight when it goes is quick, but a stalled
 * connection could hold one for minutes, and the page for as long.
 */
export const SENDING_WAIT_MS = 8_000;

/**
 * A page's write's place among the writes that reached this worker: `previous` resolves once every
 * write that came before it has taken its place (queued, sent, or gone as without the queue), and
 * `done` says this one has.
 */
export interface WriteTurn {
  previous: Promise<void>;
  done: () => void;
  /** When it arrived: its wait for the writes on their way (`SENDING_WAIT_MS`) counts from then, not from its turn. */
  at: number;
}

/** One base URL's offline cart writes. */
export class OfflineWrites {
  readonly #context: OfflineWritesContext;
  readonly #replayer: WriteReplayer;
  /** The writes this worker is sending, each until it is answered or, lost, queued. */
  readonly #sending = new Set<Promise<unknown>>();
  /** Resolves once every page write that has reached this worker so far has taken its place. */
  #arrivals: Promise<void> = Promise.resolve();

  constructor(context: OfflineWritesContext) {
    this.#context = context;
    const { queue, held, now, online, newKey, wakeIn, log } = context;
    this.#replayer = new WriteReplayer({
      queue,
      held: () => held.load(null),
      send: (write) => this.#replay(write),
      // A guest's write waits for a sign-in under way to assign the cart it takes along (bridgeActions.ts
      // `associated`), asked whatever is held now, since the sign-in may land while the write goes; a
      // signed-in one, as a page's call does, for the assignment of the cart its sign-in took along.
      ready: (write) => (write.signInId === null ? context.associated() : context.assigned()),
      repeatable: (write) => write.key !== null || this.#writeOf(write) === 'sets',
      reachable: context.reachable,
      settled: (detail) => this.#announce('writesettled', detail),
      online,
      now,
      newKey,
      wakeIn,
      lockName: `storefront-auth:replay:${context.options.baseUrl}`,
      log,
    });
  }

  /** How many writes wait, as far as this worker knows: the state's `pendingWrites`. */
  get pending(): number {
    return this.#context.queue.pending;
  }

  /**
   * How many writes wait, read once from storage; with a `budget`, no longer than its read allowance,
   * after which the count known in memory (0 while unknown) answers and the read goes on.
   */
  load(budget?: StorageBudget): Promise<number> {
    const loading = this.#context.queue.load();
    return budget === undefined ? loading : boundedWait(loading, () => this.pending, 'read', budget);
  }

  /** Another worker changed the queue, or the browser closed the database: the count is read again. */
  invalidate(): void {
    this.#context.queue.invalidate();
  }

  /** The database was deleted (site data cleared, an uninstall): nothing waits, and nothing is read, which would create it again. */
  cleared(): void {
    this.#context.queue.cleared();
  }

  /**
   * Called as a page's write reaches the worker, before any wait (its body's read, storage): it takes
   * its place in the queue behind the writes that reached the worker before it, in the order the
   * page made them, whatever each one's own waits.
   */
  arrive(): WriteTurn {
    const previous = this.#arrivals;
    let done!: () => void;
    const placed = new Promise<void>((resolve) => (done = resolve));
    this.#arrivals = previous.then(() => placed);
    return { previous, done, at: this.#context.now() };
  }

  /**
   * A page's request that the worker answers: a cart write the queue may carry goes out by its plan
   * (queueDecision.ts) and is queued where that says, answered `202`; anything else is `send(sent)`.
   * `page` is the request as the page made it (what is stored), `sent` the one unsealed for the wire.
   * Its waits for storage spend the page request's `budget`, as its credential reads do.
   */
  async carry(page: Request, url: URL, sent: Request, body: BufferedBody, held: Credentials, send: (request: Request) => Promise<Response>, keepAlive: KeepAlive, budget: StorageBudget, turn?: WriteTurn): Promise<Response> {
    const { options, online, newKey } = this.#context;
    const { dialect } = options;
    const path = pathUnderBase(url, options.base);
    const write = path === null ? null : dialect.queueableWrite(path, page.method);
    const candidate = { write, hasCart: held.cart !== null, ownCredential: carriesOwnCredential(page.headers, url, dialect), bodyBytes: body?.byteLength ?? 0 };
    // Kept writes name their cart by number: one held without (a page's `fields[cart]=token`) goes as without the queue.
    if (write === null || !held.cart?.number || !mayQueue(candidate)) {
      turn?.done();
      return send(sent);
    }
    // Behind the writes the page made before this one, queued or sent first.
    await turn?.previous;
    const key = writeKey(page.headers.get(IDEMPOTENCY_HEADER), dialect.idempotencyKeys, newKey);
    const cart = held.cart.number;
    // Made only when the write is queued: a write that goes through pays for none of it.
    const queued = (): QueuedWrite =>
      queuedWriteOf(page, { id: newKey(), baseUrl: options.baseUrl, body: body ?? null, key, cart, signInId: currentSignIn(held), createdAt: this.#context.now(), cartTokenHeader: dialect.cartTokenHeader });
    // A count storage cannot give in time is none: the write then goes as without the queue (queuing it would fail too).
    const queuedAhead = (await this.load(budget).catch(() => 0)) > 0;
    const plan = queuePlan({ write, idempotencyKeys: dialect.idempotencyKeys, online: online(), queuedAhead });
    if (plan === 'queue') {
      try {
        // Behind any write this worker is still sending: one lost as the network went is queued when it
        // fails, and must go ahead of this one, made after it.
        await this.#afterSending(turn?.at);
        // The page may have given up meanwhile: its fetch rejected, it is not queued behind its back.
        if (page.signal.aborted) throw page.signal.reason;
        return await this.#queue(queued(), new TypeError(DEBUG_BUILD ? 'storefront-auth: the offline queue is full or its storage did not answer; nothing was sent.' : 'storefront-auth: not queued'), keepAlive, budget);
      } finally {
        turn?.done();
      }
    }
    // On its way: a write made after it that is to be queued waits for its end (`#afterSending`).
    turn?.done();
    // The key goes with the first attempt too: if its answer is lost, the replay carries the same one.
    const keyed = key === null || sent.headers.get(IDEMPOTENCY_HEADER) === key ? sent : withHeader(sent, body, IDEMPOTENCY_HEADER, key);
    // The writes on their way before it: lost too, they are queued ahead of it.
    const ahead = [...this.#sending];
    const carried = (async () => {
      try {
        return await send(keyed);
      } catch (error) {
        // A write the page gave up on, or that met a redirect, reached its end: the page hears so. One
        // lost on its way is kept where a replay cannot apply it twice; one whose due refresh met the
        // network error before it left (the refresher's own error) never left, and is kept whatever it is.
        if (page.signal.aborted || !keptAfter(error, plan)) throw error;
        await this.#afterSending(undefined, ahead);
        return this.#queue(failedAttempt(queued(), online(), this.#context.now()), error, keepAlive, budget);
      }
    })();
    this.#sending.add(carried);
    const done = (): void => void this.#sending.delete(carried);
    carried.then(done, done);
    return carried;
  }

  /** Resolves once the writes this worker is sending have ended, or `SENDING_WAIT_MS` after `since` (a burst behind a hung write waits once, not once per write). */
  #afterSending(since = this.#context.now(), sending = [...this.#sending]): Promise<void> {
    if (sending.length === 0) return Promise.resolve();
    const ended = Promise.allSettled(sending);
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, since + SENDING_WAIT_MS - this.#context.now()));
      void ended.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * A storefront request or a bridge message came: a replay starts if writes wait and the browser is
   * online. `now`: the network returned, and the head goes whatever its back-off.
   */
  nudge(keepAlive: KeepAlive, now = false): void {
    const { queue, online } = this.#context;
    // A page's report of the network's return outranks this worker's own `navigator.onLine`.
    if ((queue.known && queue.pending === 0) || (!now && !online())) return;
    // Unknown only until the worker's first read lands, which this shares.
    keepAlive(queue.load().then((count) => count > 0 && this.#replayer.run(now)).catch(() => {}));
  }

  /** The worker started: the queue is read, and a replay starts if writes wait. */
  start(): void {
    this.nudge((work) => void work);
  }

  /** Resolves once a replay in flight here has settled the write it is sending, and stops it there. */
  settled(): Promise<void> {
    return this.#replayer.settled();
  }

  /** Background Sync fired: replays what is due; rejects while writes are left, so that the browser tries again later. */
  async sync(): Promise<void> {
    await this.load();
    // The browser fires it once online, but its back-off holds: a write that just failed waits for it.
    if (await this.#replayer.run()) throw new Error('storefront-auth: queued writes are left');
  }

  /**
   * Drops, each with its `writesettled`, the writes that no longer belong to `held`: a logout ends
   * its sign-in's writes and the cart's, a new cart the old cart's, another shopper's login the writes
   * of the one before; one on its way is settled by its answer, then dropped under the replay lock
   * if it was kept for another attempt or its sender stopped. Never rejects, and holds the caller no longer than
   * `budget`'s write allowance (without one, a fresh one's): the drops go on after it, and a write
   * left behind is dropped when its replay comes.
   */
  async dropEnded(held: Credentials, budget?: StorageBudget): Promise<void> {
    const { queue } = this.#context;
    if (queue.known && queue.pending === 0) return;
    const dropping = (async () => {
      // A worker the message started offline has not read its count (`nudge` reads it online only).
      if ((await queue.load()) === 0) return;
      let marked = false;
      for (const write of await this.#context.queue.list()) {
        if (belongsTo(write, held)) continue;
        // A write on its way (marked, by any worker, read in the removing transaction: the mark may be
        // newer than the list) is settled by its answer: it may be applied, and is never told dropped.
        if (await this.#context.queue.remove(write, true)) this.#announce('writesettled', { id: write.id, outcome: 'dropped' });
        else marked = true;
      }
      // Its sender holds the replay lock until it has settled it: under that lock it is settled, or
      // kept for another attempt, or marked by a worker stopped while sending, whose answer never
      // comes, and is dropped then, offline too. Nothing is sent: a login's writes wait for its cart.
      if (marked) await this.#replayer.drop();
    })().catch(() => {
      // Storage failed, or no Web Lock could be had: the replay drops them, or a later run does.
    });
    await boundedWait(dropping, () => undefined, 'write', budget ?? this.#context.held.budget());
  }

  /**
   * Queues `write` and answers the page `202`; rejects with `failure` when the queue is full, storage
   * failed, or storage did not answer within `budget`'s write allowance. A write stored after that
   * is taken out again as soon as it lands: the page was told it failed, and may send it again.
   */
  async #queue(write: QueuedWrite, failure: unknown, keepAlive: KeepAlive, budget: StorageBudget): Promise<Response> {
    const { queue } = this.#context;
    let late = false;
    const adding = queue.add(write).then((added) => {
      if (!late || added === null) return added;
      void queue.remove(added).catch(() => {});
      return null;
    });
    let stored: QueuedWrite | null = null;
    try {
      stored = await boundedWait(adding, () => ((late = true), null), 'write', budget);
    } catch {
      // Not stored, so not queued: the page gets the network error it would have had.
    }
    if (stored === null) throw failure;
    const { id, method, url } = stored;
    if (DEBUG_BUILD) this.#context.log?.(`offline writes: queued ${method} ${new URL(url).pathname} (${this.pending} waiting)`);
    this.#announce('writequeued', { id, method, path: new URL(url).pathname });
    this.#context.requestSync();
    this.nudge(keepAlive);
    return new Response(JSON.stringify({ queued: true, id }), { status: 202, headers: { 'Content-Type': 'application/json', [QUEUED_HEADER]: id } });
  }

  /** Sends a queued write once, as a page request now (the replayer waited for any assignment first, `ready`). */
  async #replay(write: QueuedWrite): Promise<Attempt | null> {
    const { sendQueued } = this.#context;
    const headers = new Headers(write.headers);
    if (write.key !== null) headers.set(IDEMPOTENCY_HEADER, write.key);
    // Made as it goes out: its time budget is the send's, not spent by a due refresh before it.
    const request = (): Request => new Request(write.url, {
      method: write.method,
      headers,
      body: write.body,
      credentials: write.credentials,
      cache: 'no-store',
      // Followed by the page's rules: a write that meets a redirect is never sent again (outbound.ts).
      redirect: 'follow',
      signal: AbortSignal.timeout(REPLAY_BUDGET_MS),
    });
    // What the request path hands on (a bearer's confirmation) lands before the next write goes.
    const after: Promise<unknown>[] = [];
    try {
      const response = await sendQueued(request, write.body ?? undefined, (current) => belongsTo(write, current), (work) => void after.push(work));
      if (response === null) return null;
      void response.body?.cancel().catch(() => {});
      return { kind: 'answered', status: response.status, retryAfterMs: retryAfterMs(response.headers, this.#context.now()) };
    } catch (error) {
      return attemptOf(error);
    } finally {
      await Promise.allSettled(after);
    }
  }

  /** What the dialect names a queued write: one that adds, or one that sets. */
  #writeOf(write: QueuedWrite): CartWrite | null {
    const { base, dialect } = this.#context.options;
    const path = pathUnderBase(new URL(write.url), base);
    return path === null ? null : dialect.queueableWrite(path, write.method);
  }

  #announce(type: 'writequeued' | 'writesettled', write: WriteQueued | WriteSettled): void {
    void this.#context.held.announced().then((held) => this.#context.announcer.announce(type, publicState(held), undefined, write));
  }
}

/**
 * What a failed send came to: a write that met a redirect reached the server (outbound.ts names that
 * error); a refresh that could not be made before sending (the refresher's own error) left it unsent;
 * anything else brought no answer: the network or the time budget.
 */
function attemptOf(error: unknown): Attempt {
  if (error instanceof Error && error.name === 'RedirectedWriteError') return { kind: 'redirected' };
  return isStorefrontAuthError(error) ? { kind: 'unsent' } : { kind: 'lost' };
}

/** True when a write whose send failed with `error` is kept: lost where its plan allows, or never sent for want of the network. */
function keptAfter(error: unknown, plan: 'send' | 'sendThenQueue'): boolean {
  const { kind } = attemptOf(error);
  if (kind === 'lost') return plan === 'sendThenQueue';
  return kind === 'unsent' && isStorefrontAuthError(error) && (error.code === 'network_error' || error.code === 'timeout');
}

/** `request` with one more header: a page's request's headers cannot be changed, so a copy. */
function withHeader(request: Request, body: BufferedBody, name: string, value: string): Request {
  const headers = new Headers(request.headers);
  headers.set(name, value);
  return requestAt(request.url, request, headers, body, request.redirect);
}
