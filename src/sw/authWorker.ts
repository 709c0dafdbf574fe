/**
 * The orchestrator: wires one base URL's memory copy, announcer and refresher to the request path
 * (requestPath.ts: what the page's requests get), the bridge's actions (bridgeActions.ts: login,
 * logout, cart creation) and, where the option is on, the offline cart writes (offlineWrites.ts),
 * and says when storage goes away.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { Announcer, type ToPages } from './announcer.js';
import { BridgeActions } from './bridgeActions.js';
import { NO_CREDENTIALS, type CredentialStorage } from './credentialStorage.js';
import { HeldCredentials } from './heldCredentials.js';
import { OfflineWrites, REPLAY_BUDGET_MS } from './offlineWrites.js';
import type { ResolvedOptions } from './options.js';
import { reachable, sendOwn, type FetchFunction, type SendOwn } from './outbound.js';
import { publicState } from './publicState.js';
import { RequestPath } from './requestPath.js';
import { SessionRefresher } from './sessionRefresher.js';
import { WriteQueue } from './writeQueue.js';
import type { WriteStorage } from './writeStore.js';

/** The worker's I/O, handed in so the same code runs standalone, inside an app's worker, or in tests. */
export interface WorkerEnvironment {
  fetch: FetchFunction;
  now: () => number;
  storage: CredentialStorage;
  /** Delivers announcements to the pages; a no-op where there are none (tests). */
  toPages: ToPages;
  /** Logs a decision when `debug` is on; `undefined` otherwise, so no log text is even built. */
  log: ((message: string) => void) | undefined;
  /** Where queued writes are stored; without it, no write is queued whatever the options say. */
  writes?: WriteStorage;
  /** What the browser reports: `navigator.onLine`; always online when absent. */
  online?: () => boolean;
  /** Asks for a Background Sync where the browser has one; nothing when absent. */
  requestSync?: () => void;
  /** Runs `wake` once `ms` have passed, replacing the call before (the worker's one replay timer); nothing when absent. */
  wakeIn?: (ms: number, wake: () => void) => void;
}

/** What the refresher, the actions and the request path share: the options, the credentials, the announcer and the I/O. */
export interface WorkerContext {
  options: ResolvedOptions;
  held: HeldCredentials;
  announcer: Announcer;
  fetch: FetchFunction;
  /** The worker's own requests, through the one way out (outbound.ts). */
  send: SendOwn;
  now: () => number;
  log: WorkerEnvironment['log'];
  /** The offline cart writes, or `null` while the option is off. */
  writes: OfflineWrites | null;
}

/** One base URL's credentials, the rules that apply them, and the actions that change them. */
export class AuthWorker {
  readonly options: ResolvedOptions;
  readonly requests: RequestPath;
  readonly actions: BridgeActions;
  /** The offline cart writes, or `null` while the option is off. */
  readonly writes: OfflineWrites | null;
  readonly #held: HeldCredentials;
  readonly #announcer: Announcer;
  readonly #refresher: SessionRefresher;

  constructor(options: ResolvedOptions, env: WorkerEnvironment) {
    this.options = options;
    this.#held = new HeldCredentials(env.storage, {
      failed: (error) => this.#storageFailed(error),
      superseded: () => void this.#retire(env.log),
      // The pages were told what the memory copy held: told again where storage held otherwise.
      caughtUp: (before, after) => {
        const state = publicState(after);
        if (JSON.stringify(state) !== JSON.stringify(publicState(before ?? NO_CREDENTIALS))) this.#announcer.announce('change', state);
      },
    });
    const held = this.#held;
    const announcer = (this.#announcer = new Announcer(
      options.baseUrl,
      () => {
        held.invalidate();
        this.writes?.invalidate();
      },
      env.toPages,
      () => this.writes?.pending ?? 0,
    ));
    const { fetch, now, log } = env;
    const send: SendOwn = (request, limits) => sendOwn(fetch, options.baseUrl, request, now, limits);
    // The request path and the actions come below; the writes call them only later, once a write is queued.
    const writes = (this.writes = options.offlineWrites && env.writes
      ? new OfflineWrites({
          options,
          held,
          announcer,
          queue: new WriteQueue(env.writes),
          sendQueued: (request, body, belongs, keepAlive) => this.requests.sendQueued(request, body, belongs, keepAlive),
          associated: () => this.actions.associated(),
          assigned: () => this.requests.assignment(),
          requestSync: env.requestSync ?? (() => {}),
          online: env.online ?? (() => true),
          reachable: () => reachable(fetch, options.baseUrl, REPLAY_BUDGET_MS),
          now,
          newKey: () => crypto.randomUUID(),
          wakeIn: env.wakeIn ?? (() => {}),
          log,
        })
      : null);
    const context: WorkerContext = { options, held, announcer, fetch, send, now, log, writes };
    const refresher = (this.#refresher = new SessionRefresher(context, `storefront-auth:refresh:${options.baseUrl}`));
    this.actions = new BridgeActions({ ...context, refresher });
    this.requests = new RequestPath({ ...context, refresher, keeper: this.actions });
  }

  /** Loads the credentials before any request needs them, so the one that woke the worker rarely waits; starts queued writes on their way. */
  preload(): void {
    void this.#held.load();
    this.writes?.start();
  }

  /** A bridge message came: queued writes go if due; `now` (the page saw the network return) whatever their back-off. */
  nudge(keepAlive: (work: Promise<unknown>) => void, now = false): void {
    this.writes?.nudge(keepAlive, now);
  }

  /**
   * Drops the memory copy: a deleted database means nothing is stored, with no read that would
   * create it again (an uninstall deletes it while this worker still runs); a closed one is re-read.
   */
  forgetMemoryCopy(how: 'deleted' | 'closed'): void {
    if (how === 'deleted') {
      this.#held.cleared();
      this.writes?.cleared();
    } else {
      this.#held.invalidate();
      this.writes?.invalidate();
    }
  }

  /**
   * Resolves once a refresh in flight here has landed in storage, and a replay in flight has settled
   * the write it is sending (and stopped), so that an upgrade carries both over.
   */
  settleWrites(): Promise<void> {
    return Promise.all([this.#refresher.settled(), this.writes?.settled()]).then(() => {});
  }

  /**
   * A newer storefront-auth schema holds the database: this release serves from memory, without
   * refreshing (it could not see a pair rotated by the newer one), until the browser retires it.
   */
  async #retire(log: WorkerEnvironment['log']): Promise<void> {
    await this.#refresher.retire();
    if (DEBUG_BUILD) log?.('storage: handed to a newer release');
  }

  /** Says once per worker run, in the console and to every page, that credentials are now in memory only. */
  #storageFailed(error: unknown): void {
    // An Error (a DOMException too) reads as its name and message.
    const message = `IndexedDB failed (${String(error)}); ${DEBUG_BUILD ? 'the cart and sign-in last only until the browser stops the worker.' : 'kept in memory only'}`;
    console.warn(`storefront-auth: ${message}`);
    void this.#held.announced().then((held) => this.#announcer.announce('storageunavailable', publicState(held), { code: 'storage_unavailable', message }));
  }
}
