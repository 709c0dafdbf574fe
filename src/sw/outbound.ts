/**
 * One way out: every request the worker sends goes through this module, which
 * owns the redirect, credentials and cache modes, the time budget and the mapping of failures to
 * error codes. No other file of the worker calls `fetch`.
 *
 * Two kinds of request leave the worker:
 * - its own (grants, revocation, cart creation, association): never follow a redirect, send no
 *   cookies, skip the HTTP cache, and give up after `OWN_REQUEST_BUDGET_MS`;
 * - the page's, with a credential added (or carrying one in their body): a credential never follows
 *   a redirect out of the base URL (docs/behaviour.md, "What the worker does to requests"), and a
 *   write is sent exactly once.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { StorefrontAuthError } from '../shared/errors.js';
import type { WireRequest } from './dialect.js';
import { httpDate } from './serverClock.js';

/**
 * How long the worker's own requests may take, body included. Below the bridge's 10 s reply budget,
 * so that a method never reports `timeout` for a change the worker went on to make.
 */
export const OWN_REQUEST_BUDGET_MS = 8_000;

/** The fetch the worker was given: the global scope's, or a test's. */
export type FetchFunction = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/**
 * The worker's own `fetch`, the one call of it in the worker, so that one policy governs
 * every request the worker sends: everything else
 * sends through this module with it handed in. Called unbound, since the global's `fetch` throws
 * "Illegal invocation" as a method of another object.
 */
export const workerFetch: FetchFunction = (input, init) => (self as unknown as WindowOrWorkerGlobalScope).fetch(input, init);

/** What an answer to one of the worker's own requests is held to, beyond its redirect and cache rules. */
export interface OwnLimits {
  /** A longer answer is refused as `bad_response` (a token response is small). */
  maxChars?: number;
  /**
   * The budget of the bridge action this request is part of (actionBudget.ts), so the request gets
   * only what the action's waits left; without one, the request has `OWN_REQUEST_BUDGET_MS` of its own.
   */
  budget?: AbortSignal | undefined;
}

/** Sends one of the worker's own requests under its base URL: `sendOwn` with the worker's fetch and clock. */
export type SendOwn = (request: WireRequest, limits?: OwnLimits) => Promise<OwnReply>;

/** What arrived, read as text so any body can be judged. */
export interface OwnReply {
  status: number;
  text: string;
  /** When the response arrived, epoch ms (a token's expiry counts from here). */
  receivedAt: number;
  /** How long the server asked the client to wait (`Retry-After`, RFC 9110 10.2.3), in ms; `null` when it did not. */
  retryAfterMs: number | null;
  /** The server's clock when it answered (its `Date` header), epoch ms; `null` when unreadable. */
  serverDate: number | null;
}

/**
 * Sends one of the worker's own requests, a dialect's (dialect.ts) under `baseUrl`, and reads its body within the budget. Rejects with
 * `network_error` when no answer came (offline, CORS, the budget) and with `bad_response` for a
 * redirect, which is never followed: it could carry a password or token to another origin.
 */
export async function sendOwn(fetchFn: FetchFunction, baseUrl: string, request: WireRequest, now: () => number, limits: OwnLimits = {}): Promise<OwnReply> {
  const signal = limits.budget ?? AbortSignal.timeout(OWN_REQUEST_BUDGET_MS);
  let response: Response;
  try {
    response = await fetchFn(baseUrl + request.path, {
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      redirect: 'manual',
      credentials: 'omit',
      cache: 'no-store',
      signal,
    });
  } catch (error) {
    throw networkError(request.label, error);
  }
  // Fetch hides a manual redirect's status and location (an opaque-redirect filtered response).
  if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
    throw new StorefrontAuthError('bad_response', DEBUG_BUILD ? `${request.label} answered with a redirect, which the worker never follows with credentials; check baseUrl.` : `${request.label}: redirect; check baseUrl`);
  }
  const receivedAt = now();
  let text: string;
  try {
    // The same signal bounds the body: a server that sends headers and then stalls is cut off too.
    text = await response.text();
  } catch (error) {
    throw networkError(request.label, error);
  }
  if (limits.maxChars !== undefined && text.length > limits.maxChars) {
    throw new StorefrontAuthError('bad_response', DEBUG_BUILD ? `${request.label} answered ${response.status} with ${text.length} characters, too many for its kind of response.` : `${request.label}: ${response.status}, too long`, {
      status: response.status,
    });
  }
  const { headers } = response;
  return { status: response.status, text, receivedAt, retryAfterMs: retryAfterMs(headers, receivedAt), serverDate: httpDate(headers.get('Date')) };
}

