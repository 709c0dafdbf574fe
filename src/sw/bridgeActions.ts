/**
 * The bridge's actions (login, logout, cart creation, state) and the bookkeeping they share with
 * what a page's own responses bring: keeping a pair or a cart, announcing it, assigning a guest cart
 * to the shopper, and revoking a pair at logout. Every request here is one of the worker's own,
 * sent through the one way out (outbound.ts).
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { asStorefrontAuthError, isStorefrontAuthError, StorefrontAuthError, serializeError, type SerializedError } from '../shared/errors.js';
import type { AuthState } from '../shared/state.js';
import { budgetLeftMs, withinBudget } from './actionBudget.js';
import type { WorkerContext } from './authWorker.js';
import { NO_CREDENTIALS, type Credentials } from './credentialStorage.js';
import { MAX_TOKEN_BODY_CHARS, type HeldCart } from './dialect.js';
import { STORAGE_WAIT_MS } from './heldCredentials.js';
import { OWN_REQUEST_BUDGET_MS } from './outbound.js';
import { publicState } from './publicState.js';
import type { KeepAlive } from './requestPath.js';
import { revokeRefused, revokeSession } from './revocation.js';
import type { SessionRefresher } from './sessionRefresher.js';
import { assigningFrom, assignmentEnded, currentSignIn, signInOf, withCart, withSession } from './signIn.js';
import type { StorageBudget } from './storageBudget.js';
import { parseJson, type Session } from './tokenResponse.js';
import { wrongSetting } from './wrongSetting.js';

/** The result of an action the bridge asked for. */
export interface ActionResult {
  state: AuthState;
  /** The id of the announcement the action made, or `null` when nothing changed. */
  changeId: string | null;
  /** Why part of the action failed although the action stood. */
  warning?: SerializedError;
}

/** What the actions need; I/O is handed in. */
export interface ActionsContext extends WorkerContext {
  refresher: SessionRefresher;
}

/** One base URL's actions. */
export class BridgeActions {
  readonly #context: ActionsContext;
  /** The assignment of a guest cart to the latest sign-in, settled either way. */
  #associating: Promise<void> = Promise.resolve();
  /**
   * The assignment marks this worker's own assignments ended (`#assignmentEnded`), by sign-in and
   * time: where storage did not take the end, the stored mark is no assignment under way.
   */
  readonly #ended = new Set<string>();

  constructor(context: ActionsContext) {
    this.#context = context;
  }

  /** The current public state. */
  async getState(): Promise<ActionResult> {
    const { held, writes } = this.#context;
    // No longer than a storage read may hold a request: the count known in memory (0 while unknown) answers then.
    await writes?.load(held.budget()).catch(() => 0);
    // As an announcement tells it: a re-read that outlasts its bound answers with the copy held before it, not "nothing held".
    return this.#unchanged(await held.announced());
  }

