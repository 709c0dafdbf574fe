/**
 * Refreshes the access token under the refresh lock, keeping the latest refresh token the server
 * gave (docs/servers.md, "Tokens"), within the back-off (refreshBackoff.ts). Whatever the outcome,
 * a change is written to storage before it is announced.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { StorefrontAuthError, asStorefrontAuthError } from '../shared/errors.js';
import type { Announcer } from './announcer.js';
import type { Credentials, RefreshKey } from './credentialStorage.js';
import { MAX_TOKEN_BODY_CHARS } from './dialect.js';
import type { HeldCredentials } from './heldCredentials.js';
import type { ResolvedOptions } from './options.js';
import type { OwnReply, SendOwn } from './outbound.js';
import type { KeepAlive } from './requestPath.js';
import { publicState } from './publicState.js';
import { chargeAttempt, mayRefresh, type Backoff } from './refreshBackoff.js';
import { isRefreshDue } from './refreshDue.js';
import { LOCK_WAIT_MS, RefreshLock } from './refreshLock.js';
import { revokeRefused, revokeSession } from './revocation.js';
import { StorageBudget } from './storageBudget.js';
import type { Session } from './tokenResponse.js';

/** What the refresher needs from the worker; I/O is handed in. */
export interface RefresherContext {
  held: HeldCredentials;
  announcer: Announcer;
  /** The server's wire protocol. */
  options: Pick<ResolvedOptions, 'dialect'>;
  send: SendOwn;
  /** A fresh idempotency key; `crypto.randomUUID` unless a test hands in its own. */
  newKey?: () => string;
  now: () => number;
  /** Debug logging, or `undefined` when off. */
  log: ((message: string) => void) | undefined;
}

/** Why a refresh is asked for. */
export type RefreshReason = 'due' | 'unauthorized';

/** What a refresh came to. */
export type RefreshOutcome =
  /** A pair to use: a new one, or one another context rotated meanwhile. */
  | { kind: 'fresh'; session: Session }
  /** The session has ended: the refresh was refused, or the shopper signed out meanwhile. */
  | { kind: 'ended' }
  /** No refresh now (network, 5xx, bad answer, back-off, a stuck lock): the pair held is kept. */
  | { kind: 'failed'; session: Session; error: StorefrontAuthError };

const ENDED: RefreshOutcome = Object.freeze({ kind: 'ended' });

/** Turns a stale session into a fresh one, at most once per expiry across the origin. */
export class SessionRefresher {
  readonly #context: RefresherContext;
  readonly #lock: RefreshLock<RefreshOutcome>;
  /** Bearers whose first acceptance is being written, so that it is written once. */
  readonly #confirming = new Map<string, Promise<void>>();
  #retired = false;
  /** The last refresh started in this worker, and the allowance its storage waits spend. */
  #started: [Promise<RefreshOutcome>, StorageBudget] | null = null;
  /** Revocations decided once a late write lands, still to be sent: the caller's `keepAlive` takes them. */
  readonly #owed = new Set<Promise<unknown>>();

  constructor(context: RefresherContext, lockName: string, lockWaitMs = LOCK_WAIT_MS) {
    this.#context = context;
    // The lock is let go once a read of storage, which queues behind the writes made before it,
    // answers (refreshLock.ts): the next holder then reads the pair this one stored. A write that
    // never lands (an open blocked for good) holds it `lockWaitMs` more at most: by then the workers
    // waiting for it have given up, re-read storage and sent no grant.
    this.#lock = new RefreshLock(lockName, lockWaitMs, () => context.held.reread(new StorageBudget(lockWaitMs)));
  }

