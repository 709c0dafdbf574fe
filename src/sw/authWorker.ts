/**
 * The orchestrator: adds credentials to storefront requests, keeps what responses bring, refreshes
 * the bearer, and carries out the bridge's login, logout and cart creation. Decisions live in pure
 * modules (requestRules, refreshDue, tokenResponse, cartDocument); this file does the I/O.
 */
import { StorefrontAuthError, isStorefrontAuthError, serializeError, type SerializedError } from '../shared/errors.js';
import type { AuthState } from '../shared/state.js';
import { Announcer } from './announcer.js';
import { readCartDocument, type HeldCart } from './cartDocument.js';
import { NO_CREDENTIALS, type CredentialStorage, type Credentials } from './credentialStorage.js';
import { HeldCredentials } from './heldCredentials.js';
import type { ResolvedOptions } from './options.js';
import { publicState } from './publicState.js';
import { isRefreshDue } from './refreshDue.js';
import {
  classifyRequest,
  decideRequest,
  pathUnderBase,
  STOREFRONT_PATHS,
  type Decision,
  type RequestKind,
} from './requestRules.js';
import { bufferBody, sendWithHeader, type BufferedBody } from './sendRequest.js';
import { SessionRefresher } from './sessionRefresher.js';
import { MAX_TOKEN_BODY_CHARS, networkError, passwordGrant, postForm } from './tokenEndpoint.js';
import { judgeTokenReply, parseJson, readTokenBody, type Session } from './tokenResponse.js';

/** The worker's I/O, handed in so the same code runs standalone, inside an app's worker, or in tests. */
export interface WorkerEnvironment {
  fetch: typeof fetch;
  now: () => number;
  storage: CredentialStorage;
  /** Logs a decision when `debug` is on; `undefined` otherwise, so no log text is even built. */
  log: ((message: string) => void) | undefined;
}

/** The result of an action the bridge asked for. */
export interface ActionResult {
  state: AuthState;
  /** The id of the announcement the action made, or `null` when nothing changed. */
  changeId: string | null;
  /** Why part of the action failed although the action stood (a cart not assigned at login). */
  warning?: SerializedError;
}

/** One base URL's credentials and the rules that apply them. */
export class AuthWorker {
  readonly options: ResolvedOptions;
  readonly #env: WorkerEnvironment;
  readonly #held: HeldCredentials;
  readonly #announcer: Announcer;
  readonly #refresher: SessionRefresher;

  constructor(options: ResolvedOptions, env: WorkerEnvironment) {
    this.options = options;
    this.#env = env;
    this.#held = new HeldCredentials(env.storage, (error) => this.#storageFailed(error));
    this.#announcer = new Announcer(options.baseUrl, () => this.#held.invalidate());
    this.#refresher = new SessionRefresher(
      { held: this.#held, announcer: this.#announcer, tokenUrl: this.#url(options.preset.tokenPath), fetch: env.fetch, now: env.now, log: env.log },
      `storefront-auth:refresh:${options.baseUrl}`,
    );
  }

  /** Loads the credentials before any request needs them, so the one that woke the worker rarely waits. */
  preload(): void {
    void this.#held.load();
  }

  /**
   * Synchronous, as Workbox route matching is. With the credentials in memory: the decision (Workbox
   * hands it to the handler as `params`, so `handle` need not decide again), or `null` when the
   * request needs nothing, so it never reaches `respondWith`. While the credentials are not loaded
   * yet: `true` for any storefront request, and `handle` decides once they are.
   */
  match(request: Request, url: URL): Decision | true | null {
    // Navigations and no-cors requests cannot carry our headers; credentials are for API fetches.
    if (request.mode === 'navigate' || request.mode === 'no-cors') return null;
    const kind = classifyRequest(url, request.method, this.options);
    if (kind === null) return null;
    const held = this.#held.current;
    return held === null ? true : this.#decide(kind, held, request);
  }