  /**
   * Runs the password grant and keeps the pair (docs/servers.md, "Tokens"). Resolves once the
   * sign-in is stored and announced; a guest cart held then is assigned to the user afterwards
   * (`signIn`). The grant runs within the action's `budget` (actionBudget.ts).
   */
  async login(username: string, password: string, keepAlive: KeepAlive, budget: AbortSignal): Promise<ActionResult> {
    const { dialect, baseUrl } = this.#context.options;
    const wire = dialect.passwordGrant(username, password);
    const reply = await this.#context.send(wire, { maxChars: MAX_TOKEN_BODY_CHARS, budget });
    let session: Session;
    try {
      session = dialect.judgeTokenReply(reply, 'password');
    } catch (error) {
      // A success the worker cannot keep still issued a pair, which nobody will hold: revoked.
      if (reply.status >= 200 && reply.status < 300) keepAlive(revokeRefused(this.#context, reply.text));
      // A refusal (a wrong password) stands; an answer that is no token response may name a setting.
      throw (isStorefrontAuthError(error) && error.code === 'bad_response' && wrongSetting(wire, baseUrl, reply.status, dialect.name)) || error;
    }
    if (DEBUG_BUILD) this.#context.log?.('login: signed in');
    return this.signIn(session, keepAlive, this.#context.held.budget(budgetLeftMs(budget)));
  }

  /**
   * Forgets the pair and the cart at once; revokes the tokens at the server where the dialect can,
   * best effort, under `keepAlive`, so revocation never delays or fails the logout.
   */
  async logout(keepAlive: KeepAlive, budget: StorageBudget = this.#context.held.budget()): Promise<ActionResult> {
    let forgotten: Credentials = NO_CREDENTIALS;
    // Set when the write outlasted its wait with nothing in memory (a re-read under way): `forgotten`
    // is then a stand-in's, and what storage forgot is known once the write lands.
    const unread: { before?: Promise<Credentials> } = {};
    // Set when the write outlasted its wait with the memory copy known: storage may hold another
    // pair (another worker's login or refresh not heard yet), which the write forgets once it lands.
    const landing: { before?: Promise<Credentials> } = {};
    const next = await this.#context.held.update(
      (previous) => {
        forgotten = previous;
        return NO_CREDENTIALS;
      },
      budget,
      (before) => (unread.before = before),
      (before) => (landing.before = before),
    );
    if (DEBUG_BUILD) this.#context.log?.('logout: credentials forgotten');
    if (unread.before !== undefined) keepAlive(unread.before.then((before) => this.#revoke(before), () => undefined));
    else if (forgotten.session !== null) keepAlive(this.#revoke(forgotten));
    // The pair storage forgot, where it is not the one just revoked from memory: no pair is left live.
    // Nor one held in memory once it lands: a later write of this worker's (a login after the logout)
    // that the write was applied over, where storage failed and the memory store took over from memory.
    const inMemory = forgotten.session;
    const { held } = this.#context;
    const abandoned = (before: Credentials): boolean => before.session !== null && before.session.refreshToken !== inMemory?.refreshToken && before.session.refreshToken !== held.current?.session?.refreshToken;
    if (landing.before !== undefined) keepAlive(landing.before.then((before) => (abandoned(before) ? this.#revoke(before) : undefined), () => undefined));
    // The writes queued for the cart and the sign-in it ends go with them.
    await this.#context.writes?.dropEnded(NO_CREDENTIALS, budget);
    // What memory holds: "nothing", or a later login's stand-in kept over the logout that landed in time.
    return this.#announce(next);
  }

  /**
   * Creates a cart (docs/servers.md, "Creating a cart") and keeps its token, replacing any cart
   * held before. The wait for a bearer and the creation share the action's `budget`
   * (actionBudget.ts): a wait that spends it fails the action before anything is sent, so no cart
   * appears after the bridge gave up.
   */
  async createCart(budget: AbortSignal, keepAlive: KeepAlive = () => {}): Promise<ActionResult> {
    const { dialect, baseUrl } = this.#context.options;
    const wire = dialect.createCart();
    const { label } = wire;
    // Signed in, the cart belongs to the user: it carries a bearer, refreshed first when due.
    const [bearer, under] = await withinBudget(this.#bearer(), budget, () => waitSpent(label));
    this.#context.refresher.keepOwed(keepAlive);
    const headers = bearer === null ? wire.headers : { ...wire.headers, Authorization: `Bearer ${bearer}` };
    const { status, text } = await this.#context.send({ ...wire, headers }, { budget });
    const cart = dialect.readCart(parseJson(text));
    const ok = status >= 200 && status < 300;
    // The worker asked for the number: an answer without one is not the cart it asked for.
    if (!ok || !cart?.number) {
      throw wrongSetting(wire, baseUrl, status, dialect.name) ?? new StorefrontAuthError(
        status === 400 || status === 422 ? 'invalid_request' : 'bad_response',
        DEBUG_BUILD ? `${label} answered ${status} ${ok ? `without the cart's ${dialect.name === 'spree-v3' ? 'id, token and number' : 'token and number'}` : 'instead of a cart'}; the previous cart is kept.` : `${label}: ${status}`,
        { status },
      );
    }
    return this.keepCart(cart, under, keepAlive, this.#context.held.budget(budgetLeftMs(budget)));
  }

  /**
   * Keeps a cart (the bridge's, or one a page's response brought, within that request's storage
   * `budget`) and announces it; writes queued for the cart it replaces are dropped. `under`: the
   * sign-in its creation went out under (`null`: a guest's). One made under a sign-in that has
   * ended since (a logout while it was on its way) is that shopper's, and is not kept: the state
   * stands unchanged. A guest's that lands signed in is assigned to the user, as at login.
   */
  async keepCart(cart: HeldCart, under: string | null, keepAlive: KeepAlive, budget: StorageBudget = this.#context.held.budget()): Promise<ActionResult> {
    // One mark time, however often the change is applied (to the memory copy when the write outlasts
    // its wait, then in storage): this worker notes its assignment's end by it (`#assign`).
    const until = this.#assigningUntil();
    const next = await this.#context.held.update((previous) => (under === null || under === currentSignIn(previous) ? assigningFrom(previous, withCart(previous, cart, under === null), until) : previous), budget);
    if (next.cart !== cart) return this.#unchanged(next);
    if (DEBUG_BUILD) this.#context.log?.(`capture: kept cart ${cart.number}`);
    await this.#context.writes?.dropEnded(next, budget);
    // Only the mark this change made: a sign-in still on its way (its stand-in over what landed) that
    // took the cart along assigns it itself once its write lands.
    if (under === null && next.session !== null && next.cartAssigningUntil === until) this.#assign(cart, next, keepAlive);
    return this.#announce(next);
  }

  /**
   * Stores a new pair and announces the sign-in, whether the bridge or the page (an SDK's own grant)
   * signed in. A cart a guest held is then assigned to the user under `keepAlive`, so neither the
   * login nor the page's grant waits for it; if that fails, a second `change` says why. A cart held
   * while already signed in is the user's. A page's own refresh that spent the refresh token held
   * when it went out (`spentRefreshToken`) continues the sign-in, and is revoked, not kept, once that
   * pair is no longer held (a logout, or a refresh elsewhere, while it was on its way); any other
   * grant starts one (signIn.ts), and the writes queued under the one before are dropped.
   */
  async signIn(session: Session, keepAlive: KeepAlive, budget: StorageBudget = this.#context.held.budget(), spentRefreshToken: string | null = null): Promise<ActionResult> {
    // From before the sign-in is in memory until it has started assigning the guest cart it takes
    // along (or found none), `associated()` waits: a guest's queued write replayed meanwhile would go
    // with the new bearer, which names the user's cart, not yet the guest's (offlineWrites.ts).
    // Added to what is waited for already: an assignment still under way (a login's, which a page's
    // own refresh continuing that sign-in lands during) is not forgotten by this one.
    // An assignment it starts joins the wait itself (`#assign`); one decided once a late write lands
    // is waited for through `landed`.
    let landed: Promise<void> | undefined;
    let done!: (landed: Promise<void> | undefined) => void;
    this.#awaitAlso(new Promise<void>((resolve) => (done = resolve)));
    try {
      return await this.#signIn(session, keepAlive, budget, spentRefreshToken, (late) => (landed = late));
    } finally {
      done(landed?.catch(() => {}));
    }
  }

  /** `signIn`'s work; `landing` is told of the work left for when a late storage write lands. */
  async #signIn(session: Session, keepAlive: KeepAlive, budget: StorageBudget, spentRefreshToken: string | null, landing: (landed: Promise<void>) => void): Promise<ActionResult> {
    let previous: Credentials = NO_CREDENTIALS;
    // Set when the write outlasted its wait, with only a stand-in in memory or with a memory copy that
    // may be behind storage (another worker's login, refresh or cart not heard yet): what it replaced
    // is known once it lands. (A pair storage no longer held, whoever replaced it there dealt with.)
    let unread = false;
    const { held } = this.#context;
    // One id, however often the change is applied (to a stand-in, then in storage): the sign-in a mark names.
    const id = crypto.randomUUID();
    // Answered before storage was read, or behind it: a guest cart stored then is this sign-in's too,
    // assigned once the write lands, if the sign-in still stands. Kept alive from here, while the
    // action runs.
    const late = (before: Promise<Credentials>): void => {
      unread = true;
      const landed = before.then(async (stored) => {
        const { session: guest, cart } = stored;
        // Judged by what storage holds once the write has landed, read however long that takes: the memory
        // copy may still be the stand-in of a later write (a refresh continuing this sign-in, with
        // another pair and no cart taken). Still this sign-in's, with the cart it took along, the
        // cart is assigned with the pair held then, and the mark made for it ends with it. Ended
        // before it could be assigned, or the cart taken by another sign-in since, the mark runs out.
        const now = guest === null && cart !== null ? await held.stored() : null;
        if (now?.cart != null && currentSignIn(now) === id && now.cartTakenBy === id && now.cart.number === cart!.number) this.#assign(now.cart, now, keepAlive);
        // Another sign-in over it (two logins racing) takes nothing, and keeps this one's mark, which nobody ends.
        else if (now?.cart != null && currentSignIn(now) !== id && now.cart.number === cart!.number) this.#markEnded(now, id, keepAlive);
        // The pair the write replaced, as below (not one a continued sign-in that had ended left). A
        // continued sign-in that had ended in storage (a logout elsewhere) kept nothing: its pair is revoked.
        if (spentRefreshToken === null || stored.session?.refreshToken === spentRefreshToken) this.#revokeReplaced(stored, spentRefreshToken ?? session.refreshToken, keepAlive);
        else if (stored.session?.refreshToken !== session.refreshToken) keepAlive(revokeSession(this.#context, session));
        // The writes that the sign-in ended, by what storage holds however long it takes: a stand-in
        // (the memory copy, forgotten or guessed meanwhile) may hold no cart.
        return held.stored().then((now) => this.#context.writes?.dropEnded(now));
      });
      landing(landed);
      keepAlive(landed);
    };
    const next = await held.update(
      (stored) => {
        previous = stored;
        return spentRefreshToken === null || stored.session?.refreshToken === spentRefreshToken ? assigningFrom(stored, withSession(stored, session, spentRefreshToken, () => id), this.#assigningUntil()) : stored;
      },
      budget,
      late,
      late,
    );
    if (next.session !== session) {
      // Judged by a memory copy that may not be storage's (`unread`): whether storage kept it is known once the write lands.
      if (!unread) keepAlive(revokeSession(this.#context, session));
      // Landed in time under a later sign-in's stand-in (two logins racing): the mark this change stored
      // for the guest cart it took along stays under that sign-in, which takes nothing, and nobody assigns
      // the cart: ended here, or every cart call waits out its time.
      if (!unread) this.#markEnded(next, id, keepAlive);
      return this.#unchanged(next);
    }
    // What the write replaced where it landed, taken now: a write redirected to the memory store that
    // took over from failed IndexedDB may still run its change there, over what that database holds.
    const replaced = previous;
    if (!unread) await this.#context.writes?.dropEnded(next, budget);
    // A pair this sign-in replaced (a login while signed in, two logins racing) is nobody's now:
    // revoked, as a logout's is, so that no pair the server issued is left live. Unsealed, a page
    // holds the real pair and may still use it.
    if (!unread) this.#revokeReplaced(replaced, spentRefreshToken ?? session.refreshToken, keepAlive);
    const guestCart = !unread && replaced.session === null ? next.cart : null;
    if (guestCart !== null) this.#assign(guestCart, next, keepAlive);
    return this.#announce(next);
  }

  /**
   * Revokes the pair of `previous`, which a sign-in replaced, unless its refresh token is `kept`: the
   * one a continued sign-in spent (see signIn), or the new pair's own (a server that answers a grant
   * with the live pair, Doorkeeper's `reuse_access_token`), which revoking would end.
   */
  #revokeReplaced(previous: Credentials, kept: string, keepAlive: KeepAlive): void {
    const replaced = previous.session;
    const { options } = this.#context;
    if (replaced !== null && replaced.refreshToken !== kept && options.sealTokens && options.dialect.revoke(replaced).length > 0) keepAlive(this.#revoke(previous));
  }

  /** Ends the assignment mark of sign-in `id` that `held` keeps, where that sign-in assigns nothing: no cart call waits out its time. */
  #markEnded({ cart, cartTakenBy, cartAssigningUntil }: Credentials, id: string, keepAlive: KeepAlive): void {
    if (cart === null || cartTakenBy !== id || cartAssigningUntil === undefined) return;
    this.#ended.add(markKey(id, cartAssigningUntil));
    keepAlive(this.#assignmentEnded(cart, id));
  }

  /** Starts assigning a guest `cart` to the user signed in in `held` as the change is announced: its failure, told in a second change, comes after the first. */
  #assign(cart: HeldCart, { session, cartTakenBy, cartAssigningUntil }: Credentials, keepAlive: KeepAlive): void {
    const association = this.#associate(cart, session!);
    // The mark this assignment ends is its sign-in's: another that took the same cart along since has its own under way.
    // This worker knows at once that it ended; storage, which tells the other workers, may take its time.
    const ended = association.catch(() => {}).then(() => {
      if (cartAssigningUntil !== undefined) this.#ended.add(markKey(cartTakenBy, cartAssigningUntil));
    });
    this.#awaitAlso(ended);
    const told = association.catch(async (failure: unknown) => void this.#announce(await this.#context.held.announced(), serializeError(asStorefrontAuthError(failure))));
    keepAlive(Promise.all([told, ended.then(() => this.#assignmentEnded(cart, cartTakenBy))]));
  }

  /** Until when an assignment starting now may be under way, stored for other workers: the steps before it, then its request. */
  #assigningUntil(): number {
    return this.#context.now() + ASSIGNING_MS;
  }

  /** Tells every worker the assignment of `cart` ended (`associated`); if storage does not take it, the mark's time runs out instead. */
  async #assignmentEnded(cart: HeldCart, takenBy: string | undefined): Promise<void> {
    const { held } = this.#context;
    // Nothing to end where memory knows no mark (a logout or an uninstall cleared it): a write would
    // create the deleted database again.
    if (held.current?.cartAssigningUntil !== undefined || held.current === null) await held.persist((stored) => assignmentEnded(stored, cart, takenBy)).catch(() => {});
  }

  /** `associated()` waits for `settled` too, beside what it waited for already (each settles: an assignment has a time budget). */
  #awaitAlso(settled: Promise<void>): void {
    this.#associating = Promise.all([this.#associating, settled]).then(() => {});
  }

  /** Revokes the pair the credentials hold, with the key of a rotation whose answer was lost, whose pair is revoked as well. */
  async #revoke({ session, refreshKey }: Credentials): Promise<void> {
    if (session !== null) await revokeSession(this.#context, session, refreshKey?.refreshToken === session.refreshToken ? refreshKey.key : undefined, true);
  }

  /**
   * Resolves once the assignment of a guest cart to the latest sign-in, if one is under way, has ended.
   * What is awaited grows while it is waited for (a sign-in under way starts its assignment, `#assign`):
   * waited for until it no longer does, so a replay that asked mid-sign-in waits for the answer too.
   */
  async associated(): Promise<void> {
    for (let waited: Promise<void> | null = null; waited !== this.#associating; ) await (waited = this.#associating);
    // Another worker's sign-in may be assigning it: storage says until when (signIn.ts `assigningFrom`),
    // read again until the mark is gone or its time is up. Never longer than one assignment takes,
    // whatever the stored time says or the clock does.
    const { held, now } = this.#context;
    let waited = 0;
    let stored = await held.reread();
    for (; this.assigning(stored) && waited < ASSIGNING_MS; stored = await held.reread()) {
      const at = now();
      await new Promise((resolve) => setTimeout(resolve, ASSIGNING_POLL_MS));
      // Only the clock's steps forward count: one set back during the wait adds nothing.
      waited += Math.max(0, now() - at);
    }
    // A mark waited out (its worker stopped, the clock set back since) holds nothing here again.
    if (this.assigning(stored)) this.#ended.add(markKey(stored.cartTakenBy, stored.cartAssigningUntil!));
  }

  /**
   * `associated()`, or as long as an assignment may take, whichever ends first: what a page's call
   * waits (requestPath.ts `#assigned`), also behind a sign-in whose storage write never lands.
   */
  associatedWithin(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const up = new Promise<void>((resolve) => (timer = setTimeout(resolve, ASSIGNING_MS)));
    return Promise.race([this.associated(), up]).finally(() => clearTimeout(timer));
  }

  /** Whether the cart `held` took along into its sign-in may still be being assigned: its mark is there, its time not up, and this worker did not end it. */
  assigning({ cartAssigningUntil: until, cartTakenBy }: Credentials): boolean {
    return until !== undefined && until > this.#context.now() && !this.#ended.has(markKey(cartTakenBy, until));
  }

  /** Assigns a guest cart to the signed-in user (docs/servers.md, "Spree's storefront endpoints"); rejects with why it failed. */
  async #associate(cart: HeldCart, session: Session): Promise<void> {
    const { dialect, baseUrl } = this.#context.options;
    const wire = dialect.associate(cart, session.accessToken);
    if (wire === null) {
      throw new StorefrontAuthError('bad_response', DEBUG_BUILD ? `Signed in, but guest cart ${cart.number} has no id to assign it by; the cart is still held.` : `cart ${cart.number}: no id`);
    }
    const { status } = await this.#context.send(wire);
    if (status >= 200 && status < 300) return;
    if (DEBUG_BUILD) this.#context.log?.(`sign-in: assigning cart ${cart.number} failed with ${status}`);
    const wrong = wrongSetting(wire, baseUrl, status, dialect.name);
    throw new StorefrontAuthError(
      'bad_response',
      DEBUG_BUILD
        ? `Signed in, but assigning guest cart ${cart.number} failed (${wrong?.message ?? `${status}${status === 422 ? ', it belongs to a user' : ''}`}); the cart is still held.`
        : `cart ${cart.number}: ${wrong?.message ?? status}`,
      { status },
    );
  }

  /** The bearer for a request of the worker's own, refreshed first when due, and the sign-in it is of; `null`s for a guest. */
  async #bearer(): Promise<[string | null, string | null]> {
    const held = await this.#context.held.load();
    const session = await this.#context.refresher.sendable(held.session);
    return session === null ? [null, null] : [session.accessToken, signInOf(session, this.#context.held.current ?? held, held)];
  }

  /** `held` as the result of an action that changed nothing. */
  #unchanged(held: Credentials): ActionResult {
    return { state: publicState(held, this.#context.writes?.pending), changeId: null };
  }

  #announce(next: Credentials, warning?: SerializedError): ActionResult {
    const state = publicState(next, this.#context.writes?.pending);
    const result: ActionResult = { state, changeId: this.#context.announcer.announce('change', state, warning) };
    if (warning !== undefined) result.warning = warning;
    return result;
  }
}

/**
 * How long a guest cart's assignment to a sign-in may take, from when the sign-in is stored: the
 * storage steps before it starts, then its request's own budget. A worker stopped mid-assignment
 * leaves its mark in storage: the others wait this long at most.
 */
const ASSIGNING_MS = STORAGE_WAIT_MS + OWN_REQUEST_BUDGET_MS;

/** An assignment's mark, by the sign-in that took the cart along and the time it was stored with. */
function markKey(takenBy: string | undefined, until: number): string {
  return `${takenBy ?? ''} ${until}`;
}

/** How often `associated()` reads storage for another worker's assignment. */
const ASSIGNING_POLL_MS = 100;

/** The action's budget went on waiting for a bearer (storage, the refresh lock, a refresh): nothing was sent. */
function waitSpent(label: string): StorefrontAuthError {
  return new StorefrontAuthError(
    'network_error',
    DEBUG_BUILD
      ? `${label}: waiting for the session's refresh took the whole ${OWN_REQUEST_BUDGET_MS / 1000} s the worker has for it, so the cart was not created; nothing changed, try again.`
      : `${label}: refresh wait timeout`,
  );
}
