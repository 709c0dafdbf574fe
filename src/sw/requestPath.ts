/**
 * The request path: adds the credential to a page's storefront request, refreshes the bearer when
 * due, replays once after a 401, and keeps what a response brings (docs/behaviour.md, "What the
 * worker does to requests"). Which credential a request gets is `credentialFor`'s call
 * (requestRules.ts); how it is sent is the one way out's (outbound.ts); this file sequences them.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import type { Credentials } from './credentialStorage.js';
import { MAX_TOKEN_BODY_CHARS, type HeldCart, type PageBody } from './dialect.js';
import type { HeldCredentials } from './heldCredentials.js';
import type { ResolvedOptions } from './options.js';
import type { OfflineWrites, WriteTurn } from './offlineWrites.js';
import { bufferBody, isRead, passThrough, requestAt, sendPage, type AddedHeader, type BufferedBody, type FetchFunction, type PageSend, type SendOwn } from './outbound.js';
import { SEALED, isSealedBearer, unsealQuery } from './sealedTokens.js';
import { MAX_HELD, SEALED_ORDER } from './sealScanner.js';
import type { SealPlan } from './sealSpellings.js';
import { answerHeaders, readAhead, readAheadLimit, rebuilt, sealedResponse } from './sealedResponse.js';
import { concatenated } from './sealStream.js';
import { classifyRequest, credentialFor, decideRequest, isUnderPrefix, pathUnderBase, squeezedUnderBase, type Credential, type Decision, type PageHeaders, type RequestKind } from './requestRules.js';
import { routedPath } from './dialects/railsRoutes.js';
import { revokeRefused } from './revocation.js';
import { currentSignIn, signInOf } from './signIn.js';
import { httpDate } from './serverClock.js';
import type { SessionRefresher } from './sessionRefresher.js';
import type { StorageBudget } from './storageBudget.js';
import { jsonObject, parseJson, type Session } from './tokenResponse.js';

/** Keeps the worker alive for work that goes on after the response (`ExtendableEvent.waitUntil`). */
export type KeepAlive = (work: Promise<unknown>) => void;

/** Where what a page's response brought is kept and announced (bridgeActions.ts). */
export interface Keeper {
  /** Each takes the page request's storage allowance (storageBudget.ts) for its write. `under`: the sign-in the creation went out under. */
  keepCart(cart: HeldCart, under: string | null, keepAlive: KeepAlive, budget: StorageBudget): Promise<unknown>;
  /** `spentRefreshToken`: the refresh token held that the page's own grant spent, which continues the sign-in that held it. */
  signIn(session: Session, keepAlive: KeepAlive, budget: StorageBudget, spentRefreshToken?: string | null): Promise<unknown>;
  /** The worker's logout, for a page's own revocation of the pair it holds. */
  logout(keepAlive: KeepAlive, budget: StorageBudget): Promise<unknown>;
  /** Whether the cart `held` took along into its sign-in may still be being assigned (bridgeActions.ts `assigning`). */
  assigning(held: Credentials): boolean;
  /** Resolves once no assignment is under way, or after as long as one may take, whichever comes first. */
  associatedWithin(): Promise<void>;
}

/** What the request path needs; I/O is handed in. */
export interface RequestPathContext {
  options: ResolvedOptions;
  held: HeldCredentials;
  refresher: SessionRefresher;
  keeper: Keeper;
  /** The offline write queue, or `null` while the option is off. */
  writes: Pick<OfflineWrites, 'carry' | 'nudge' | 'arrive'> | null;
  fetch: FetchFunction;
  /** The worker's own requests (a revocation), through the one way out. */
  send: SendOwn;
  log: ((message: string) => void) | undefined;
  now: () => number;
}

/** The page's credential headers, and which of them are placeholders (`#pageHeaders`). */
type PageCredentials = PageHeaders & { sealedBearer: boolean; sealedCart: boolean };

/** A decision with the page's credential headers it was made on, read once per request. */
export type PageDecision = Decision & { page: PageCredentials };

