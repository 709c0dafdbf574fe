/**
 * End-to-end fixtures: a real reference storefront per test (demo/storefront) serving the built
 * dist files and the test site, and helpers that drive the drop-in in a real Chromium page.
 */
import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: the reference storefront is plain JavaScript without declarations.
import { startStorefront as startUntyped } from '../demo/storefront/server.mjs';

/** The repository root, with a trailing slash. */
export const root = fileURLToPath(new URL('..', import.meta.url));

/** The parts of the reference storefront's handle the tests use. */
export interface Storefront {
  url: string;
  /** Carts by their order token (read-only). */
  carts: ReadonlyMap<string, { number: string; token: string }>;
  /** Token pairs by access and by refresh token (read-only). */
  tokens: ReadonlyMap<string, { accessToken: string; refreshToken: string; revoked: boolean; createdAt: number }>;
  close(): Promise<void>;
  user: { username: string; password: string };
  requests: LoggedRequest[];
  stats(): {
    passwordGrants: number;
    refreshGrants: number;
    refreshSuccesses: number;
    invalidGrants: number;
    tokenRequests: number;
    revocations: number;
    /** Revoke requests answered 200 that changed nothing (unknown, already revoked, or expired under `'doorkeeper-5.5'`). */
    revocationsIgnored: number;
    /** API requests answered 401 by `refuseEveryBearer`. */
    refusedBearers: number;
    /** spree-v3: refresh tokens rotated (dropped answers included, replays not). */
    rotations?: number;
    /** spree-v3: refreshes answered 401 `invalid_refresh_token`. */
    refusedRefreshes?: number;
  };
  clearLog(): void;
  revokeAllTokens(): void;
  expireAllAccessTokens(): void;
  override(method: string, path: string, reply: OverrideReply): void;
  clearOverrides(): void;
  /** While on, every bearer on an authenticating API endpoint is 401 "The access token was revoked"; the token endpoint works as usual. */
  refuseEveryBearer(on: boolean): void;
  /** The spree-v3 flavour's own controls (demo/storefront/README.md, "Its test controls"); `null` for the other flavours. */
  v3: { publishableKey: string } | null;
}

/** One request as the storefront received it. */
export interface LoggedRequest {
  method: string;
  path: string;
  search: string;
  /** `orderToken` is the flavour's order-token header (spree-v3: `x-spree-token`); `apiKey` is spree-v3's `X-Spree-Api-Key`. */
  headers: { authorization?: string; orderToken?: string; host?: string; origin?: string; contentType?: string; range?: string; referer?: string; apiKey?: string; idempotencyKey?: string };
  body?: string;
  /** Date.now() on receipt. */
  at: number;
  /** spree-v3, `/auth/*` calls: the JSON body's `refresh_token` as received. */
  refreshToken?: string;
  /** spree-v3: answered from the idempotency cache. */
  replayed?: boolean;
  /** The answer was dropped (an override's `drop`, spree-v3's dropRefreshAnswers). */
  dropped?: boolean;
  /** The status answered, once the response has been sent. */
  status?: number;
}

/** A canned answer for the next matching request(s). */
export interface OverrideReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | object;
  delayMs?: number;
  times?: number;
  passThrough?: boolean;
  /** A redirect that carries on the query it received: the request's query is appended to `Location`. */
  keepQuery?: boolean;
  /** A streamed answer instead of `body`: each chunk written on its own, `everyMs` apart; `forever` starts over until the client goes away. */
  chunks?: Array<string | Buffer>;
  everyMs?: number;
  forever?: boolean;
  /** Honours a `Range: bytes=first-last` request on `body`: 206 with that part. */
  ranges?: boolean;
  /** No answer: the socket is destroyed; with `passThrough`, after the request was handled (a write applied). */
  drop?: boolean;
  /** The answer's bytes as they are (status line, headers, body), written on the socket, which is then closed. */
  raw?: Buffer;
}

