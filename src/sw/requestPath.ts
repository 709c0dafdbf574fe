/**
 * The request path: adds the credential to a page's storefront request, refreshes the bearer when
 * due, replays once after a 401, and keeps what a response brings (CONTRACT.md, "What the worker
 * does to requests"). Which credential a request gets is `credentialFor`'s call (requestRules.ts);
 * how it is sent is the one way out's (outbound.ts); this file sequences them.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { readCartDocument, type HeldCart } from './cartDocument.js';
import type { Credentials } from './credentialStorage.js';
import type { HeldCredentials } from './heldCredentials.js';
import type { ResolvedOptions } from './options.js';
import { bufferBody, passThrough, requestAt, sendPage, type AddedHeader, type BufferedBody, type PageSend } from './outbound.js';
import { isSealedRefreshGrant, SEALED, SEALED_BEARER, sealCartDocument, sealedTokenBody, sealTokenResponse, unsealQuery } from './sealedTokens.js';
import { classifyRequest, credentialFor, decideRequest, pathUnderBase, type Decision, type PageHeaders, type RequestKind } from './requestRules.js';
import type { SessionRefresher } from './sessionRefresher.js';
import { MAX_TOKEN_BODY_CHARS } from './tokenEndpoint.js';
import { parseJson, readTokenBody, type Session } from './tokenResponse.js';

/** Keeps the worker alive for work that goes on after the response (`ExtendableEvent.waitUntil`). */
export type KeepAlive = (work: Promise<unknown>) => void;

/** Where what a page's response brought is kept and announced (bridgeActions.ts). */
export interface Keeper {
  keepCart(cart: HeldCart): Promise<unknown>;
  signIn(session: Session, keepAlive: KeepAlive): Promise<unknown>;
}

/** What the request path needs; I/O is handed in. */
export interface RequestPathContext {
  options: ResolvedOptions;
  held: HeldCredentials;
  refresher: SessionRefresher;
  keeper: Keeper;
  send: Omit<PageSend, 'isUnderBase'>;
  now: () => number;
}

/** One base URL's request rules. */
export class RequestPath {
  readonly #context: RequestPathContext;
  readonly #to: PageSend;

  constructor(context: RequestPathContext) {
    this.#context = context;
    const { base } = context.options;
    this.#to = { ...context.send, isUnderBase: (url) => pathUnderBase(new URL(url), base) !== null };
  }

