/**
 * The bridge's actions (login, logout, cart creation, state) and the bookkeeping they share with
 * what a page's own responses bring: keeping a pair or a cart, announcing it, assigning a guest cart
 * to the shopper, and revoking a pair at logout. Every request here is one of the worker's own,
 * sent through the one way out (outbound.ts).
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { isStorefrontAuthError, StorefrontAuthError, serializeError, type SerializedError } from '../shared/errors.js';
import type { AuthState } from '../shared/state.js';
import { withinBudget } from './actionBudget.js';
import type { Announcer } from './announcer.js';
import { readCartDocument, type HeldCart } from './cartDocument.js';
import { NO_CREDENTIALS, type Credentials } from './credentialStorage.js';
import type { HeldCredentials } from './heldCredentials.js';
import type { ResolvedOptions } from './options.js';
import { OWN_REQUEST_BUDGET_MS, sendOwn, type FetchFunction, type OwnRequest } from './outbound.js';
import { publicState } from './publicState.js';
import type { KeepAlive } from './requestPath.js';
import { STOREFRONT_PATHS } from './requestRules.js';
import type { SessionRefresher } from './sessionRefresher.js';
import { passwordGrant, postGrant, refreshGrant } from './tokenEndpoint.js';
import { judgeTokenReply, parseJson, type Session } from './tokenResponse.js';

/** The result of an action the bridge asked for. */
export interface ActionResult {
  state: AuthState;
  /** The id of the announcement the action made, or `null` when nothing changed. */
  changeId: string | null;
  /** Why part of the action failed although the action stood. */
  warning?: SerializedError;
}

/** What the actions need; I/O is handed in. */
export interface ActionsContext {
  options: ResolvedOptions;
  held: HeldCredentials;
  announcer: Announcer;
  refresher: SessionRefresher;
  fetch: FetchFunction;
  now: () => number;
  log: ((message: string) => void) | undefined;
}

/** One base URL's actions. */
export class BridgeActions {
  readonly #context: ActionsContext;

  constructor(context: ActionsContext) {
    this.#context = context;
  }