/** Options for the reference storefront of one test. */
export interface StorefrontOptions {
  accessTokenLifetime?: number;
  rotation?: 'doorkeeper' | 'strict';
  /** `'doorkeeper-5.5'`: revoking a pair whose access token has expired changes nothing. Default `'all'`. */
  revocation?: 'all' | 'doorkeeper-5.5';
  flavour?: 'store' | 'spree' | 'spree-v3';
  basePath?: string;
  /** Seconds the server's clock reads ahead of the machine's (negative: behind): its `Date`, and spree-v3's JWT `exp`. */
  clockOffset?: number;
  /** spree-v3: the `X-Spree-Api-Key` every route needs (default `pk_test_storefront_auth`). */
  publishableKey?: string;
  /** spree-v3: per-IP limits per window (demo/storefront/README.md). */
  rateLimits?: Partial<Record<'login' | 'refresh' | 'logout' | 'register' | 'passwordReset' | 'window', number>>;
  /** `false`: every answer closes its connection, so that a dropped answer is not sent again by the browser itself. */
  keepAlive?: boolean;
  /** File mounts, replacing the default ones (test site, vendor scripts, dist at the root). */
  static?: Array<{ prefix: string; dir: string }>;
}

const startStorefront = startUntyped as (options: object) => Promise<Storefront>;

/** What the reference storefront serves besides the API, unless a test names its own mounts. */
export const DEFAULT_MOUNTS: NonNullable<StorefrontOptions['static']> = [
  { prefix: '/site/', dir: `${root}e2e/site` },
  // Browser builds of third-party packages the test pages load as a shop would (the Spree SDK).
  { prefix: '/vendor/', dir: `${root}node_modules` },
  { prefix: '/', dir: `${root}dist` },
];

export const test = base.extend<{ storefrontOptions: StorefrontOptions; storefront: Storefront }>({
  storefrontOptions: [{}, { option: true }],
  storefront: async ({ storefrontOptions }, use) => {
    const storefront = await startStorefront({
      port: 0,
      static: DEFAULT_MOUNTS,
      ...storefrontOptions,
    });
    await use(storefront);
    await storefront.close();
  },
});

export { expect };

/** Drop-in attributes, as `data-*` names without the prefix (`baseUrl` → `data-base-url`). */
export type DropInAttributes = Partial<Record<'baseUrl' | 'preset' | 'publishableKey' | 'sw' | 'scope' | 'debug' | 'sealTokens' | 'offlineWrites', string>>;

/**
 * The real order token of cart `number`, as the storefront issued it: with sealed tokens the page
 * reads only `sealed:cart`, so a test that checks the header the server got asks the server.
 */
export function realCartToken(storefront: Storefront, number: string | undefined): string {
  const cart = [...storefront.carts.values()].find((candidate) => candidate.number === number);
  if (cart === undefined) throw new Error(`The storefront holds no cart ${number}`);
  return cart.token;
}

/** Every token the storefront issued: access, refresh and order tokens. */
export function issuedTokens(storefront: Storefront): string[] {
  const pairs = [...storefront.tokens.values()].flatMap((pair) => [pair.accessToken, pair.refreshToken]);
  return [...new Set([...pairs, ...storefront.carts.keys()])];
}

/** The access token of the pair the storefront issued last. */
export function lastIssuedAccessToken(storefront: Storefront): string {
  const pairs = [...new Set(storefront.tokens.values())].sort((a, b) => a.createdAt - b.createdAt);
  const last = pairs.at(-1);
  if (last === undefined) throw new Error('The storefront issued no token');
  return last.accessToken;
}

/** Adds the drop-in's script tag with `attributes` to the page and resolves once it has run (not waiting for `ready`). */
export async function addDropIn(page: Page, attributes: DropInAttributes): Promise<void> {
  await page.evaluate(async (attributes) => {
    const script = document.createElement('script');
    script.src = '/storefront-auth.js';
    Object.assign(script.dataset, attributes);
    const loaded = new Promise((resolve, reject) => {
      script.onload = resolve;
      script.onerror = reject;
    });
    document.head.append(script);
    await loaded;
  }, attributes);
}

/**
 * Opens a page of the test site, adds the drop-in's script tag with `attributes`, waits for
 * `storefrontAuth.ready`, and records every `change`, `sessionexpired`, `storageunavailable`, `writequeued` and
 * `writesettled` event in `window.events`.
 */