  /**
   * Synchronous, as Workbox route matching is. With the credentials in memory: the decision (Workbox
   * hands it to the handler as `params`), or `null` when the request needs nothing, so it never
   * reaches `respondWith`. While the credentials are not loaded yet: `true` for any storefront
   * request, and `handle` decides once they are.
   */
  match(request: Request, url: URL): Decision | true | null {
    // Navigations and no-cors requests cannot carry our headers; credentials are for API fetches.
    if (request.mode === 'navigate' || request.mode === 'no-cors') return null;
    const kind = classifyRequest(url, request.method, this.#context.options);
    if (kind === null) return null;
    const held = this.#context.held.current;
    return held === null ? true : decideRequest(kind, heldFlags(held), this.#pageHeaders(request));
  }

  /**
   * Answers a matched request. Rejects (a network error for the page) when it could not be sent, or
   * when a write met a redirect. The bookkeeping after the response (assigning a cart, confirming a
   * bearer) goes on under `keepAlive`, not in front of the page.
   */
  async handle(request: Request, url: URL, matched: Decision | undefined, keepAlive: KeepAlive): Promise<Response> {
    const { held, send } = this.#context;
    const decision = matched ?? (await this.#decideOnceLoaded(request, url));
    if (decision === null) return passThrough(send, request);
    const { kind, capture } = decision;
    if (DEBUG_BUILD) send.log?.(`${request.method} ${url.pathname}: ${decision.credential ?? 'no credential'}${capture === null ? '' : `, keeps the ${capture}`}`);
    const body = await bufferBody(request);
    const current = held.current ?? (await held.load());
    // A page's SDK refreshing with the placeholder it was given shares the worker's refresh.
    if (kind === 'tokenGrant' && body !== undefined && isSealedRefreshGrant(request.headers.get('Content-Type'), new TextDecoder().decode(body))) {
      return this.#answerSealedRefresh(current);
    }
    const sent = this.#unseal(request, body, current);
    const response = await this.#send(sent, body, kind, current, keepAlive);
    // The page reads the URL an answer came from (`response.url`, XHR's `responseURL`): after a
    // swapped `guest_order_token` placeholder, that URL holds the real cart token.
    const urlHoldsToken = sent.url !== request.url;
    // An opaque redirect (the page asked for `redirect: 'manual'`) has no body to read or seal, and
    // cannot be rebuilt without its URL: where that URL holds the token, the page gets a network error.
    if (response.type === 'opaqueredirect') return urlHoldsToken ? Response.error() : response;
    // Only cart documents and token responses are read; everything else streams to the page as it came.
    if (!this.#seals(kind)) {
      if (capture !== null && response.ok) await this.#capture(capture, await response.clone().text().catch(() => ''), this.#context.now(), keepAlive);
      return urlHoldsToken ? rebuilt(response, response.body) : response;
    }
    // Sealing reads the body once, without a tee, and hands the page a response rebuilt from it.
    const text = await response.text();
    if (capture !== null && response.ok) await this.#capture(capture, text, this.#context.now(), keepAlive);
    return rebuilt(response, streamOf((kind === 'tokenGrant' ? sealTokenResponse : sealCartDocument)(text) ?? text));
  }

  /** Sends with the credential `credentialFor` names for what is held now. */
  #send(request: Request, body: BufferedBody, kind: RequestKind, held: Credentials, keepAlive: KeepAlive): Promise<Response> {
    const page = this.#pageHeaders(request);
    const credential = credentialFor(kind, heldFlags(held), page);
    if (credential === 'bearer' && held.session !== null) return this.#withBearer(request, body, kind, held.session, keepAlive);
    return sendPage(this.#to, request, body, this.#orderToken(credential, held.cart), this.#seals(kind));
  }

  /** Bearer rules (CONTRACT.md, "Refresh"): refresh first when due; after a 401, one refresh and one replay. */
  async #withBearer(request: Request, body: BufferedBody, kind: RequestKind, held: Session, keepAlive: KeepAlive): Promise<Response> {
    const { refresher } = this.#context;
    const session = await refresher.sendable(held);
    // Refused before sending: the request goes out as a guest's would.
    if (session === null) return this.#asGuest(request, body, kind);
    const first = await this.#sendWithBearer(request, body, kind, session, keepAlive);
    if (first.status !== 401) return first;
    if (DEBUG_BUILD) this.#context.send.log?.(`${request.method} ${new URL(request.url).pathname}: 401, refreshing once`);
    const outcome = await refresher.refresh(session, 'unauthorized');
    // Refused, backing off, or no newer pair to replay with: the page receives the server's 401.
    if (outcome.kind !== 'fresh' || outcome.session.accessToken === session.accessToken) return first;
    return this.#sendWithBearer(request, body, kind, outcome.session, keepAlive);
  }

  async #sendWithBearer(request: Request, body: BufferedBody, kind: RequestKind, session: Session, keepAlive: KeepAlive): Promise<Response> {
    const response = await sendPage(this.#to, request, body, ['Authorization', `Bearer ${session.accessToken}`], this.#seals(kind));
    // The first answer other than 401 proves a refreshed bearer good, which lifts the back-off.
    if (response.status !== 401 && !session.confirmed) keepAlive(this.#context.refresher.confirm(session));
    return response;
  }

  async #asGuest(request: Request, body: BufferedBody, kind: RequestKind): Promise<Response> {
    const { cart } = this.#context.held.current ?? (await this.#context.held.load());
    const credential = credentialFor(kind, { signedIn: false, hasCart: cart !== null }, this.#pageHeaders(request));
    return sendPage(this.#to, request, body, this.#orderToken(credential, cart), this.#seals(kind));
  }

  /** True when the answer to a request of `kind` is sealed: cart and checkout documents, token responses. */
  #seals(kind: RequestKind): boolean {
    return this.#context.options.sealTokens && kind !== 'account';
  }

  #orderToken(credential: ReturnType<typeof credentialFor>, cart: HeldCart | null): AddedHeader | null {
    return credential === 'orderToken' && cart !== null ? [this.#context.options.preset.orderTokenHeader, cart.token] : null;
  }

  /** Keeps the cart or the pair that a successful response brought, whoever sent the request. */
  async #capture(kind: 'cart' | 'token', text: string, receivedAt: number, keepAlive: KeepAlive): Promise<void> {
    if (kind === 'cart') {
      const cart = readCartDocument(parseJson(text));
      if (cart !== null) await this.#context.keeper.keepCart(cart);
      return;
    }
    const session = text.length > MAX_TOKEN_BODY_CHARS ? null : readTokenBody(parseJson(text), receivedAt);
    if (session === null) return;
    if (DEBUG_BUILD) this.#context.send.log?.('capture: kept the pair from a token response');
    await this.#context.keeper.signIn(session, keepAlive);
  }

  /** `match`'s decision, for a request that arrived before the credentials were in memory. */
  async #decideOnceLoaded(request: Request, url: URL): Promise<Decision | null> {
    const kind = classifyRequest(url, request.method, this.#context.options);
    return kind === null ? null : decideRequest(kind, heldFlags(await this.#context.held.load()), this.#pageHeaders(request));
  }

  /**
   * The page's credential headers; a placeholder the page sends back is the worker's credential,
   * not the page's own (CONTRACT.md, "Sealed tokens"), so it gets the current token.
   */
  #pageHeaders(request: Request): PageHeaders {
    const { headers } = request;
    const orderToken = headers.get(this.#context.options.preset.orderTokenHeader);
    const authorization = headers.get('Authorization');
    return { authorization: authorization !== null && authorization !== SEALED_BEARER, orderToken: orderToken !== null && orderToken !== SEALED.cart };
  }

  /**
   * The request with the placeholders it carries taken out (the credential rules add the real
   * header) and a sealed `guest_order_token` query swapped for the real cart token; the request
   * itself when it carries none, the common case.
   */
  #unseal(request: Request, body: BufferedBody, held: Credentials): Request {
    const orderTokenHeader = this.#context.options.preset.orderTokenHeader;
    const { headers } = request;
    const sealedHeader = headers.get('Authorization') === SEALED_BEARER || headers.get(orderTokenHeader) === SEALED.cart;
    const url = unsealQuery(request.url, held.cart?.token ?? null);
    if (!sealedHeader && url === null) return request;
    const cleaned = new Headers(headers);
    if (cleaned.get('Authorization') === SEALED_BEARER) cleaned.delete('Authorization');
    if (cleaned.get(orderTokenHeader) === SEALED.cart) cleaned.delete(orderTokenHeader);
    return requestAt(url ?? request.url, request, cleaned, body, request.redirect);
  }

  /**
   * Answers a page's sealed refresh grant from the worker's pair: the current one while it is not
   * due, else the single refresh every other context shares, so it never causes a second grant.
   */
  async #answerSealedRefresh(held: Credentials): Promise<Response> {
    const { refresher, now } = this.#context;
    // A refresh that leaves no valid bearer fails the page's grant as a network error would.
    const session = held.session === null ? null : await refresher.sendable(held.session);
    if (session === null) {
      // Doorkeeper's refusal (STOREFRONT-FACTS.md): the page's SDK sees the session has ended.
      return Response.json({ error: 'invalid_grant', error_description: 'The provided authorization grant is invalid.' }, { status: 400, headers: NO_STORE });
    }
    return Response.json(sealedTokenBody(session.expiresAt, now()), { headers: NO_STORE });
  }
}

/** Token responses are never cached (STOREFRONT-FACTS.md, "Token endpoint"). */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** Statuses whose responses have no body (Fetch, "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A response like `response` (status and headers kept, its URL not) whose body is `body`: the sealed
 * text as a stream, or the response's own stream passed on unread.
 */
function rebuilt(response: Response, body: ReadableStream<Uint8Array> | null): Response {
  const headers = new Headers(response.headers);
  // The body may have changed length, and is no longer encoded: the browser describes it anew.
  headers.delete('Content-Length');
  headers.delete('Content-Encoding');
  return new Response(NULL_BODY.has(response.status) ? null : body, { status: response.status, statusText: response.statusText, headers });
}

function heldFlags(held: Credentials): { signedIn: boolean; hasCart: boolean } {
  return { signedIn: held.session !== null, hasCart: held.cart !== null };
}

/**
 * The rebuilt body as a one-chunk stream rather than a string: Chromium passes a stream body to
 * the page down a data pipe, as it does a network body, and a string body costs it more. Measured
 * with `npm run bench`, cart calls with sealing on: c/b 1.37 with a string, 1.18 with a stream
 * (same runs, alternated).
 */
function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}