  /** The current public state. */
  async getState(): Promise<ActionResult> {
    return { state: publicState(await this.#context.held.load()), changeId: null };
  }

  /**
   * Runs the password grant and keeps the pair (SPEC.md 4.2). Resolves once the sign-in is stored
   * and announced; a guest cart held then is assigned to the user afterwards (`signIn`). The grant
   * runs within the action's `budget` (actionBudget.ts).
   */
  async login(username: string, password: string, keepAlive: KeepAlive, budget: AbortSignal): Promise<ActionResult> {
    const { fetch, now } = this.#context;
    const reply = await postGrant(fetch, this.#url(this.#context.options.preset.tokenPath), passwordGrant(username, password), now, budget);
    const session = judgeTokenReply(reply, 'password');
    if (DEBUG_BUILD) this.#context.log?.('login: signed in');
    return this.signIn(session, keepAlive);
  }

  /**
   * Forgets the pair and the cart at once; revokes the tokens at the server where the preset can,
   * best effort, under `keepAlive`, so revocation never delays or fails the logout.
   */
  async logout(keepAlive: KeepAlive): Promise<ActionResult> {
    let forgotten: Credentials = NO_CREDENTIALS;
    await this.#context.held.update((previous) => {
      forgotten = previous;
      return NO_CREDENTIALS;
    });
    if (DEBUG_BUILD) this.#context.log?.('logout: credentials forgotten');
    if (forgotten.session !== null) keepAlive(this.#revoke(forgotten.session));
    return this.#announce(NO_CREDENTIALS);
  }

  /**
   * Creates a cart (SPEC.md 4.1) and keeps its token, replacing any cart held before. The wait for a
   * bearer and the creation share the action's `budget` (actionBudget.ts): a wait that spends it
   * fails the action before anything is sent, so no cart appears after the bridge gave up.
   */
  async createCart(budget: AbortSignal): Promise<ActionResult> {
    const label = `Creating a cart at ${this.#url(STOREFRONT_PATHS.cart)}`;
    const url = `${this.#url(STOREFRONT_PATHS.cart)}?${new URLSearchParams({ 'fields[cart]': 'number,token' })}`;
    const headers: Record<string, string> = { 'Content-Type': 'application/vnd.api+json' };
    // Signed in, the cart belongs to the user: it carries a bearer, refreshed first when due.
    const bearer = await withinBudget(this.#bearer(), budget, () => waitSpent(label));
    if (bearer !== null) headers['Authorization'] = `Bearer ${bearer}`;
    const reply = await this.#send({ method: 'POST', url, label, headers, budget });
    const cart = readCartDocument(parseJson(reply.text));
    const ok = reply.status >= 200 && reply.status < 300;
    if (!ok || cart === null) {
      throw new StorefrontAuthError(
        reply.status === 400 || reply.status === 422 ? 'invalid_request' : 'bad_response',
        DEBUG_BUILD ? `${label} answered ${reply.status} ${ok ? 'without a token and number' : 'instead of a cart'}; the previous cart is kept.` : `${label}: ${reply.status}`,
        { status: reply.status },
      );
    }
    return this.keepCart(cart);
  }

  /** Keeps a cart (the bridge's, or one a page's response brought) and announces it. */
  async keepCart(cart: HeldCart): Promise<ActionResult> {
    if (DEBUG_BUILD) this.#context.log?.(`capture: kept cart ${cart.number}`);
    return this.#announce(await this.#context.held.update((previous) => ({ ...previous, cart })));
  }

  /**
   * Stores a new pair and announces the sign-in, whether the bridge or the page (an SDK's own grant)
   * signed in. A cart a guest held is then assigned to the user under `keepAlive`, so neither the
   * login nor the page's grant waits for it; if that fails, a second `change` says why. A cart held
   * while already signed in is the user's.
   */
  async signIn(session: Session, keepAlive: KeepAlive): Promise<ActionResult> {
    let previous: Credentials = NO_CREDENTIALS;
    const next = await this.#context.held.update((held) => {
      previous = held;
      return { ...held, session, backoff: null };
    });
    const guestCart = previous.session === null ? next.cart : null;
    if (guestCart !== null) {
      keepAlive(
        this.#associate(guestCart, session).then((failure) => {
          if (failure !== null) this.#announce(this.#context.held.current ?? next, serializeError(failure));
        }),
      );
    }
    return this.#announce(next);
  }

  /** Assigns a guest cart to the signed-in user (STOREFRONT-FACTS.md, `cart/associate`); the failure, if any. */
  async #associate(cart: HeldCart, session: Session): Promise<StorefrontAuthError | null> {
    // The guest token travels in the query, so messages name the path alone.
    const path = `${this.#url(STOREFRONT_PATHS.cart)}/associate`;
    const url = `${path}?${new URLSearchParams({ guest_order_token: cart.token })}`;
    const headers = { Authorization: `Bearer ${session.accessToken}`, 'Content-Type': 'application/vnd.api+json' };
    let status: number;
    try {
      status = (await this.#send({ method: 'PATCH', url, label: `Assigning guest cart ${cart.number} at ${path}`, headers })).status;
    } catch (error) {
      return isStorefrontAuthError(error) ? error : new StorefrontAuthError('network_error', String(error));
    }
    if (status >= 200 && status < 300) return null;
    if (DEBUG_BUILD) this.#context.log?.(`sign-in: assigning cart ${cart.number} failed with ${status}`);
    return new StorefrontAuthError(
      'bad_response',
      DEBUG_BUILD
        ? `Signed in, but assigning guest cart ${cart.number} failed (${status}${status === 422 ? ', it belongs to a user' : ''}); the cart is still held.`
        : `cart ${cart.number}: ${status}`,
      { status },
    );
  }

  /**
   * RFC 7009 revocation where the preset names a path, so that neither token works afterwards.
   * Doorkeeper 5.5 ignores the revocation of a pair whose access token has expired
   * (STOREFRONT-FACTS.md, "Revocation"), so such a pair is first refreshed, its new bearer used once
   * (which, under Doorkeeper's rotation, revokes the old pair), and the new pair revoked. Failures
   * are ignored: logout already stands.
   */
  async #revoke(session: Session): Promise<void> {
    const path = this.#context.options.preset.revokePath;
    if (path === null) return;
    const { fetch, now, log } = this.#context;
    let pair: Pick<Session, 'accessToken' | 'refreshToken'> = session;
    if (session.expiresAt <= now()) {
      try {
        const fresh = judgeTokenReply(await postGrant(fetch, this.#url(this.#context.options.preset.tokenPath), refreshGrant(session.refreshToken), now), 'refresh');
        // The pair minted here is revoked whatever happens next: nobody else holds it.
        pair = fresh;
        const label = 'The account endpoint';
        await this.#send({ method: 'GET', url: this.#url(STOREFRONT_PATHS.account), label, headers: { Authorization: `Bearer ${fresh.accessToken}` } });
      } catch {
        // A refused refresh token is already dead; otherwise revoke what is known.
      }
    }
    if (DEBUG_BUILD) log?.('logout: revoking the pair');
    await Promise.all(
      [pair.accessToken, pair.refreshToken].map((token) =>
        this.#send({ method: 'POST', url: this.#url(path), label: `Revocation at ${this.#url(path)}`, body: new URLSearchParams({ token }) }).catch(() => undefined),
      ),
    );
  }

  /** The bearer for a request of the worker's own, refreshed first when due; `null` for a guest. */
  async #bearer(): Promise<string | null> {
    const { session } = await this.#context.held.load();
    return session === null ? null : ((await this.#context.refresher.sendable(session))?.accessToken ?? null);
  }

  #send(request: OwnRequest): ReturnType<typeof sendOwn> {
    return sendOwn(this.#context.fetch, request, this.#context.now);
  }

  #announce(next: Credentials, warning?: SerializedError): ActionResult {
    const state = publicState(next);
    const result: ActionResult = { state, changeId: this.#context.announcer.announce('change', state, warning) };
    if (warning !== undefined) result.warning = warning;
    return result;
  }

  #url(path: string): string {
    return this.#context.options.baseUrl + path;
  }
}

/** The action's budget went on waiting for a bearer (storage, the refresh lock, a refresh): nothing was sent. */
function waitSpent(label: string): StorefrontAuthError {
  return new StorefrontAuthError(
    'network_error',
    DEBUG_BUILD
      ? `${label}: waiting for the session's refresh took the whole ${OWN_REQUEST_BUDGET_MS / 1000} s the worker has for it, so the cart was not created; nothing changed, try again.`
      : `${label}: refresh wait timeout`,
  );
}