export async function openShop(context: BrowserContext, storefront: Pick<Storefront, 'url'>, attributes: DropInAttributes = {}, path = '/site/blank.html'): Promise<Page> {
  const page = await context.newPage();
  await page.goto(storefront.url + path);
  await addDropIn(page, attributes);
  await page.evaluate(async () => {
    const events: Array<{ type: string; detail: unknown; at: number }> = [];
    Object.assign(window, { events });
    for (const type of ['change', 'sessionexpired', 'storageunavailable', 'writequeued', 'writesettled']) {
      window.storefrontAuth.addEventListener(type, (event) => events.push({ type, detail: (event as CustomEvent).detail, at: performance.now() }));
    }
    await window.storefrontAuth.ready;
  });
  return page;
}

/** What `fetch` in the page answered, reduced to plain values. */
export interface PageFetchResult {
  status: number;
  body: string;
}

/** Runs `fetch(url, init)` in the page; the URL is relative to the page unless absolute. */
export function pageFetch(page: Page, url: string, init: RequestInit = {}): Promise<PageFetchResult> {
  return page.evaluate(async ({ url, init }) => {
    const response = await fetch(url, init);
    return { status: response.status, body: await response.text() };
  }, { url, init });
}

/** The events recorded in the page since it opened. */
export function recordedEvents(page: Page): Promise<Array<{ type: string; detail: unknown }>> {
  return page.evaluate(() => (window as unknown as { events: Array<{ type: string; detail: unknown }> }).events);
}

/** The requests the storefront saw for a method and path (path without the base path). */
export function requestsTo(storefront: Storefront, method: string, path: string): LoggedRequest[] {
  return storefront.requests.filter((request) => request.method === method && request.path === path);
}

/**
 * Another tab of the origin that holds a connection to the worker's database (`storefront-auth`) and
 * ignores `versionchange`, as a page of an older release may: a deletion or an upgrade asked for
 * meanwhile stays blocked behind it, and so does every open after that. `release` closes it.
 */
export async function holdDatabase(context: BrowserContext, storefront: Pick<Storefront, 'url'>): Promise<{ release: () => Promise<void> }> {
  const tab = await context.newPage();
  await tab.goto(`${storefront.url}/site/blank.html`);
  await tab.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('storefront-auth');
        open.onsuccess = () => (Object.assign(window, { held: open.result }), resolve());
        open.onerror = () => reject(open.error);
      }),
  );
  return { release: () => tab.evaluate(() => (window as unknown as { held: IDBDatabase }).held.close()) };
}

/** Stops every service worker of the browser, as the browser does when idle (CDP). */
export async function stopServiceWorkers(page: Page): Promise<void> {
  const session = await page.context().newCDPSession(page);
  await session.send('ServiceWorker.enable');
  await session.send('ServiceWorker.stopAllWorkers');
  await session.detach();
}

/** Signs in through the bridge and returns the new state. */
export function login(page: Page, credentials: { username: string; password: string }): ReturnType<typeof window.storefrontAuth.login> {
  return page.evaluate((credentials) => window.storefrontAuth.login(credentials), credentials);
}

/** A bridge call's rejection, reduced to plain values (`null` if it resolved). */
export interface CaughtError {
  name: string;
  code: string;
  status?: number;
  message: string;
}

/** Runs a bridge method in the page and returns its error, or `null` when it resolved. */
export function bridgeError(page: Page, method: 'login' | 'logout' | 'createCart' | 'getState', argument?: unknown): Promise<CaughtError | null> {
  return page.evaluate(
    ({ method, argument }) =>
      (window.storefrontAuth[method] as (argument?: unknown) => Promise<unknown>).call(window.storefrontAuth, argument).then(
        () => null,
        (error: CaughtError) => ({ name: error.name, code: error.code, ...(error.status === undefined ? {} : { status: error.status }), message: error.message }),
      ),
    { method, argument },
  );
}

/** Waits until the page's state says the access token has expired, plus `extraMs`. */
export async function waitForExpiry(page: Page, extraMs = 100): Promise<void> {
  const state = await page.evaluate(() => window.storefrontAuth.getState());
  const wait = (state.accessTokenExpiresAt ?? Date.now()) - Date.now() + extraMs;
  if (wait > 0) await page.waitForTimeout(wait);
}