  /**
   * Answers a matched request with the decision `match` made, or, when it could not, with one made
   * now from the loaded credentials. Rejects (a network error for the page) only when it could not be sent.
   */
  async handle(request: Request, url: URL, matched?: Decision): Promise<Response> {
    const decision = matched ?? (await this.#decideOnceLoaded(request, url));
    if (decision === null) return this.#env.fetch(request);
    const { credential, capture } = decision;
    this.#env.log?.(`${request.method} ${url.pathname}: ${credential ?? 'no credential'}${capture === null ? '' : `, keeps the ${capture}`}`);
    const response = await this.#send(request, decision);
    if (capture !== null && response.ok) await this.#capture(capture, response.clone(), this.#env.now());
    return response;
  }

  /** Drops the memory copy so the next use re-reads storage (the database was deleted or closed). */
  forgetMemoryCopy(): void {
    this.#held.invalidate();
  }

  /**
   * A newer release upgrades the storage schema: once a refresh in flight here has landed (so the
   * upgrade carries the rotated pair over), this worker lets go of the database and serves from
   * memory, without refreshing, until the browser retires it.
   */
  async yieldStorage(): Promise<void> {
    await this.#refresher.retire();
    await this.#held.detach();
    this.#env.log?.('storage: handed to a newer release');
  }

  /** The current public state. */
  async getState(): Promise<ActionResult> {
    return { state: publicState(await this.#held.load()), changeId: null };
  }

  /**
   * Runs the password grant and keeps the pair (SPEC.md 4.2). A guest cart held at that moment is
   * kept and assigned to the user; if that fails, the login stands and the announcement says why.
   */
  async login(username: string, password: string): Promise<ActionResult> {
    const reply = await postForm(this.#env.fetch, this.#url(this.options.preset.tokenPath), passwordGrant(username, password), this.#env.now);
    const session = judgeTokenReply(reply, 'password');
    this.#env.log?.('login: signed in');
    return this.#signIn(session);
  }

  /** Forgets the pair and the cart; revokes the tokens at the server where the preset can, best effort. */
  async logout(): Promise<ActionResult & { revoked: Promise<void> }> {
    let forgotten: Credentials = NO_CREDENTIALS;
    await this.#held.update((previous) => {
      forgotten = previous;
      return NO_CREDENTIALS;
    });
    this.#env.log?.('logout: credentials forgotten');
    return { ...this.#announce(NO_CREDENTIALS), revoked: this.#revoke(forgotten.session) };
  }

  /** Creates a cart (SPEC.md 4.1) and keeps its token, replacing any cart held before. */
  async createCart(): Promise<ActionResult> {
    const url = `${this.#url(STOREFRONT_PATHS.cart)}?${new URLSearchParams({ 'fields[cart]': 'number,token' })}`;
    const request = new Request(url, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, credentials: 'omit' });
    const held = await this.#held.load();
    const decision: Decision = { kind: 'cartCreate', credential: held.session === null ? null : 'bearer', capture: 'cart' };
    let response: Response;
    try {
      response = await this.#send(request, decision);
    } catch (error) {
      throw isStorefrontAuthError(error) ? error : networkError(url, error);
    }
    const cart = readCartDocument(parseJson(await response.text().catch(() => '')));
    if (!response.ok || cart === null) {
      throw new StorefrontAuthError(
        response.status === 400 || response.status === 422 ? 'invalid_request' : 'bad_response',
        `Creating a cart at ${url} answered ${response.status} ${response.ok ? 'without a token and number' : 'instead of a cart'}; the previous cart is kept.`,
        { status: response.status },
      );
    }
    return this.#announce(await this.#keepCart(cart));
  }

  /** Says once per worker run, in the console and to every page, that credentials are now in memory only. */
  #storageFailed(error: unknown): void {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const message = `IndexedDB failed (${reason}); the cart and sign-in last only until the browser stops the worker.`;
    console.warn(`storefront-auth: ${message}`);
    this.#announcer.announce('storageunavailable', publicState(this.#held.current ?? NO_CREDENTIALS), { code: 'storage_unavailable', message });
  }

  /** `match`'s decision, for a request that arrived before the credentials were in memory. */
  async #decideOnceLoaded(request: Request, url: URL): Promise<Decision | null> {
    const kind = classifyRequest(url, request.method, this.options);
    return kind === null ? null : this.#decide(kind, await this.#held.load(), request);
  }

