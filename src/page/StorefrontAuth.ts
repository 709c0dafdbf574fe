/**
 * The page bridge: sends the worker login, logout and cart-creation requests and turns its
 * announcements into `change`, `sessionexpired`, `storageunavailable`, `writequeued` and
 * `writesettled` events. It never sees a token.
 */
import { baseUrlRefusal, mixedContentRefusal, normalizeBaseUrl, notABooleanRefusal, notAStringRefusal } from '../shared/baseUrl.js';
import { StorefrontAuthError, type SerializedError } from '../shared/errors.js';
import { isAnnouncement, LOGIN_NEEDS, loginFields, MESSAGE_TAG, PROTOCOL_VERSION, type AnnouncementType, type WorkerRequest } from '../shared/protocol.js';
import { isPresetName, needsPublishableKey, PRESET_NAMES, type PresetName } from '../shared/presetName.js';
import { publishableKeyRefusal } from '../shared/publishableKey.js';
import type { AuthState } from '../shared/state.js';
import type { WriteQueued, WriteSettled } from '../shared/writeEvents.js';
import { messageWorker } from './messageWorker.js';
import { scopeRefusal } from './pageScope.js';
import { RELEASE, type ReleasableOptions } from './release.js';
import { serviceWorkers, waitForControl } from './waitForControl.js';

/** The bridge's options (docs/behaviour.md, "Configuration"). */
export interface BridgeOptions {
  /** The API's base: an `http://` or `https://` URL, or a path from the site's root; default: the page's origin. */
  baseUrl?: string;
  /** `store` (default), `spree` (Spree 4.x's Storefront API v2) or `spree-v3` (Spree 5's Store API). */
  preset?: PresetName;
  /** The Store API's publishable key (`pk_…`); required by `spree-v3`, which sends it on the worker's own requests. */
  publishableKey?: string;
  /** The standalone worker's URL (text or a `URL`); default `/storefront-auth-sw.js`. */
  swUrl?: string | URL;
  /** The registration's scope; default `/`. A page outside it is refused at once (`no_service_worker`). */
  scope?: string;
  /** `false` when the app registers its own worker that calls `installStorefrontAuth`. */
  registerWorker?: boolean;
  /** Asks the standalone worker to log its decisions to the console (never a token). */
  debug?: boolean;
  /**
   * `false` lets the page read the real tokens in cart and token responses; by default the
   * standalone worker replaces them with placeholders (docs/security.md, "How sealing works").
   */
  sealTokens?: boolean;
  /**
   * Cart writes that cannot reach the server are queued by the worker, answered `202`, and sent
   * when the network returns; default `false`.
   */
  offlineWrites?: boolean;
}

/** A `change` event's detail: the new state, and why part of the action failed when it did. */
export type AuthChange = AuthState & { warning?: SerializedError };

/** The events the bridge dispatches. */
export interface StorefrontAuthEventMap {
  change: CustomEvent<AuthChange>;
  sessionexpired: CustomEvent<AuthState>;
  /**
   * IndexedDB failed in the worker (private mode, quota, a broken profile): the credentials now last
   * only until the browser stops the worker. Sent once per worker run. Not sent when a newer
   * storefront-auth schema holds the database: that retires the worker's release instead.
   */
  storageunavailable: CustomEvent<AuthChange>;
  /** A cart write could not reach the server and was queued (`offlineWrites`); `pendingWrites` counts it. */
  writequeued: CustomEvent<WriteQueued>;
  /** A queued write ended: applied, rejected by the server, dropped (its cart or sign-in ended) or expired. */
  writesettled: CustomEvent<WriteSettled>;
}

