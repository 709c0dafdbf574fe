/**
 * Refreshes the access token (SPEC.md 4.3) under the refresh lock, keeping the latest refresh token
 * (SPEC.md 5, rule 4). Whatever the outcome, a change is written to storage before it is announced.
 */
import { isStorefrontAuthError } from '../shared/errors.js';
import type { HeldCredentials } from './heldCredentials.js';
import { publicState } from './publicState.js';
import { isRefreshDue } from './refreshDue.js';
import { RefreshLock } from './refreshLock.js';
import { postForm, refreshGrant } from './tokenEndpoint.js';
import { judgeTokenReply, type Session } from './tokenResponse.js';
import type { Announcer } from './announcer.js';

/** What the refresher needs from the worker; I/O is handed in. */
export interface RefresherContext {
  held: HeldCredentials;
  announcer: Announcer;
  tokenUrl: string;
  fetch: typeof fetch;
  now: () => number;
  /** Debug logging, or `undefined` when off. */
  log: ((message: string) => void) | undefined;
}

/** Turns a stale session into a fresh one, at most once per expiry across the origin. */
export class SessionRefresher {
  readonly #context: RefresherContext;
  readonly #lock: RefreshLock<Session | null>;
  #retired = false;

  constructor(context: RefresherContext, lockName: string) {
    this.#context = context;
    this.#lock = new RefreshLock(lockName);
  }

  /**
   * A session to use instead of `stale`: another context's if it already rotated, else a new one.
   * Resolves `null` when the session has ended (refused refresh, or signed out meanwhile); rejects
   * with `network_error` or `bad_response` and keeps the pair when the server could not be asked.
   */
  refresh(stale: Session): Promise<Session | null> {
    return this.#retired ? Promise.resolve(stale) : this.#lock.run(() => this.#underLock(stale));
  }

  /**
   * Refreshes no more: a newer release is taking the database, and could not see a pair rotated
   * here, so spending the refresh token here would end the session. `refresh` then answers with
   * the stale session. Resolves once a refresh in flight has landed in storage.
   */
  retire(): Promise<void> {
    this.#retired = true;
    return this.#lock.settled();
  }

  async #underLock(stale: Session): Promise<Session | null> {
    const { held, announcer, now, log } = this.#context;
    // Another tab's worker may have rotated the pair while this one waited for the lock.
    const current = (await held.reread()).session;
    if (current === null) return null;
    if (current.accessToken !== stale.accessToken && !isRefreshDue(current, now())) {
      log?.('refresh: using the pair another context rotated');
      return current;
    }
    log?.('refresh: sending the refresh grant');
    const reply = await postForm(this.#context.fetch, this.#context.tokenUrl, refreshGrant(current.refreshToken), now);
    let fresh: Session | null;
    try {
      fresh = judgeTokenReply(reply, 'refresh');
    } catch (error) {
      if (!isStorefrontAuthError(error) || error.code !== 'invalid_grant') throw error;
      fresh = null;
    }
    // Only replace the pair that was spent: a login or logout meanwhile wins, and is not re-announced.
    let replaced = false;
    const next = await held.update((previous) => {
      replaced = previous.session?.refreshToken === current.refreshToken;
      return replaced ? { ...previous, session: fresh } : previous;
    });
    if (replaced) {
      log?.(fresh === null ? 'refresh: refused, the session has ended' : 'refresh: rotated');
      announcer.announce(fresh === null ? 'sessionexpired' : 'change', publicState(next));
    }
    return next.session;
  }
}
