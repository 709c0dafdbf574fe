/**
 * End-to-end helpers for Spree 5's Store API (the `spree-v3` preset) against the reference
 * storefront's `spree-v3` flavour (demo/storefront/README.md): its options, the page's own calls
 * (which carry their own publishable key, as the official SDK's do), and its test controls.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { openShop, type DropInAttributes, type Storefront, type StorefrontOptions } from './support.js';

/** The flavour's default publishable key. */
export const V3_KEY = 'pk_test_storefront_auth';

/** Where the Store API lives under the base URL. */
export const V3 = '/api/v3/store';

/** The flavour, with rate limits far above what a spec sends (the real defaults are 10 refreshes a minute). */
export const V3_STOREFRONT: StorefrontOptions = {
  flavour: 'spree-v3',
  rateLimits: { login: 10_000, refresh: 10_000, logout: 10_000, register: 10_000, passwordReset: 10_000 },
};

/** The flavour's own controls (`storefront.v3`). */
export interface V3Controls {
  publishableKey: string;
  /** Live refresh tokens; a rotated or revoked one is gone. */
  refreshTokens: ReadonlyMap<string, { token: string; userId: number; expiresAt: number }>;
  dropRefreshAnswers(times?: number): void;
  /** The next `times` (default 1) refreshes that rotate do so at once, then answer `ms` later. */
  delayRefreshAnswers(delay: { ms: number; times?: number }): void;
  forceRefreshRateLimit(options: { times?: number; forMs?: number; retryAfter?: number }): void;
  passwordResetToken(email: string): string;
}

/** The counters the flavour adds to `stats()`. */
export interface V3Stats {
  passwordGrants: number;
  refreshGrants: number;
  rotations: number;
  refusedRefreshes: number;
  rateLimited: number;
  idempotentReplays: number;
  droppedAnswers: number;
  revocations: number;
}

/** The v3 controls of a storefront started with `V3_STOREFRONT`. */
export function v3(storefront: Storefront): V3Controls {
  const controls = (storefront as unknown as { v3: V3Controls | null }).v3;
  if (controls === null) throw new Error('The storefront is not the spree-v3 flavour');
  return controls;
}

/** The flavour's counters. */
export function v3Stats(storefront: Storefront): V3Stats {
  return storefront.stats() as unknown as V3Stats;
}

/** A carts held by the storefront, by its numeric id (read-only). */
interface V3Order {
  id: number;
  number: string;
  token: string;
  userId?: number | null;
}

/** The real token of the cart numbered `number`. */
export function v3CartToken(storefront: Storefront, number: string | undefined): string {
  const order = [...(storefront.carts as unknown as ReadonlyMap<unknown, V3Order>).values()].find((candidate) => candidate.number === number);
  if (order === undefined) throw new Error(`The storefront holds no cart ${number}`);
  return order.token;
}

/**
 * Every credential the server issued or saw, for a check that none reached the page: the cart
 * tokens it holds, the refresh tokens alive, and every bearer and refresh token in its request log.
 */
export function v3Secrets(storefront: Storefront): string[] {
  const orders = [...(storefront.carts as unknown as ReadonlyMap<unknown, V3Order>).values()].map((order) => order.token);
  const logged = storefront.requests.flatMap((request) => [request.headers.authorization?.replace(/^Bearer /, ''), request.refreshToken, request.headers.orderToken]);
  const all = [...orders, ...v3(storefront).refreshTokens.keys(), ...logged];
  return [...new Set(all.filter((value): value is string => typeof value === 'string' && value !== '' && !value.startsWith('sealed:')))];
}

/** Opens a test page with the drop-in set to the `spree-v3` preset and the flavour's key. */
export function openV3Shop(context: BrowserContext, storefront: Pick<Storefront, 'url'>, attributes: DropInAttributes = {}): Promise<Page> {
  return openShop(context, storefront, { preset: 'spree-v3', publishableKey: V3_KEY, ...attributes });
}

/** What a Store API call in the page answered. */
export interface V3Result {
  status: number;
  body: string;
  json: unknown;
}

/**
 * Calls `{V3}{path}` from the page with its own publishable key and JSON body, as the official SDK
 * does; `headers` are added (a placeholder bearer or cart token, say).
 */
export function v3Fetch(page: Page, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<V3Result> {
  return page.evaluate(
    async ({ url, key, init }) => {
      const headers: Record<string, string> = { 'X-Spree-Api-Key': key, ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...init.headers };
      const response = await fetch(url, { method: init.method ?? 'GET', headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
      const body = await response.text();
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // Not JSON (a 204): `body` says what came.
      }
      return { status: response.status, body, json };
    },
    { url: `${V3}${path}`, key: V3_KEY, init },
  );
}

/** The bridge's state in the page. */
export function stateOf(page: Page): ReturnType<typeof window.storefrontAuth.getState> {
  return page.evaluate(() => window.storefrontAuth.getState());
}