  /**
   * A session to use instead of `stale`, or why there is none; never rejects. `reason`: `due` before
   * sending, `unauthorized` after the server answered `stale`'s bearer with a 401. `budget`: the
   * storage allowance of the page request that asks (storageBudget.ts). A refresh's waits are
   * bounded by the allowance of the request that started it (one of its own when that request has
   * none); a request that joins it sits through them, so they are charged to its allowance as well,
   * and it waits through none of them longer than its own allowance has left.
   */
  refresh(stale: Session, reason: RefreshReason = 'due', budget?: StorageBudget): Promise<RefreshOutcome> {
    if (this.#retired) {
      return Promise.resolve(failed(stale, new StorefrontAuthError('network_error', DEBUG_BUILD ? 'A newer storefront-auth release holds the session; reload the page.' : 'superseded')));
    }
    const { held } = this.#context;
    const waits = budget ?? held.budget();
    const run = this.#lock.run(
      () => this.#fromStorage(stale, (current, stored) => this.#underLock(stale, reason, current, stored, waits), held.reread(waits)),
      () => {
        if (DEBUG_BUILD) this.#context.log?.('refresh: the lock stayed taken; re-reading storage');
        // The lock stayed taken for the whole wait: use what storage holds now, and refresh no more.
        return this.#fromStorage(
          stale,
          (current) => failed(current, new StorefrontAuthError('network_error', DEBUG_BUILD ? 'Another tab or worker held the refresh lock for the whole wait; the session is kept, try again.' : 'refresh lock held')),
          held.reread(waits),
        );
      },
    );
    const started = this.#started;
    if (started?.[0] !== run) {
      this.#started = [run, waits];
      return run;
    }
    // Joined the refresh in flight: its storage waits hold this request too, as waits of its own would
    // (docs/behaviour.md, "Bounds on every wait"): they count against its one allowance, and once one
    // outlasts what is left of that, the request goes on from the memory copy, while the refresh goes
    // on for the others and its writes land. An allowance never carries itself: its spending would
    // charge it again without end.
    return budget === undefined || budget === started[1]
      ? run
      : Promise.race([run, started[1].carry(budget, run).then(() => this.#fromStorage(stale, (current) => failed(current, new StorefrontAuthError('network_error', DEBUG_BUILD ? 'Storage did not answer within the wait this request had left; the session is kept, try again.' : 'storage wait')), held.load(budget)))]);
  }

  /**
   * The session to send a request with: `session` itself while it is not due; else the refreshed
   * one, or `session` again when the refresh failed but its bearer is still valid. `null` when the
   * session has ended (a refused refresh), or when there was none. Rejects when no valid bearer is
   * left to send.
   */
  async sendable(session: Session | null, budget?: StorageBudget): Promise<Session | null> {
    if (session === null || !isRefreshDue(session, this.#context.now())) return session;
    const outcome = await this.refresh(session, 'due', budget);
    if (outcome.kind === 'ended') return null;
    if (outcome.kind === 'failed' && outcome.session.expiresAt <= this.#context.now()) throw outcome.error;
    return outcome.session;
  }

  /**
   * Hands `keepAlive` the revocations this refresher still owes (a pair a late write did not keep),
   * so that the browser does not stop the worker before they are sent: the page's answer went out
   * long before. Called by whoever waited on a refresh.
   */
  keepOwed(keepAlive: KeepAlive): void {
    if (this.#owed.size > 0) keepAlive(Promise.all(this.#owed));
  }

  /**
   * The server accepted `session`'s bearer. The first time for a bearer a refresh brought, that lifts
   * the refresh's charge on the back-off (refreshBackoff.ts). Resolves once stored.
   */
  confirm(session: Session): Promise<void> {
    if (session.confirmed) return Promise.resolve();
    const token = session.accessToken;
    let writing = this.#confirming.get(token);
    if (writing === undefined) {
      writing = this.#context.held
        // Only a bearer not yet confirmed lifts the charge: a late answer to an old request must not
        // lift the back-off of a refresh that failed since.
        .update((previous) => (previous.session?.accessToken === token && !previous.session.confirmed ? { ...previous, session: { ...previous.session, confirmed: true }, backoff: null } : previous))
        .then(
          () => {},
          () => {},
        )
        .finally(() => this.#confirming.delete(token));
      this.#confirming.set(token, writing);
    }
    return writing;
  }

  /**
   * Refreshes no more: a newer release is taking the database, and could not see a pair rotated
   * here, so spending the refresh token here would end the session. Resolves once a refresh in
   * flight has landed in storage.
   */
  retire(): Promise<void> {
    this.#retired = true;
    return this.settled();
  }

  /** Resolves once a refresh in flight in this worker has landed in storage. */
  settled(): Promise<void> {
    return this.#lock.settled();
  }

  /**
   * What `read` finds for `stale` (storage re-read, since another tab's worker may have rotated the
   * pair meanwhile; or the memory copy, for a request that can wait no longer): the end of the
   * session, the pair rotated, or what `next` makes of the pair held.
   */
  async #fromStorage(stale: Session, next: (current: Session, stored: Credentials) => RefreshOutcome | Promise<RefreshOutcome>, read: Promise<Credentials>): Promise<RefreshOutcome> {
    const stored = await read;
    const current = stored.session;
    if (current === null) return ENDED;
    if (current.accessToken !== stale.accessToken && !isRefreshDue(current, this.#context.now())) {
      if (DEBUG_BUILD) this.#context.log?.('refresh: using the pair another context rotated');
      return { kind: 'fresh', session: current };
    }
    return next(current, stored);
  }

  async #underLock(stale: Session, reason: RefreshReason, current: Session, stored: Credentials, budget: StorageBudget | undefined, again = false): Promise<RefreshOutcome> {
    const { held, now } = this.#context;
    if (!mayRefresh(stored.backoff, now())) {
      if (DEBUG_BUILD) this.#context.log?.('refresh: backing off');
      return failed(current, backingOff(stored.backoff));
    }
    // Charged when the attempt ends, so the wait runs from the failure (docs/behaviour.md,
    // "Refresh": "per 5 s after a failure").
    const charge = (): Backoff => chargeAttempt(stored.backoff, now());
    // A refreshed bearer refused while still valid, before the server ever accepted it: the refresh
    // that brought it failed, and another one now would fare no better (refreshBackoff.ts). One that
    // is due or expired was merely slow to be used, and is refreshed as usual; so is one whose first
    // acceptance is still being written (`confirm`), with storage slow or stuck.
    if (reason === 'unauthorized' && stored.backoff === null && current.accessToken === stale.accessToken && !current.confirmed && !this.#confirming.has(current.accessToken) && !isRefreshDue(current, now())) {
      if (DEBUG_BUILD) this.#context.log?.('refresh: a refreshed bearer was refused on its first use; backing off');
      const next = await held.update((previous) => (previous.session?.accessToken === current.accessToken ? { ...previous, backoff: charge() } : previous), budget);
      return failed(current, backingOff(next.backoff));
    }
    const { options, send } = this.#context;
    const { dialect } = options;
    // The retry of a rotation whose answer was lost carries that rotation's key, so the server
    // replays its answer instead of refusing the spent token (docs/servers.md, "Every request").
    const kept = keyed(stored, current) ? stored.refreshKey.key : null;
    let key = kept ?? this.#context.newKey?.() ?? crypto.randomUUID();
    // On disk with the token it spends before the grant goes out, or no grant: the server rotates
    // strictly, so a worker the browser stops (or a browser that quits) while the answer is on its
    // way leaves the key to the next one, which retries this rotation with it and gets the answer
    // replayed; with the key in memory alone, the next one would find a spent token and no key, and
    // the session would end. Forgotten below on a definite answer.
    if (kept === null && dialect.idempotentRefresh) {
      // A key already stored for this token stays: an earlier attempt's write that landed late.
      const landed = await held.persist((previous) => (spent(previous, current) && !keyed(previous, current) ? withKey(previous, { refreshToken: current.refreshToken, key }) : previous), budget);
      // Not stored in time (a stuck disk, an open blocked by another connection): a refresh that
      // cannot be made now. No back-off, since the server was not asked: the pair is kept, and the
      // next refresh tries again. After storage failed for this run, the memory store that took over
      // counts as stored and the grant goes out: nothing this worker changes reaches the disk any
      // more (v2's rotations included), the session lives in its memory alone, and holding the
      // grant back would only end it at the bearer's expiry.
      if (landed === null) {
        if (DEBUG_BUILD) this.#context.log?.('refresh: the idempotency key is not stored yet; no grant');
        return failed(current, new StorefrontAuthError('network_error', DEBUG_BUILD ? "Storage did not take the refresh's idempotency key in time, and no refresh goes out without it; the session is kept, try again." : 'key not stored'));
      }
      // A pair replaced meanwhile (a login, a logout) stores no key: its grant still goes out, and
      // the pair it brings is not kept (below).
      if (keyed(landed, current)) key = landed.refreshKey.key;
    }
    // Retired meanwhile: this run's re-read (or its key's write) found a newer release's schema,
    // which holds this pair now; spending its refresh token here would end that session. Answered
    // as a refresh asked of a retired refresher is.
    if (this.#retired) return this.refresh(current);
    if (DEBUG_BUILD) this.#context.log?.('refresh: sending the refresh grant');
    let fresh: Session | null;
    let reply: OwnReply | null = null;
    try {
      reply = await send(dialect.refreshGrant(current.refreshToken, key), { maxChars: MAX_TOKEN_BODY_CHARS });
      // On probation (not confirmed) until the server first accepts it, whatever the refresh was for:
      // refused while still valid, the refresh did not help (docs/behaviour.md, "Refresh"). A request
      // that went out with the bearer before it and is refused is replayed with this one instead
      // (`#fromStorage`), and is no refusal of it.
      fresh = { ...dialect.judgeTokenReply(reply, 'refresh'), confirmed: false };
    } catch (caught) {
      const error = asStorefrontAuthError(caught);
      // A success the worker cannot keep still rotated: the pair it issued is revoked, not left live.
      if (reply !== null && reply.status >= 200 && reply.status < 300) void revokeRefused(this.#context, reply.text);
      if (error.code !== 'invalid_grant') {
        if (DEBUG_BUILD) this.#context.log?.(`refresh: failed (${error.code}); the pair is kept`);
        const { status } = error;
        // A lost answer (no response at all), a 5xx, or a success too long to read (outbound.ts
        // refused it, so no reply) may hide a rotation that happened: its retries keep the key.
        // Never after an answer below 500 that was read (a 429, a redirect): the server caches it
        // under the key, and would replay it for 24 h.
        const lost = status === undefined ? error.code === 'network_error' : status >= 500 || (reply === null && status < 300);
        const pending: RefreshKey | null = lost ? { refreshToken: current.refreshToken, key } : null;
        // A `Retry-After` is the least wait whatever the status: a 503 for maintenance sends one too.
        await held.update((previous) => (spent(previous, current) ? withKey({ ...previous, backoff: chargeAttempt(stored.backoff, now(), reply?.retryAfterMs ?? 0) }, pending) : previous), budget);
        return failed(current, error);
      }
      fresh = null;
    }
    // Stored before any request uses the new bearer, though the requests waiting on this refresh
    // pay for the write (2 to 9 ms in the storm bench): Doorkeeper revokes the old pair on the new
    // bearer's first use (docs/servers.md, "Doorkeeper, the token endpoint"), so a worker stopped
    // between that use and the write would keep a dead refresh token, where one stopped before the
    // use keeps a live one. Only replace the pair that was spent: a login or logout meanwhile wins,
    // and is not re-announced.
    let replaced = false;
    // A pair already expired (v3: a rotation's answer replayed after its JWT's lifetime) holds the
    // only live refresh token: it is kept, and refreshed at once with a new key (the replay settled
    // the old one). A second one in a row is a failure, so a server that only issues expired tokens
    // costs two refreshes per back-off step.
    const dead = fresh !== null && isRefreshDue(fresh, now());
    // Set when the write outlasted its wait: with nothing in memory (a re-read under way, `unread`),
    // or with the memory copy holding the pair spent, while storage may hold another by then (a
    // login or logout elsewhere not heard yet).
    const late: { before?: Promise<Credentials>; unread?: boolean } = {};
    const next = await held.update(
      (previous) => {
        replaced = spent(previous, current);
        if (!replaced) return previous;
        // Refused, the session ends. Within a streak of failures the step is charged now, and lifted
        // when the server first accepts the new bearer (`confirm`). An expired pair is refreshed
        // again under the back-off it came with; the second in a row is charged.
        const backoff = fresh === null ? null : dead ? (again ? charge() : stored.backoff) : stored.backoff === null ? null : charge();
        return withKey({ ...previous, session: fresh, backoff }, null);
      },
      budget,
      (before) => ((late.unread = true), (late.before = before)),
      (before) => void (spent(held.current!, current) && (late.before = before)),
    );
    // Whether storage kept the pair is known once the write lands, and a pair it did not keep
    // (another sign-in or a logout landed first) is revoked then: nobody holds it.
    if (late.before !== undefined && fresh !== null) {
      const kept = fresh;
      const owed = late.before.then((before) => (spent(before, current) ? undefined : revokeSession(this.#context, kept)), () => undefined);
      this.#owed.add(owed);
      void owed.then(() => this.#owed.delete(owed));
    }
    if (late.unread) {
      // `replaced` was judged against a stand-in for what storage holds (above). The pages hear of it
      // when the memory copy catches up with storage.
      return fresh === null ? ENDED : { kind: 'fresh', session: fresh };
    }
    if (replaced) {
      if (DEBUG_BUILD) this.#context.log?.(fresh === null ? 'refresh: refused, the session has ended' : 'refresh: rotated');
      this.#context.announcer.announce(fresh === null ? 'sessionexpired' : 'change', publicState(next));
      // An expired pair kept (`dead`: a pair came) is refreshed again at once.
      if (dead) return again ? failed(fresh!, backingOff(next.backoff)) : this.#underLock(fresh!, reason, fresh!, next, budget, true);
    } else if (fresh !== null) {
      // The shopper logged out, or in anew, while this refresh was on its way: nobody holds the
      // pair it brought, so it is revoked where the server can, never kept (docs/behaviour.md,
      // "Refresh").
      if (DEBUG_BUILD) this.#context.log?.('refresh: landed after a logout or a new login; revoking the pair it brought');
      // `replaced` is not read again past this wait: a write redirected to the memory store that took
      // over from failed IndexedDB may still run its change there meanwhile, over what that database holds.
      await revokeSession(this.#context, fresh);
    }
    return next.session === null ? ENDED : { kind: 'fresh', session: next.session };
  }
}

/** True while `previous` still holds the pair whose refresh token `current` spends. */
function spent(previous: Credentials, current: Session): boolean {
  return previous.session?.refreshToken === current.refreshToken;
}

/** True when `credentials` hold a key for the refresh token `current` spends. */
function keyed(credentials: Credentials, current: Session): credentials is Credentials & { refreshKey: RefreshKey } {
  return credentials.refreshKey?.refreshToken === current.refreshToken;
}

/** `credentials` with `refreshKey` set, or without one for `null`. */
function withKey(credentials: Credentials, refreshKey: RefreshKey | null): Credentials {
  const { refreshKey: _dropped, ...rest } = credentials;
  return refreshKey === null ? rest : { ...rest, refreshKey };
}

function failed(session: Session, error: StorefrontAuthError): RefreshOutcome {
  return { kind: 'failed', session, error };
}

function backingOff(backoff: Backoff | null): StorefrontAuthError {
  const until = backoff === null ? '' : ` until ${new Date(backoff.until).toISOString()}`;
  return new StorefrontAuthError('network_error', DEBUG_BUILD ? `The last refresh failed, so the next one waits${until}; the session is kept, try again then.` : `backing off${until}`);
}