  #decide(kind: RequestKind, held: Credentials, request: Request): Decision | null {
    return decideRequest(
      kind,
      { signedIn: held.session !== null, hasCart: held.cart !== null },
      { authorization: request.headers.has('Authorization'), orderToken: request.headers.has(this.options.preset.orderTokenHeader) },
    );
  }

  async #send(request: Request, decision: Decision): Promise<Response> {
    if (decision.credential === null) return this.#env.fetch(request);
    const body = await bufferBody(request);
    const held = this.#held.current ?? (await this.#held.load());
    if (decision.credential === 'orderToken' && held.cart !== null) {
      return this.#sendWith(request, body, [this.options.preset.orderTokenHeader, held.cart.token]);
    }
    return held.session === null ? this.#sendAsGuest(request, body, decision.kind) : this.#sendWithBearer(request, body, decision.kind, held.session);
  }

  /** Bearer rules (CONTRACT.md, "Refresh"): refresh first when due; after a 401, one refresh and one replay. */
  async #sendWithBearer(request: Request, body: BufferedBody, kind: RequestKind, held: Session): Promise<Response> {
    let session: Session | null = held;
    if (isRefreshDue(session, this.#env.now())) {
      session = await this.#refresher.refresh(session);
      // Refused before sending: the request goes out as a guest's would.
      if (session === null) return this.#sendAsGuest(request, body, kind);
    }
    const first = await this.#sendWith(request, body, ['Authorization', `Bearer ${session.accessToken}`]);
    if (first.status !== 401) return first;
    this.#env.log?.(`${request.method} ${new URL(request.url).pathname}: 401, refreshing once`);
    const fresh = await this.#refresher.refresh(session);
    // Refused, or no newer pair to replay with: the page receives the server's original 401.
    if (fresh === null || fresh.accessToken === session.accessToken) return first;
    return this.#sendWith(request, body, ['Authorization', `Bearer ${fresh.accessToken}`]);
  }

  async #sendAsGuest(request: Request, body: BufferedBody, kind: RequestKind): Promise<Response> {
    const { cart } = this.#held.current ?? (await this.#held.load());
    if (kind === 'cartOrCheckout' && cart !== null && !request.headers.has(this.options.preset.orderTokenHeader)) {
      return this.#sendWith(request, body, [this.options.preset.orderTokenHeader, cart.token]);
    }
    return this.#env.fetch(body === undefined ? request : new Request(request, { body }));
  }

  #sendWith(request: Request, body: BufferedBody, header: readonly [string, string]): Promise<Response> {
    return sendWithHeader(this.#env.fetch, request, body, header, (url) => pathUnderBase(new URL(url), this.options.base) !== null);
  }

  /** Keeps the cart or the pair that a successful response brought, whoever sent the request. */
  async #capture(kind: 'cart' | 'token', response: Response, receivedAt: number): Promise<void> {
    const text = await response.text().catch(() => '');
    const body = parseJson(text);
    if (kind === 'cart') {
      const cart = readCartDocument(body);
      if (cart !== null) this.#announce(await this.#keepCart(cart));
      return;
    }
    const session = text.length > MAX_TOKEN_BODY_CHARS ? null : readTokenBody(body, receivedAt);
    if (session === null) return;
    this.#env.log?.('capture: kept the pair from a token response');
    await this.#signIn(session);
  }

  /**
   * Stores a new pair and announces the sign-in, first assigning the cart a guest held to the user,
   * whether the bridge or the page (an SDK's own grant) signed in. A cart held while already signed
   * in is the user's.
   */
  async #signIn(session: Session): Promise<ActionResult> {
    let previous: Credentials = NO_CREDENTIALS;
    const next = await this.#held.update((held) => {
      previous = held;
      return { ...held, session };
    });
    const guestCart = previous.session === null ? next.cart : null;
    const failure = guestCart === null ? null : await this.#associate(guestCart, session);
    return this.#announce(next, failure === null ? undefined : serializeError(failure));
  }

  #keepCart(cart: HeldCart): Promise<Credentials> {
    this.#env.log?.(`capture: kept cart ${cart.number}`);
    return this.#held.update((previous) => ({ ...previous, cart }));
  }

  #announce(next: Credentials, warning?: SerializedError): ActionResult {
    const state = publicState(next);
    const result: ActionResult = { state, changeId: this.#announcer.announce('change', state, warning) };
    if (warning !== undefined) result.warning = warning;
    return result;
  }

  /** Assigns a guest cart to the signed-in user (STOREFRONT-FACTS.md, `cart/associate`). */
  async #associate(cart: HeldCart, session: Session): Promise<StorefrontAuthError | null> {
    // The guest token travels in the query, so error messages name the path alone.
    const path = `${this.#url(STOREFRONT_PATHS.cart)}/associate`;
    let response: Response;
    try {
      response = await this.#env.fetch(`${path}?${new URLSearchParams({ guest_order_token: cart.token })}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${session.accessToken}`, 'Content-Type': 'application/vnd.api+json' },
        credentials: 'omit',
      });
    } catch (error) {
      return networkError(path, error);
    }
    if (response.ok) return null;
    this.#env.log?.(`sign-in: assigning cart ${cart.number} failed with ${response.status}`);
    return new StorefrontAuthError(
      'bad_response',
      `Signed in, but assigning guest cart ${cart.number} failed (${response.status}${response.status === 422 ? ', it belongs to a user' : ''}); the cart is still held.`,
      { status: response.status },
    );
  }

  /** RFC 7009 revocation where the preset names a path; failures are ignored, as logout already stands. */
  async #revoke(session: Session | null): Promise<void> {
    const path = this.options.preset.revokePath;
    if (path === null || session === null) return;
    await Promise.all(
      [session.accessToken, session.refreshToken].map((token) =>
        this.#env
          .fetch(this.#url(path), { method: 'POST', body: new URLSearchParams({ token }), credentials: 'omit', signal: AbortSignal.timeout(10_000) })
          .then(
            () => undefined,
            () => undefined,
          ),
      ),
    );
  }

  #url(path: string): string {
    return this.options.baseUrl + path;
  }
}
