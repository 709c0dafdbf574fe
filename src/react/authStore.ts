/**
 * The React binding's store: one bridge per mounted provider, registered only when the provider
 * asks (from an effect, which a server never runs) and released, with every listener it added, when
 * the provider unmounts; and the snapshot that `useSyncExternalStore` reads. It holds no React, so it
 * is tested in Node as it is.
 *
 * The snapshot is replaced, never changed, so React sees a new value exactly when there is one: on
 * the bridge's `change` and `sessionexpired` events (every tab's changes arrive as those), and once
 * the first `getState()` answers (asked again while it fails). That answer is dropped when an event
 * came after it was asked for, since the event is newer.
 */
import { isStorefrontAuthError, StorefrontAuth, StorefrontAuthError, type AuthChange, type AuthState, type BridgeOptions } from '../page/index.js';
import { RELEASE, type ReleasableOptions } from '../page/release.js';

/** What the hook reads: the state (`null` until known) and the error registration met (`null` if none). */
export interface AuthSnapshot {
  readonly state: AuthState | null;
  readonly error: StorefrontAuthError | null;
}

/** The snapshot before anything is known, and the one a server renders with. */
export const UNKNOWN: AuthSnapshot = Object.freeze({ state: null, error: null });

/** The bridge's methods, as the hook hands them on. */
export interface AuthActions {
  login(credentials: { username: string; password: string }): Promise<AuthState>;
  logout(): Promise<AuthState>;
  createCart(): Promise<AuthState>;
}

/** One provider's bridge and its snapshot. */
export class AuthStore implements AuthActions {
  readonly #options: BridgeOptions;
  readonly #listeners = new Set<() => void>();
  #snapshot: AuthSnapshot = UNKNOWN;
  #bridge: Promise<StorefrontAuth> | null = null;
  /** Aborted by `stop()`: takes back the listeners the bridge added to the page and this store's on the bridge. */
  #release = new AbortController();
  /** Counts the events, so that a `getState()` answer asked for before one of them is not taken over it. */
  #events = 0;

  constructor(options: BridgeOptions = {}) {
    this.#options = options;
  }

  /** For `useSyncExternalStore`: calls `listener` whenever the snapshot is replaced. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  };

  /** For `useSyncExternalStore`: the current snapshot, the same object until something changes. */
  readonly getSnapshot = (): AuthSnapshot => this.#snapshot;

  /** For `useSyncExternalStore` on a server, and while hydrating: nothing is known there. */
  readonly getServerSnapshot = (): AuthSnapshot => UNKNOWN;

  /** Registers the worker with `StorefrontAuth.register`, the first time and after `stop()`; resolves with the bridge. */
  start(): Promise<StorefrontAuth> {
    if (this.#bridge === null || this.#release.signal.aborted) {
      this.#release = new AbortController();
      this.#bridge = this.#connect(this.#release.signal);
    }
    return this.#bridge;
  }

  /**
   * Leaves nothing listening, whether registration finished or not: the provider unmounted. A
   * stopped bridge still answers the methods, but no longer moves the snapshot. StrictMode's mount,
   * unmount and mount starts a second bridge, whose `getState()` gives the first state.
   */
  stop(): void {
    this.#release.abort();
  }

  readonly login = (credentials: { username: string; password: string }): Promise<AuthState> => this.#call((bridge) => bridge.login(credentials));
  readonly logout = (): Promise<AuthState> => this.#call((bridge) => bridge.logout());
  readonly createCart = (): Promise<AuthState> => this.#call((bridge) => bridge.createCart());

  async #connect(signal: AbortSignal): Promise<StorefrontAuth> {
    let bridge: StorefrontAuth;
    try {
      const options: ReleasableOptions<BridgeOptions> = { ...this.#options, [RELEASE]: { signal } };
      bridge = await StorefrontAuth.register(options);
    } catch (caught) {
      const error = isStorefrontAuthError(caught) ? caught : new StorefrontAuthError('no_service_worker', String(caught), { cause: caught });
      if (!signal.aborted) this.#set({ state: null, error });
      throw error;
    }
    const changed = (event: Event): void => {
      this.#events += 1;
      this.#set({ state: stateOf((event as CustomEvent<AuthChange>).detail), error: null });
    };
    // Stopped while registering, the signal is aborted already: these add nothing, and the answer below is not taken.
    bridge.addEventListener('change', changed, { signal });
    bridge.addEventListener('sessionexpired', changed, { signal });
    this.#ask(bridge, signal, 0);
    return bridge;
  }

  /**
   * Reads the first state. One that cannot be read now (the worker slow to answer: a `timeout`) is
   * asked for again, later each time (1 s, 2 s, … 30 s), until it comes or an event brings one: a
   * UI waiting for `state` would otherwise wait for the shopper's next change, in any tab.
   */
  #ask(bridge: StorefrontAuth, signal: AbortSignal, tries: number): void {
    const asked = this.#events;
    bridge.getState().then(
      (state) => void (this.#events === asked && !signal.aborted && this.#set({ state, error: null })),
      () => {
        if (this.#events !== asked || signal.aborted) return;
        // One listener at a time: a worker that stays slow must not gather one per try.
        const cancel = (): void => clearTimeout(timer);
        const timer = setTimeout(() => {
          signal.removeEventListener('abort', cancel);
          if (this.#events === asked) this.#ask(bridge, signal, tries + 1);
        }, Math.min(1000 * 2 ** tries, 30_000));
        signal.addEventListener('abort', cancel);
      },
    );
  }

  /** Runs a method on the bridge once it is registered; where registration failed, rejects with `no_service_worker`. */
  async #call(method: (bridge: StorefrontAuth) => Promise<AuthState>): Promise<AuthState> {
    let bridge: StorefrontAuth;
    try {
      // A stopped store's bridge still answers: a method called after unmounting registers nothing anew.
      bridge = await (this.#bridge ?? this.start());
    } catch (error) {
      if (isStorefrontAuthError(error) && error.code === 'no_service_worker') throw error;
      throw new StorefrontAuthError('no_service_worker', `storefront-auth did not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return method(bridge);
  }

  #set(next: AuthSnapshot): void {
    this.#snapshot = next;
    for (const listener of [...this.#listeners]) listener();
  }
}

/** The state in a `change` event's detail, without the warning that may ride along. */
function stateOf(detail: AuthChange): AuthState {
  const { warning: _warning, ...state } = detail;
  return state;
}