/**
 * The longest `Retry-After` honoured: a longer one counts as this. A CDN's `86400` would otherwise
 * block every refresh for a day, and a value past what a `Date` holds would make the wait unwritable.
 */
export const RETRY_AFTER_MAX_MS = 5 * 60_000;

/**
 * An answer's `Retry-After` (delay-seconds or an HTTP date) as ms from its arrival at `receivedAt`, at
 * most `RETRY_AFTER_MAX_MS`; `null` when absent or unreadable. A date is the server's clock, so it is
 * counted from the answer's `Date` where readable (a device clock that is off would otherwise shorten
 * or stretch the wait by as much), from `receivedAt` where not.
 */
export function retryAfterMs(headers: Headers, receivedAt: number): number | null {
  // Headers hold a value without the whitespace around it (Fetch, "normalize").
  const value = headers.get('Retry-After');
  if (value === null) return null;
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, RETRY_AFTER_MAX_MS);
  const date = httpDate(value);
  return date === null ? null : Math.min(Math.max(0, date - (httpDate(headers.get('Date')) ?? receivedAt)), RETRY_AFTER_MAX_MS);
}

/**
 * True when the server under `baseUrl` answers at all: a `HEAD` of its root, with nothing of the page's
 * or the worker's (no credential, no cookie, `no-cors`, so that any answer counts, whatever its status
 * or CORS headers), within `budgetMs`. A browser reports the network's return before it carries
 * requests; a write that must not be sent twice goes only once this says it does.
 */
export async function reachable(fetchFn: FetchFunction, baseUrl: string, budgetMs: number): Promise<boolean> {
  try {
    // Followed: a browser refuses a no-cors request that does not follow redirects, before sending it.
    await fetchFn(`${baseUrl}/`, { method: 'HEAD', mode: 'no-cors', credentials: 'omit', cache: 'no-store', signal: AbortSignal.timeout(budgetMs) });
    return true;
  } catch {
    return false;
  }
}

/** A request that failed before any answer: offline, DNS, CORS refusal, or the time budget. */
export function networkError(label: string, cause: unknown): StorefrontAuthError {
  const timedOut = cause instanceof DOMException && (cause.name === 'TimeoutError' || cause.name === 'AbortError');
  const message = !DEBUG_BUILD
    ? `${label}: ${timedOut ? 'timeout' : 'unreachable'}`
    : timedOut
      ? `${label} did not answer within ${OWN_REQUEST_BUDGET_MS / 1000} s; nothing changed, try again.`
      : `${label} could not be reached (offline, or refused by CORS); nothing changed, try again.`;
  return new StorefrontAuthError('network_error', message, { cause });
}

/** One header the worker adds to a page's request. */
export type AddedHeader = readonly [name: string, value: string];

/** A request body read once, so the request can be sent again (a replay after a refresh). */
export type BufferedBody = ArrayBuffer | undefined;

/** Reads the body up front; GET and HEAD have none, and need no wait. The original stays unread for the page's sake. */
export function bufferBody(request: Request): Promise<BufferedBody> | undefined {
  return isRead(request.method) ? undefined : request.clone().arrayBuffer();
}

