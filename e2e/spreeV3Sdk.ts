/**
 * Drives the official Store API SDK, `@spree/sdk`, in a page of the test site (e2e/site/spree-v3.html,
 * `window.spree = createClient(…)`), and reads what the spree-v3 storefront logged, for the specs of
 * a shop on Spree 5's Store API.
 */
import type { BrowserContext, Page } from '@playwright/test';
import type { LoggedRequest, Storefront } from './support.js';

/** The Store API's prefix under the base URL. */
export const V3 = '/api/v3/store';

/** One SDK call as the page saw it: its result, or the error it threw reduced to plain values. */
export type V3Outcome =
  | { ok: true; data: unknown }
  | { ok: false; name: string; status?: number; code?: string; message: string };

/**
 * Calls `window.spree.<method>(...args)` in the page (`'carts.items.create'`) and returns its outcome.
 * Every outcome is also kept in the page, as JSON, for `readBySdk`.
 */
export function v3sdk(page: Page, method: string, ...args: unknown[]): Promise<V3Outcome> {
  return page.evaluate(
    async ({ method, args }) => {
      const names = method.split('.');
      const name = names.pop()!;
      const owner = names.reduce((object, key) => object[key] as Record<string, unknown>, (window as unknown as { spree: Record<string, unknown> }).spree);
      let outcome: V3Outcome;
      try {
        outcome = { ok: true, data: await (owner[name] as (...args: unknown[]) => Promise<unknown>)(...args) };
      } catch (thrown) {
        const error = thrown as { name: string; message: string; status?: number; code?: string };
        outcome = { ok: false, name: error.name, message: error.message, ...(error.status === undefined ? {} : { status: error.status }), ...(error.code === undefined ? {} : { code: error.code }) };
      }
      const seen = ((window as unknown as { sdkSeen?: string[] }).sdkSeen ??= []);
      seen.push(JSON.stringify(outcome) ?? '');
      return outcome;
    },
    { method, args },
  );
}

/** Everything the SDK handed the page so far, as the JSON of each outcome. */
export function readBySdk(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { sdkSeen?: string[] }).sdkSeen ?? []);
}

/** A request as the spree-v3 storefront logged it (demo/storefront/README.md, "Its test controls"). */
export interface V3LoggedRequest extends LoggedRequest {
  headers: LoggedRequest['headers'] & { apiKey?: string; idempotencyKey?: string };
  /** `/auth/login|refresh|logout`: the JSON body's `refresh_token` as received. */
  refreshToken?: string;
  replayed?: boolean;
}

/** The spree-v3 test controls the specs read (`sf.v3`). */
export interface V3Controls {
  publishableKey: string;
  refreshTokens: ReadonlyMap<string, { token: string; userId: number; expiresAt: number }>;
}

/** The storefront's spree-v3 controls; throws for another flavour. */
export function v3Controls(storefront: Storefront): V3Controls {
  const { v3 } = storefront as unknown as { v3: V3Controls | null };
  if (v3 === null) throw new Error('The storefront is not the spree-v3 flavour');
  return v3;
}

/** The Store API requests the storefront saw for a method and a path under `/api/v3/store`. */
export function v3Requests(storefront: Storefront, method: string, path: string): V3LoggedRequest[] {
  return (storefront.requests as V3LoggedRequest[]).filter((request) => request.method === method && request.path === `${V3}${path}`);
}

/** The stats of the spree-v3 flavour. */
export function v3Stats(storefront: Storefront): ReturnType<Storefront['stats']> & { rotations: number; idempotentReplays: number } {
  return storefront.stats() as ReturnType<Storefront['stats']> & { rotations: number; idempotentReplays: number };
}

/** The real token of the cart numbered `number`, as the storefront issued it. */
export function realV3CartToken(storefront: Storefront, number: string): string {
  const order = [...(storefront.carts as unknown as ReadonlyMap<number, { number: string; token: string }>).values()].find((candidate) => candidate.number === number);
  if (order === undefined) throw new Error(`The storefront holds no cart ${number}`);
  return order.token;
}

/**
 * Collects every JWT and refresh token the Store API issues to the context (the answers to the
 * worker's and the page's logins and refreshes, as Chromium received them), into the returned set.
 */
export function collectIssuedTokens(context: BrowserContext): Set<string> {
  const issued = new Set<string>();
  context.on('response', (response) => {
    if (!/\/api\/v3\/store\/(auth\/(login|refresh)|customers)$/.test(new URL(response.url()).pathname)) return;
    void response.json().then(
      (body: { token?: unknown; refresh_token?: unknown }) => {
        for (const token of [body.token, body.refresh_token]) if (typeof token === 'string' && !token.startsWith('sealed:')) issued.add(token);
      },
      () => undefined,
    );
  });
  return issued;
}