/** One base URL's request rules. */
export class RequestPath {
  readonly #context: RequestPathContext;
  readonly #to: PageSend;
  /** The last seal plans, by `#sealPlan`'s slot: a token response's or another answer's, each with `sealed:order` or without. */
  readonly #plans: Array<SealPlan | undefined> = [];

  constructor(context: RequestPathContext) {
    this.#context = context;
    this.#to = { fetch: context.fetch, log: context.log, addedFor: (url, request) => this.#addedFor(url, request) };
  }

  /**
   * Synchronous, as Workbox route matching is. With the credentials in memory: the decision (Workbox
   * hands it to the handler as `params`), or `null` when the request needs nothing, so it never
   * reaches `respondWith`. While the credentials are not loaded yet: `true` for any storefront
   * request, and `handle` decides once they are.
   */
  match(request: Request, url: URL): PageDecision | true | null {
    // Navigations get no credential. A no-cors request to another origin cannot carry our headers
    // and its answer is opaque to the page; one to the worker's own origin is read by the page as
    // any fetch is, so it is handled like a cors one: credentialed, sealed and kept.
    if (request.mode === 'navigate' || (request.mode === 'no-cors' && !this.#context.options.base.sameOrigin)) return null;
    const kind = classifyRequest(url, request.method, this.#context.options);
    if (kind === null) return null;
    const held = this.#context.held.current;
    return held === null ? true : this.#decide(kind, held, request);
  }

  /**
   * Answers a matched request. Rejects (a network error for the page) when it could not be sent, or
   * when a write met a redirect. The bookkeeping after the response (assigning a cart, confirming a
   * bearer) goes on under `keepAlive`, not in front of the page.
   */
  async handle(request: Request, url: URL, matched: PageDecision | undefined, keepAlive: KeepAlive): Promise<Response> {
    // A cart write the queue may carry takes its place among the page's writes as it arrives, before any wait here.
    const { writes, options } = this.#context;
    const path = writes === null ? null : pathUnderBase(url, options.base);
    const turn = writes === null || path === null || options.dialect.queueableWrite(path, request.method) === null ? undefined : writes.arrive();
    try {
      return await this.#handle(request, url, matched, keepAlive, turn);
    } finally {
      turn?.done();
    }
  }

  async #handle(request: Request, url: URL, matched: PageDecision | undefined, keepAlive: KeepAlive, turn: WriteTurn | undefined): Promise<Response> {
    const { held, writes } = this.#context;
    // Any storefront request the worker answers may be the network's return: queued writes go then.
    writes?.nudge(keepAlive);
    // Every wait of this request for storage, whatever step it is in, shares one allowance.
    const budget = held.budget();
    const decision = matched ?? (await this.#decideOnceLoaded(request, url, budget));
    if (decision === null) {
      turn?.done();
      return passThrough(this.#to, request);
    }
    const { kind, capture, page } = decision;
    // The sign-in the request went out under, once sent: what a cart it creates belongs to.
    let under: string | null = null;
    if (DEBUG_BUILD) this.#context.log?.(`${request.method} ${url.pathname}: ${decision.credential ?? 'no credential'}${capture === null ? '' : `, keeps the ${capture}`}`);
    const buffering = bufferBody(request);
    const body = buffering === undefined ? undefined : await buffering;
    const loaded = held.current ?? (await held.load(budget));
    const current = kind === 'cartOrCheckout' && this.#waitsForAssignment(loaded) ? await this.#assigned(loaded, budget) : loaded;
    const { dialect } = this.#context.options;
    // A path as the server routes it, under the base URL: worked out only where a step needs it.
    const routed = (at: URL): string => routedPath(pathUnderBase(at, this.#context.options.base) ?? squeezedUnderBase(at, this.#context.options.base) ?? '');
    const pageBody = (): PageBody => ({ path: routed(url), contentType: request.headers.get('Content-Type'), text: body === undefined ? '' : new TextDecoder().decode(body) });
    // The refresh token a page's own refresh grant spends: the placeholder it was given shares the
    // worker's refresh; a real one, once rotated, continues the sign-in that held it.
    const spent = kind === 'tokenGrant' && body !== undefined ? dialect.pageRefreshToken(pageBody()) : null;
    if (spent === SEALED.refresh) return this.#answerSealedRefresh(current, budget, keepAlive);
    // A page's refresh grant continues the sign-in only of the pair held when it went out, and only
    // while that pair is still held (signIn).
    const continued = spent === current.session?.refreshToken ? spent : null;
    // A page's own revocation of the pair the worker holds (its placeholders, or the real tokens of
    // an unsealed page) is the worker's logout: the real tokens are revoked and every tab is told.
    // One of a token the worker does not hold is the page's own business: it goes on below, and its
    // answer is sealed and kept out of the HTTP cache as every answer here is (an error may echo a
    // token the worker holds).
    if (kind === 'revocation' && revokesHeld(dialect.pageRevokedToken(pageBody()), current)) {
      await this.#context.keeper.logout(keepAlive, budget);
      const { status, body: answer } = dialect.revocationAnswer;
      return new Response(answer, { status, headers: answer === null ? NO_STORE : { ...NO_STORE, 'Content-Type': 'application/json' } });
    }
    const sent = this.#unseal(request, body, current, kind, page);
    const send = (wire: Request): Promise<Response> => this.#send(wire, body, kind, current, keepAlive, request, budget, page, (signIn) => (under = signIn));
    // A cart write the offline queue may carry goes its way (offlineWrites.ts): sent, or queued and answered 202.
    const response = writes === null || isRead(request.method) ? await send(sent) : await writes.carry(request, url, sent, body, current, send, keepAlive, budget, turn);
    // The page reads the URL an answer came from (`response.url`, XHR's `responseURL`): after a
    // swapped `guest_order_token` placeholder, that URL holds the real cart token.
    // So may the URL of a redirect's final location the worker asked itself (outbound.ts `sendPage`),
    // swapped with the cart held by then, which the first try may not have had.
    const cart = (held.current ?? current).cart;
    const urlHoldsToken = (sent !== request && sent.url !== request.url) || (response.url !== sent.url && cart != null && response.url !== '' && [...new URL(response.url).searchParams.values()].includes(cart.token));
    // An opaque redirect (the page asked for `redirect: 'manual'`) has no body to read or seal, and
    // cannot be rebuilt without its URL: where that URL holds the token, the page gets a network error.
    if (response.type === 'opaqueredirect') return urlHoldsToken ? Response.error() : response;
    // A no-cors request's redirect followed to another origin: an opaque answer, which neither the
    // page nor the worker reads, and which has no URL to show.
    if (response.type === 'opaque') return response;
    if (!this.#context.options.sealTokens) {
      if (capture !== null && response.ok) await this.#capture(capture, await response.clone().text().catch(() => ''), this.#context.now(), keepAlive, httpDate(response.headers.get('Date')), budget, continued, under);
      return urlHoldsToken ? rebuilt(response, request.method === 'HEAD' ? null : response.body, null) : response;
    }
    // Every answer the worker gives is sealed as it streams, success or error, since an error may
    // echo what it sent. What the worker keeps (a cart, a pair) and what a token response brings are
    // read first, bounded, so that the plan holds them before any of the body reaches the page.
    const keeps = kind === 'tokenGrant' || (capture !== null && response.ok);
    const headers = answerHeaders(response);
    const head = await readAhead(response, readAheadLimit(headers.type, keeps ? (kind === 'tokenGrant' ? MAX_TOKEN_BODY_CHARS : MAX_HELD) : null), headers);
    const text = keeps && head?.whole === true ? new TextDecoder().decode(concatenated(head.chunks)) : '';
    if (capture !== null && response.ok) await this.#capture(capture, text, this.#context.now(), keepAlive, httpDate(response.headers.get('Date')), budget, continued, under);
    // What an answer is decides what is sealed in it: one that came from another URL (a redirect the
    // worker followed) is judged by that URL's path, not by the path the page asked for.
    const answered = (): string => routed(response.url === '' || response.url === sent.url ? url : new URL(response.url));
    const plan = this.#sealPlan(kind, text, current, answered);
    // A HEAD's answer has no body (Chromium hands an empty one, compressed or not): its length and
    // encoding are the server's, sent as they came.
    return request.method === 'HEAD' ? rebuilt(response, null, plan, headers.entries) : sealedResponse(response, plan, head, headers);
  }

  /**
   * What to seal in an answer (docs/security.md, "How sealing works"): every value the worker held
   * when the request came and holds now (a refresh or a capture may have brought new ones), the
   * pair of a token response even when it was not kept, and, as `sealed:order`, the token of any
   * other cart or order the answer lists, except on the dialect's `otherTokenPrefixes`. `answered`:
   * the path the answer came from, under the base URL, as the server routes it (asked only where the
   * dialect has such prefixes).
   */
  #sealPlan(kind: RequestKind, text: string, before: Credentials, answered: () => string): SealPlan {
    const { dialect } = this.#context.options;
    const values: Array<[string, string]> = [];
    const add = (real: unknown, placeholder: string): void => {
      if (typeof real === 'string' && real !== '' && !real.startsWith('sealed:')) values.push([real, placeholder]);
    };
    for (const held of [before, this.#context.held.current ?? before]) {
      add(held.cart?.token, SEALED.cart);
      add(held.session?.accessToken, SEALED.access);
      add(held.session?.refreshToken, SEALED.refresh);
    }
    // A token response the worker did not keep (malformed, or refused as a session) still holds tokens.
    if (kind === 'tokenGrant' && text.length <= MAX_TOKEN_BODY_CHARS) {
      const body = jsonObject(text);
      add(body[dialect.tokenFields.access], SEALED.access);
      add(body[dialect.tokenFields.refresh], SEALED.refresh);
    }
    // A token response's fields are its tokens, read or not (a cut-off answer is never kept).
    const tokenFields = kind === 'tokenGrant' ? { [dialect.tokenFields.access]: SEALED.access, [dialect.tokenFields.refresh]: SEALED.refresh } : {};
    // Under the dialect's `otherTokenPrefixes` its order-token field is another token (v3's wishlists' share token): it goes as sent.
    const prefixes = dialect.otherTokenPrefixes;
    const path = prefixes.length === 0 ? '' : answered();
    const other = prefixes.some((prefix) => isUnderPrefix(path, prefix));
    // The same plan as the last answer's of its kind while the values are the same, so the scanner finds it spelled already.
    const slot = (kind === 'tokenGrant' ? 1 : 0) + (other ? 2 : 0);
    const last = this.#plans[slot];
    if (last !== undefined && last.values.length === values.length && last.values.every(([real, placeholder], i) => values[i]?.[0] === real && values[i]?.[1] === placeholder)) return last;
    return (this.#plans[slot] = { values, fields: { ...(other ? {} : { [dialect.cartTokenField]: SEALED_ORDER }), ...tokenFields } });
  }

  /**
   * The credential headers the table gives a redirect's final URL under the base URL, from what is
   * held now (no refresh: the redirect was already followed), and the real cart token for a
   * `sealed:cart` header that `request` (the page's, placeholders in) carries there; none outside the base URL.
   * With `url`, its query placeholder swapped, as the first try's was.
   */
  #addedFor(url: string, request: Request): readonly [string, readonly AddedHeader[]] {
    const { options, held } = this.#context;
    const kind = classifyRequest(new URL(url), 'GET', options);
    const current = held.current;
    if (kind === null || current === null) return [url, []];
    // The page's own credential headers win there too, as on the first try: the table is applied to them.
    const page = this.#pageHeaders(request);
    const credential = credentialFor(kind, heldFlags(current), page, options.dialect.cartTokenWithBearer);
    return [this.#swapped(kind, current.cart, url) ?? url, this.#headers(credential, current.session, current.cart, page.sealedCart)];
  }

  /**
   * Sends with the credential `credentialFor` names for what is held, by the bearer rules
   * (docs/behaviour.md, "Refresh"): refreshed first when due, and refused before sending, the
   * request goes out as a guest's would; after a 401, one refresh and one replay. `sentUnder` hears
   * the sign-in each try goes out under (`null`: a guest's). `replayAs` makes the replay from what is
   * held after the refresh (a queued write: a new request with its own time budget, or `null` when
   * the write no longer belongs there); without it, the request itself goes again. `pageRequest`:
   * the URL the page wrote and the mode it asked for, which a GET's redirect is followed from and in.
   */
  async #send(request: Request, body: BufferedBody, kind: RequestKind, held: Credentials, keepAlive: KeepAlive, pageRequest: Pick<Request, 'url' | 'mode'>, budget: StorageBudget, page: PageCredentials, sentUnder?: (signIn: string | null) => void, replayAs?: (now: Credentials) => Request | null): Promise<Response> {
    const { refresher, options } = this.#context;
    const credential = (flags: { signedIn: boolean; hasCart: boolean }): Credential | null => credentialFor(kind, flags, page, options.dialect.cartTokenWithBearer);
    // One try with `session`'s bearer (`null`: as a guest), and the cart token where the credential
    // names it as well (v3: an expired bearer is a guest's there), from `now`'s cart.
    const attempt = (session: Session | null, now: Credentials, sending = request): Promise<Response> => {
      const added = this.#headers(credential({ signedIn: session !== null, hasCart: now.cart !== null }), session, now.cart, page.sealedCart);
      // A bearer is of the sign-in whose pair it is; without one, the page's own or none goes with what is held now.
      const signIn = session === null ? currentSignIn(now) : signInOf(session, now, held);
      sentUnder?.(signIn);
      // A cart gone while the request waited (a logout during its refresh) leaves no real value for its placeholder: it goes too.
      const wire = page.sealedCart && now.cart === null ? requestAt(sending.url, sending, without(sending.headers, options.dialect.cartTokenHeader), body, sending.redirect) : sending;
      // A redirect's final location is asked with what is held then, while it is still this try's
      // sign-in: after a logout and another shopper's login meanwhile, the request was the first
      // shopper's and is never sent as another (as the 401 replay below): the followed answer stands.
      const to: PageSend = { ...this.#to, addedFor: (url, page) => (this.#signInHeld(signIn, now.cart) ? this.#addedFor(url, page) : [url, []]) };
      const sent = sendPage(to, wire, body, added, options.sealTokens, pageRequest.url, pageRequest.mode);
      if (session === null) return sent;
      return sent.then((response) => {
        // The first answer that shows the server took a refreshed bearer proves it good, which lifts the back-off.
        if (!session.confirmed && options.dialect.bearerAccepted(kind, added.length > 1 || page.orderToken, response.status)) keepAlive(refresher.confirm(session));
        return response;
      });
    };
    // After a wait, the cart held by then.
    const latest = async (): Promise<Credentials> => this.#context.held.current ?? (await this.#context.held.load(budget));
    if (held.session === null || !credential(heldFlags(held))?.includes('bearer')) return attempt(null, held);
    const session = await refresher.sendable(held.session, budget);
    refresher.keepOwed(keepAlive);
    if (session === null) return attempt(null, await latest());
    const first = await attempt(session, await latest());
    if (first.status !== 401) return first;
    if (DEBUG_BUILD) this.#context.log?.(`${request.method} ${new URL(request.url).pathname}: 401, refreshing once`);
    const outcome = await refresher.refresh(session, 'unauthorized', budget);
    refresher.keepOwed(keepAlive);
    // A queued write's replay whose refresh failed without a refusal (the network, a 5xx, the back-off)
    // was not applied and could not be replayed: unsent, it is kept for another attempt, not rejected.
    if (outcome.kind === 'failed' && replayAs !== undefined) {
      void first.body?.cancel().catch(() => {});
      throw outcome.error;
    }
    // Refused, backing off, or no newer pair to replay with: the page receives the server's 401.
    if (outcome.kind !== 'fresh' || outcome.session.accessToken === session.accessToken) return first;
    const now = await latest();
    // A pair that another sign-in stored meanwhile (a logout and a login in another tab) is no refresh
    // of this one: the request was the shopper's who signed out, and is never sent again as another.
    if (currentSignIn(now) !== currentSignIn(held)) return first;
    const again = replayAs === undefined ? request : replayAs(now);
    return again === null ? first : attempt(outcome.session, now, again);
  }

  /**
   * What a v2 cart or checkout call goes with when a sign-in took a guest cart along: until the
   * server has assigned that cart, the bearer names the user's own cart (docs/servers.md, "Spree's
   * storefront endpoints"), so the call would read or change the user's other one. It waits for the
   * assignment (no longer than one may take, so never behind a sign-in write that does not land), then
   * goes with what is held by then, as a call made then would: as a guest's after a logout meanwhile.
   * One that another shopper's sign-in began during the wait, or that would go with a cart held only
   * since the shopper left, is theirs no more than a replay is (`#send`): a network error, never
   * sent. A `spree-v3` call carries the cart's token with the bearer and goes at once
   * (`#waitsForAssignment`).
   */
  async #assigned(before: Credentials, budget: StorageBudget): Promise<Credentials> {
    const { keeper, held } = this.#context;
    await keeper.associatedWithin();
    const now = held.current ?? (await held.load(budget));
    // Nor is it a guest's whose cart came after the shopper left (a cart created since the logout): it would change that cart.
    if (currentSignIn(now) !== currentSignIn(before) && (now.session !== null || (now.cart !== null && now.cart.number !== before.cart?.number))) throw new TypeError(DEBUG_BUILD ? 'storefront-auth: another shopper signed in, or another cart is held, since the request began waiting for the cart\'s assignment; it was not sent.' : 'storefront-auth: signed in anew');
    return now;
  }

  /**
   * Resolves once a signed-in queued write may go: as a page's call (`#assigned`), after the assignment
   * of a cart its sign-in took along. The replayer waits for it before the write is marked on its way
   * and its request made (writeReplayer.ts), so neither a worker stopped in the wait nor the wait's
   * length costs the write its attempt.
   */
  async assignment(): Promise<void> {
    if (this.#waitsForAssignment(await this.#context.held.load(null))) await this.#context.keeper.associatedWithin();
  }

  /** True when a call with `held`'s bearer waits for the assignment of a cart its sign-in took along (`#assigned`): v2 only. */
  #waitsForAssignment(held: Credentials): boolean {
    return !this.#context.options.dialect.cartTokenWithBearer && held.session !== null && this.#context.keeper.assigning(held);
  }

  /**
   * True while the sign-in held (`null`: a guest's) is `signIn`, or nothing is known in memory; for a
   * guest's try with `cart`, also once a sign-in took that cart along: the same shopper's
   * (writeIdentity.ts `belongsTo`).
   */
  #signInHeld(signIn: string | null, cart: HeldCart | null): boolean {
    const current = this.#context.held.current;
    if (current === null || currentSignIn(current) === signIn) return true;
    return signIn === null && cart !== null && current.cart?.number === cart.number && current.cartTakenBy !== undefined && current.cartTakenBy === currentSignIn(current);
  }

  /**
   * The headers `credential` names: the bearer of `session` and the cart token header of `cart`,
   * where held. `swap`: the page sent `sealed:cart` in that header, which gets the real cart token too.
   */
  #headers(credential: Credential | null, session: Session | null, cart: HeldCart | null, swap = false): AddedHeader[] {
    const headers: AddedHeader[] = [];
    if (credential?.includes('bearer') && session !== null) headers.push(['Authorization', `Bearer ${session.accessToken}`]);
    if ((swap || credential?.includes('orderToken')) && cart !== null) headers.push([this.#context.options.dialect.cartTokenHeader, cart.token]);
    return headers;
  }

  /**
   * Keeps the cart or the pair that a successful response brought, whoever sent the request; a pair
   * the worker cannot keep, which the page saw only sealed, is revoked. `serverDate` is the answer's
   * `Date`; `spent` is the refresh token held that a page's own refresh grant spent; `under` the
   * sign-in a cart creation went out under.
   */
  async #capture(kind: 'cart' | 'token', text: string, receivedAt: number, keepAlive: KeepAlive, serverDate: number | null, budget: StorageBudget, spent: string | null, under: string | null): Promise<void> {
    const { dialect, sealTokens } = this.#context.options;
    if (kind === 'cart') {
      const cart = dialect.readCart(parseJson(text));
      if (cart !== null) await this.#context.keeper.keepCart(cart, under, keepAlive, budget);
      return;
    }
    const session = text.length > MAX_TOKEN_BODY_CHARS ? null : dialect.readTokenBody(parseJson(text), receivedAt, serverDate);
    // Unsealed, the page holds the real pair and may use it: it is not abandoned.
    if (session === null && sealTokens) keepAlive(revokeRefused(this.#context, text));
    if (session === null) return;
    if (DEBUG_BUILD) this.#context.log?.('capture: kept the pair from a token response');
    await this.#context.keeper.signIn(session, keepAlive, budget, spent);
  }

  /**
   * Sends a queued write (offlineWrites.ts) as a page's request would go now: the credential held
   * now, refreshed first when due, one refresh and replay after a 401, a redirect refused. `null`
   * when `belongs` fails for what is held, before or after that due refresh (a refused refresh ends
   * the sign-in the write was made under), or after a 401 that it failed for: the write is never sent
   * as someone else, a guest included. `queued` makes the request once it goes, so that its time
   * budget is the send's, not spent on the waits before it.
   */
  async sendQueued(queued: () => Request, body: BufferedBody, belongs: (held: Credentials) => boolean, keepAlive: KeepAlive): Promise<Response | null> {
    const { held, refresher, options } = this.#context;
    // Whose the write is, by what storage holds however long it takes (a stand-in is no reason to drop
    // it); the replay's other waits for storage share one allowance, as a page request's do.
    const budget = held.budget();
    const before = await held.load(null);
    if (!belongs(before)) return null;
    await refresher.sendable(before.session, budget);
    refresher.keepOwed(keepAlive);
    const now = await held.load(null);
    if (!belongs(now)) return null;
    const request = queued();
    const url = new URL(request.url);
    // Stored only when the dialect named it a cart write, which is a cart call.
    const kind = classifyRequest(url, request.method, options) ?? 'cartOrCheckout';
    const page = this.#pageHeaders(request);
    // The replay after a 401 is made anew, with its own time budget (the first try and the refresh may
    // have spent this one's), and only while the write still belongs to what is held: the refresh may
    // bring back a cart another tab made meanwhile.
    const replayAs = (later: Credentials): Request | null => (belongs(later) ? this.#unseal(queued(), body, later, kind, page) : null);
    const response = await this.#send(this.#unseal(request, body, now, kind, page), body, kind, now, keepAlive, request, budget, page, undefined, replayAs);
    // Refused with a sign-in that has ended since (the replay after the refresh was not sent as the next one): dropped.
    return response.status === 401 && !belongs(await held.load(null)) ? null : response;
  }

  /** `match`'s decision, for a request that arrived before the credentials were in memory. */
  async #decideOnceLoaded(request: Request, url: URL, budget: StorageBudget): Promise<PageDecision | null> {
    const kind = classifyRequest(url, request.method, this.#context.options);
    return kind === null ? null : this.#decide(kind, await this.#context.held.load(budget), request);
  }

  /**
   * `decideRequest`'s decision, except that a request carrying a placeholder header is always
   * handled: with nothing held to swap it for, `#unseal` takes it out, as an unsealed page would
   * have sent no credential (docs/security.md, "How sealing works"). Left alone, `Bearer
   * sealed:access` would reach the server after a logout, and only while the credentials happen to
   * be in memory. The page's headers go with the decision: the request path reads them once.
   */
  #decide(kind: RequestKind, held: Credentials, request: Request): PageDecision | null {
    const page = this.#pageHeaders(request);
    const decision = decideRequest(kind, heldFlags(held), page, this.#context.options.dialect.cartTokenWithBearer) ?? (page.sealedBearer || page.sealedCart || this.#swapped(kind, held.cart, request.url) !== null ? { kind, credential: null, capture: null } : null);
    return decision === null ? null : { ...decision, page };
  }

  /**
   * `url` with the query placeholder it carries swapped for `cart`'s token (beside the page's own
   * credential, say), or null when it carries none. Only where a credential may go: never on the
   * token path, where the query is no place for one. A redirect's final URL that the worker asks
   * itself is swapped too (`#addedFor`), as its first was.
   */
  #swapped(kind: RequestKind | null, cart: HeldCart | null | undefined, url: string): string | null {
    const credentialed = kind === 'cartOrCheckout' || kind === 'account' || kind === 'cartCreate';
    return credentialed ? unsealQuery(url, cart?.token ?? null, this.#context.options.dialect.cartTokenQuery) : null;
  }

  /**
   * The page's credential headers, and which of them are placeholders: a placeholder the page sends
   * back is the worker's credential, not the page's own (docs/security.md, "How sealing works"), so
   * it gets the current token.
   */
  #pageHeaders(request: Request): PageCredentials {
    const { headers } = request;
    const authorization = headers.get('Authorization');
    const orderToken = headers.get(this.#context.options.dialect.cartTokenHeader);
    const sealedBearer = isSealedBearer(authorization);
    // Not on a path under the base only once its `//` runs are squeezed (requestRules.ts
    // `squeezedUnderBase`): it may reach another application, so the header goes as the page wrote it.
    const sealedCart = orderToken === SEALED.cart && pathUnderBase(new URL(request.url), this.#context.options.base) !== null;
    return { authorization: authorization !== null && !sealedBearer, orderToken: orderToken !== null && !sealedCart, sealedBearer, sealedCart };
  }

  /**
   * The request with the placeholders it carries swapped: a sealed bearer taken out (the credential
   * rules add the real one, with their refresh and replay), a sealed cart token query given the real
   * cart token, so the server sees what an unsealed page would have sent. A sealed cart token header
   * stays as the page wrote it: `#headers` sets the real token on the copy that goes out, as it
   * does a credential, so a GET's follow-up of a redirect (outbound.ts `sendPage`), which carries
   * these headers wherever the redirect points, carries the worthless placeholder. The request
   * itself when it carries none, the common case.
   */
  #unseal(request: Request, body: BufferedBody, held: Credentials, kind: RequestKind, { sealedBearer, sealedCart }: PageCredentials): Request {
    const { dialect } = this.#context.options;
    const url = this.#swapped(kind, held.cart, request.url);
    // Without a cart there is no real value: the header goes, as an unsealed page would have none.
    const noCart = sealedCart && held.cart === null;
    if (!sealedBearer && !noCart && url === null) return request;
    const cleaned = new Headers(request.headers);
    if (sealedBearer) cleaned.delete('Authorization');
    if (noCart) cleaned.delete(dialect.cartTokenHeader);
    return requestAt(url ?? request.url, request, cleaned, body, request.redirect);
  }

  /**
   * Answers a page's sealed refresh grant from the worker's pair: the current one while it is not
   * due, else the single refresh every other context shares, so it never causes a second grant.
   */
  async #answerSealedRefresh(held: Credentials, budget: StorageBudget, keepAlive: KeepAlive): Promise<Response> {
    const { refresher, now, options } = this.#context;
    const { dialect } = options;
    // A refresh that leaves no valid bearer fails the page's grant as a network error would.
    const session = await refresher.sendable(held.session, budget);
    refresher.keepOwed(keepAlive);
    // Without one, the server's own refusal, so the page's SDK sees the session has ended.
    const { status, body } = session === null ? dialect.refusedRefresh : { status: 200, body: dialect.sealedTokenBody(session, now()) };
    return Response.json(body, { status, headers: NO_STORE });
  }
}

/** Token responses are never cached (docs/servers.md, "Doorkeeper, the token endpoint"). */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** True when a page's revocation names the pair the worker holds: by its placeholders, or by its real tokens. */
function revokesHeld(token: string | null, held: Credentials): boolean {
  const { session } = held;
  return session !== null && token !== null && [SEALED.access, SEALED.refresh, session.accessToken, session.refreshToken].includes(token);
}

/** A copy of `headers` without `name`. */
function without(headers: Headers, name: string): Headers {
  const copy = new Headers(headers);
  copy.delete(name);
  return copy;
}

function heldFlags(held: Credentials): { signedIn: boolean; hasCart: boolean } {
  return { signedIn: held.session !== null, hasCart: held.cart !== null };
}