/** GET and HEAD: the methods that may be asked again after a redirect. */
export function isRead(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

/** Where a page's request goes, and what the worker needs to judge a redirect. */
export interface PageSend {
  fetch: FetchFunction;
  /**
   * The headers the credential table gives a redirect's final URL: under the base URL, what its
   * own path gets, and the real value of a placeholder `request` carries; nothing outside the base URL.
   * With the URL to ask them at: the query placeholder its path swaps given the real value, as on the
   * first try (`url` itself when there is none).
   */
  addedFor: (url: string, request: Request) => readonly [url: string, headers: readonly AddedHeader[]];
  log: ((message: string) => void) | undefined;
}

/**
 * Sends a page's request (first try or replay) with `added` headers (none, one, or the bearer and
 * the cart token); `pageUrl` is the URL the page wrote, where the worker swapped a placeholder in
 * the request's query. A credential never
 * follows a redirect out of the base URL, and fetch keeps custom headers across origins, so the
 * worker sends with `redirect: 'manual'` and, because a manual redirect's location is hidden from
 * scripts (Fetch: opaque-redirect filtered response):
 * - a GET or HEAD is asked again without the header, and the browser follows; when that ended
 *   under the base URL, the final location is asked once more with the header;
 * - any other method has reached the server once and is never re-sent (a repeated add_item is a
 *   second order line): the page's fetch rejects, as it would on a network error.
 * A write without an added header still goes manual, since its body may hold a password.
 *
 * `sealed`: the worker seals the answer (docs/security.md, "How sealing works"), so it is sent with
 * `cache: 'no-store'`. The HTTP cache would otherwise keep the body as the server sent it, token
 * included, for any page of the origin the worker does not control (after a hard reload) to read
 * with `cache: 'force-cache'`. And it goes without `Range` and `If-Range`: the page gets the whole
 * body, sealed, since two ranges could cut a token in two that the page joins again.
 */
export async function sendPage(to: PageSend, request: Request, body: BufferedBody, added: readonly AddedHeader[], sealed = false, pageUrl = request.url, pageMode = request.mode): Promise<Response> {
  // Sent once the fetch event's listener has returned (and `respondWith` has been called): Chromium
  // spends 40–80 µs more of the worker's thread on a `fetch()` made while the event is still being
  // dispatched (`npm run bench:profile`, docs/performance.md). A guest's request, which waits on
  // nothing before it goes, would otherwise be sent inside the dispatch. One microtask: it still goes
  // before any later event's.
  await Promise.resolve();
  const read = isRead(request.method);
  if (added.length === 0 && read && !sealed && pageUrl === request.url) return to.fetch(request);
  const cache = sealed ? 'no-store' : request.cache;
  const pageFollows = request.redirect === 'follow';
  // A write under `error` goes manual too: fetch's own refusal of a redirect is a bare TypeError, which
  // the offline queue would take for a write that never arrived, and send again.
  const sentManual = pageFollows || (request.redirect === 'error' && !read);
  const sent = copy(request, body, sentManual ? 'manual' : request.redirect, sealed ? cache : undefined);
  // Unlike the fetch event's request, a copy's headers may be changed (Fetch: guard "request"), so
  // the header goes straight onto it rather than onto a copy of the page's headers made first.
  const { headers } = sent;
  for (const [name, value] of added) headers.set(name, value);
  if (sealed) unranged(headers);
  const response = await to.fetch(sent);
  if (!sentManual || response.type !== 'opaqueredirect') return response;

  if (!read) {
    // The path alone, never the URL: its query may hold the real cart token (a swapped placeholder),
    // and the worker's console shows this rejection as uncaught. (No `const` for the path: esbuild
    // keeps a block that declares one in the production build, though the block can never run.)
    if (DEBUG_BUILD) to.log?.(`${request.method} ${new URL(request.url).pathname}: answered with a redirect; a write is sent once, so the page's fetch fails`);
    const error = new TypeError(DEBUG_BUILD ? `storefront-auth: ${request.method} ${new URL(request.url).pathname} was redirected; a write is never sent twice.` : 'storefront-auth: redirected write');
    // Named, so that the offline queue tells a write that reached the server from one that never did.
    error.name = 'RedirectedWriteError';
    throw error;
  }
  // Asked again as the page wrote it (a swapped placeholder back in its query, a placeholder header
  // as it was, no credential), and followed by the browser: nothing the worker added reaches
  // wherever the redirect points.
  // In the page's own mode: a no-cors request the browser answers opaquely wherever the redirect
  // points, where a same-origin one would fail at another origin (Fetch, "main fetch").
  const followed = await to.fetch(requestAt(pageUrl, request, sealed ? unranged(new Headers(request.headers)) : new Headers(request.headers), body, 'follow', cache, pageMode === 'no-cors' ? pageMode : undefined));
  if (!followed.redirected) return followed;
  // Under the base URL, the final location gets what the table gives its own path, nothing more,
  // also after a first try the worker added no header to (it swapped a query placeholder only, or
  // left out a placeholder it had no value for): the table is the final path's, not the first's.
  const [finalUrl, again] = to.addedFor(followed.url, request);
  // A location that gets no header but kept a query placeholder its path swaps is asked again too.
  if (again.length === 0 && finalUrl === followed.url) return followed;
  const finalHeaders = new Headers(request.headers);
  if (sealed) unranged(finalHeaders);
  for (const [name, value] of again) finalHeaders.set(name, value);
  // Its query as the page's first try's: a placeholder the server's Location kept is swapped there too.
  const last = await to.fetch(requestAt(finalUrl, request, finalHeaders, body, 'manual', cache));
  return last.type === 'opaqueredirect' ? followed : last;
}

/** `headers` without a range: the answer the worker seals is read whole. */
function unranged(headers: Headers): Headers {
  headers.delete('Range');
  headers.delete('If-Range');
  return headers;
}

/** Sends a page's request that needs nothing of the worker exactly as the page made it. */
export function passThrough(to: Pick<PageSend, 'fetch'>, request: Request): Promise<Response> {
  return to.fetch(request);
}

/**
 * The page's request sent to `url` instead, with `headers` and `body`: its mode (unless `mode` is
 * given), credentials, referrer and its policy, integrity and signal kept, and its cache mode unless `cache` is given. (A
 * Request's URL cannot change in a copy.)
 */
export function requestAt(url: string, request: Request, headers: Headers, body: BufferedBody, redirect: RequestRedirect, cache = request.cache, mode = sendableMode(request.mode)): Request {
  return new Request(url, {
    method: request.method,
    headers,
    // A null body is none (Fetch: a GET or HEAD may not have one).
    body: body ?? null,
    mode,
    credentials: request.credentials,
    cache,
    redirect,
    referrer: request.referrer,
    referrerPolicy: request.referrerPolicy,
    integrity: request.integrity,
    signal: request.signal,
  });
}

/** The request as the page made it, from the buffered body, with `redirect` and (where given) `cache`. */
function copy(request: Request, body: BufferedBody, redirect: RequestRedirect, cache?: RequestCache): Request {
  // Only what changes: each member of the init costs the copy a conversion. Any init at all resets
  // the copy's referrer to the worker's URL and its policy to the worker's (Fetch, new Request
  // step 13): the server is to see the page's, so both are given back.
  const init: RequestInit = { redirect, referrer: request.referrer, referrerPolicy: request.referrerPolicy };
  if (cache !== undefined) init.cache = cache;
  if (request.mode === 'no-cors') init.mode = sendableMode(request.mode);
  if (body !== undefined) init.body = body;
  return new Request(request, init);
}

/**
 * The mode a copy of the page's request is sent in. A no-cors request reaches the worker only on
 * its own origin (requestPath.ts), where `same-origin` fetches the same answer; but a no-cors
 * Request silently drops every header that is not CORS-safelisted (Fetch: guard "request-no-cors"),
 * the credential among them.
 */
function sendableMode(mode: RequestMode): RequestMode {
  return mode === 'no-cors' ? 'same-origin' : mode;
}