/** Typed listeners for the bridge's events (merged into the class below). */
export interface StorefrontAuth {
  addEventListener<K extends keyof StorefrontAuthEventMap>(
    type: K,
    listener: (this: StorefrontAuth, event: StorefrontAuthEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof StorefrontAuthEventMap>(
    type: K,
    listener: (this: StorefrontAuth, event: StorefrontAuthEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions): void;
}

/** How many announcement ids to remember, to dispatch a change once when it arrives twice. */
const SEEN_IDS = 32;

/** The page's handle on the storefront-auth worker. */
export class StorefrontAuth extends EventTarget {
  /** The normalised base URL this bridge's worker serves. */
  readonly baseUrl: string;
  /** Resolves once the page is controlled by the worker; every method waits for it. */
  readonly ready: Promise<StorefrontAuth>;
  readonly #seen: string[] = [];

  /** Registers the worker and resolves with a bridge once the page is controlled. */
  static register(options: BridgeOptions = {}): Promise<StorefrontAuth> {
    return new StorefrontAuth(options).ready;
  }

  /** Starts registration at once; prefer `StorefrontAuth.register` unless you need the instance first. */
  constructor(options: BridgeOptions = {}) {
    super();
    const page = globalThis.location?.href ?? 'http://localhost/';
    // The default '/' normalises to the page's origin.
    this.baseUrl = normalizeBaseUrl(options.baseUrl ?? '/', page) ?? '';
    this.ready = this.#start(options, page);
    // Nobody may be awaiting `ready` (the drop-in); its rejection still reaches every method call.
    this.ready.catch(() => {});
    // Announcements come from the worker itself (Client.postMessage): a trusted event whose source
    // is a service worker, which no other script of the origin can forge, unlike a BroadcastChannel.
    const container = serviceWorkers();
    if (this.baseUrl !== '' && container !== undefined) {
      // Both listeners go when the React binding's provider unmounts (./release.ts); else they last with the page.
      const listening = (options as ReleasableOptions<BridgeOptions>)[RELEASE];
      container.addEventListener('message', (event: MessageEvent<unknown>) => {
        const { data } = event;
        if (event.isTrusted && event.source instanceof ServiceWorker && isAnnouncement(data, this.baseUrl)) this.#dispatch(data.type, data.id, data.state, data.warning, data.write);
      }, listening);
      // Messages wait in the client's queue until this is called (or the document has loaded).
      container.startMessages();
      // The worker cannot tell when the network returns; a page can, and its queued writes go at once.
      globalThis.addEventListener?.('online', () => void this.#ask({ type: 'online' }).catch(() => {}), listening);
    }
  }

  /** Signs in with the password grant; the worker keeps the tokens. */
  async login(credentials: { username: string; password: string }): Promise<AuthState> {
    const fields = loginFields(credentials);
    if (fields === null) throw new StorefrontAuthError('invalid_request', LOGIN_NEEDS);
    return this.#ask({ type: 'login', ...fields });
  }

  /** Signs out: the worker forgets the pair and the cart token. */
  logout(): Promise<AuthState> {
    return this.#ask({ type: 'logout' });
  }

  /** Creates a cart and keeps its token, replacing any cart held before. */
  createCart(): Promise<AuthState> {
    return this.#ask({ type: 'createCart' });
  }

  /** The current state. */
  getState(): Promise<AuthState> {
    return this.#ask({ type: 'getState' });
  }

  async #start(options: BridgeOptions, page: string): Promise<StorefrontAuth> {
    if (this.baseUrl === '') throw new StorefrontAuthError('invalid_request', baseUrlRefusal(options.baseUrl ?? '/'));
    const refusal = mixedContentRefusal(this.baseUrl, page) ?? notAStringRefusal('publishableKey', options.publishableKey) ?? notAStringRefusal('scope', options.scope)
      ?? notABooleanRefusal(options, 'sealTokens', 'offlineWrites', 'registerWorker', 'debug');
    if (refusal !== null) throw new StorefrontAuthError('invalid_request', refusal);
    const preset: string = options.preset ?? 'store';
    if (!isPresetName(preset)) {
      throw new StorefrontAuthError('invalid_request', `preset ${JSON.stringify(preset)} is unknown; use one of ${PRESET_NAMES.map((name) => JSON.stringify(name)).join(', ')}.`);
    }
    const key = options.publishableKey?.trim() ?? '';
    if (needsPublishableKey(preset) && key === '') {
      throw new StorefrontAuthError('invalid_request', `preset "${preset}" needs publishableKey, the Store API's publishable key ("pk_…", data-publishable-key on the drop-in).`);
    }
    const keyRefusal = publishableKeyRefusal(key);
    if (keyRefusal !== null) throw new StorefrontAuthError('invalid_request', keyRefusal);
    const scope = options.scope ?? '/';
    // An empty scope would resolve to this page's own URL: a registration per page, each its own worker.
    if (!scope.trim()) throw new StorefrontAuthError('invalid_request', `scope ${JSON.stringify(scope)} is not a path.`);
    const outOfScope = scopeRefusal(page, scope);
    if (outOfScope !== null) {
      // The page keeps working, uncontrolled: say so where the site's developer looks.
      console.warn(`storefront-auth: ${outOfScope} Meanwhile its API calls go out without credentials.`);
      throw new StorefrontAuthError('no_service_worker', outOfScope);
    }
    let scriptUrl: string | null = null;
    if (options.registerWorker !== false) {
      const url = workerScriptUrl(options.swUrl ?? '/storefront-auth-sw.js', page);
      // A browser keeps no fragment in a worker's script URL: `ready` compares with that one.
      url.hash = '';
      const query = url.searchParams;
      query.set('base', this.baseUrl);
      query.set('preset', preset);
      if (key !== '') query.set('key', key);
      if (options.debug === true) query.set('debug', '1');
      if (options.sealTokens === false) query.set('seal', '0');
      if (options.offlineWrites === true) query.set('offline', '1');
      scriptUrl = url.href;
    }
    await waitForControl(scriptUrl, scope, (worker) => {
      worker.postMessage(this.#envelope({ type: 'claim' }));
    });
    return this;
  }

  async #ask(request: DistributiveOmit<WorkerRequest, 'tag' | 'v' | 'baseUrl'>): Promise<AuthState> {
    await this.ready;
    // `ready` resolved, so service workers exist here.
    const controller = navigator.serviceWorker.controller;
    if (controller == null) {
      throw new StorefrontAuthError('no_service_worker', 'The storefront-auth worker no longer controls this page; reload the page.');
    }
    const reply = await messageWorker(controller, this.#envelope(request));
    const state = withPending(reply.state);
    if (reply.changeId !== null) this.#dispatch('change', reply.changeId, state, reply.warning);
    return state;
  }

  #envelope(request: DistributiveOmit<WorkerRequest, 'tag' | 'v' | 'baseUrl'>): WorkerRequest {
    return { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, baseUrl: this.baseUrl, ...request } as WorkerRequest;
  }

  /**
   * Dispatches an announced change once, whether it came first in a reply or on the channel: a
   * `change` (every write queued or settled changes `pendingWrites`), then the event it names.
   */
  #dispatch(type: AnnouncementType, id: string, announced: AuthState, warning: SerializedError | undefined, write?: WriteQueued | WriteSettled): void {
    if (this.#seen.includes(id)) return;
    this.#seen.push(id);
    if (this.#seen.length > SEEN_IDS) this.#seen.shift();
    const state = withPending(announced);
    const detail: AuthChange = warning === undefined ? state : { ...state, warning };
    this.dispatchEvent(new CustomEvent(type === 'storageunavailable' ? type : 'change', { detail }));
    if (type === 'sessionexpired') this.dispatchEvent(new CustomEvent(type, { detail: state }));
    // Only the write events carry a write (isAnnouncement checked it); one on another type is not dispatched as that type again.
    else if (type.startsWith('write')) this.dispatchEvent(new CustomEvent(type, { detail: write }));
  }
}

/** The state with `pendingWrites`, which a worker of an earlier release leaves out. */
function withPending(state: AuthState): AuthState {
  return { ...state, pendingWrites: state.pendingWrites ?? 0 };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * The worker's script URL from `swUrl`, relative to the page; one that does not parse is the site's
 * setting to fix, and so is an empty one, which would resolve to the page itself.
 */
function workerScriptUrl(swUrl: string | URL, page: string): URL {
  try {
    // A URL as a bundler's pattern makes one (`new URL('./sw.js', import.meta.url)`), or its text.
    if (swUrl instanceof URL || swUrl.trim()) return new URL(swUrl, page);
  } catch {}
  throw new StorefrontAuthError('invalid_request', `swUrl ${JSON.stringify(swUrl)} is not a URL.`);
}