/** Fires `count` account requests at once in the page without waiting for them; `settle` collects them as `batch`. */
export async function fire(page: Page, count: number, batch: string): Promise<void> {
  await page.evaluate(
    ({ count, batch }) => {
      const all = Array.from({ length: count }, () => fetch('/api/v2/storefront/account').then((r) => r.status, () => 0));
      (window as unknown as Record<string, unknown>)[batch] = Promise.all(all);
    },
    { count, batch },
  );
}

/** The statuses of a batch that `fire` started (0 for a network error). */
export function settle(page: Page, batch: string): Promise<number[]> {
  return page.evaluate((batch) => (window as unknown as Record<string, Promise<number[]>>)[batch]!, batch);
}

/**
 * After a new release took over from `signedIn`: every account request carried one bearer (the
 * rotated one), and each tab is still signed in, with the same cart and a later expiry.
 */
export async function expectOneRotatedSession(storefront: Storefront, pages: Page[], signedIn: Awaited<ReturnType<typeof login>>): Promise<void> {
  const bearers = new Set(requestsTo(storefront, 'GET', '/api/v2/storefront/account').map((request) => request.headers.authorization));
  expect(bearers.size, 'every request carried the one rotated bearer').toBe(1);
  for (const page of pages) {
    const state = await page.evaluate(() => window.storefrontAuth.getState());
    expect(state).toMatchObject({ signedIn: true, cart: signedIn.cart });
    expect(state.accessTokenExpiresAt).toBeGreaterThan(signedIn.accessTokenExpiresAt ?? 0);
  }
}

/** The bearer the storefront saw on the last request to `path`. */
export function lastBearer(storefront: Storefront, method: string, path: string): string | undefined {
  return requestsTo(storefront, method, path).at(-1)?.headers.authorization;
}

/**
 * A page signed in whose access token has expired, while a script of the page holds the worker's
 * refresh lock (a Web Lock every context of the origin shares) until `releaseRefreshLock`; the
 * storefront's log cleared. The next refresh waits for the lock.
 */
export async function expiredWithRefreshLockHeld(context: BrowserContext, storefront: Storefront): Promise<{ page: Page; signedIn: Awaited<ReturnType<typeof login>> }> {
  const page = await openShop(context, storefront);
  const signedIn = await login(page, storefront.user);
  await waitForExpiry(page);
  await page.evaluate(async () => {
    const name = `storefront-auth:refresh:${window.storefrontAuth.baseUrl}`;
    await new Promise<void>((granted) => {
      void navigator.locks.request(name, () => {
        granted();
        return new Promise<void>((release) => Object.assign(window, { releaseLock: release }));
      });
    });
  });
  storefront.clearLog();
  return { page, signedIn };
}

/** Lets go of the lock `expiredWithRefreshLockHeld` took (the page may also call `window.releaseLock()`). */
export async function releaseRefreshLock(page: Page): Promise<void> {
  await page.evaluate(() => (window as unknown as { releaseLock: () => void }).releaseLock());
}

/**
 * True when the worker's database holds a record whose cart is numbered `number`, read from `page`
 * (false while the database cannot be opened or holds no store yet). A read of storage itself, for a
 * spec that checks a write landed.
 */
export function cartInStorage(page: Page, number: string): Promise<boolean> {
  return page.evaluate(
    (number) =>
      new Promise<boolean>((resolve) => {
        const open = indexedDB.open('storefront-auth');
        open.onerror = () => resolve(false);
        open.onsuccess = () => {
          const db = open.result;
          if (db.objectStoreNames.length === 0) return (db.close(), resolve(false));
          const all = db.transaction(db.objectStoreNames[0]!).objectStore(db.objectStoreNames[0]!).getAll();
          all.onsuccess = () => (db.close(), resolve((all.result as Array<{ cart?: { number?: string } }>).some((record) => record.cart?.number === number)));
          all.onerror = () => (db.close(), resolve(false));
        };
      }),
    number,
  );
}
