/**
 * Helpers for the offline cart write specs: a cart write sent from a page as a shop sends it, the
 * details of the events a page heard, and the cart as the reference storefront holds it (what the
 * server applied, not what a page was told).
 */
import type { Page } from '@playwright/test';
import { recordedEvents, type Storefront } from './support.js';

/**
 * How long a spec waits for the first replay once the network is back. Playwright takes the page
 * online before the worker, so the replay the page's `online` report starts may still find the
 * worker's network down; that attempt counts, and the write waits its 5 s back-off.
 */
export const BACK_ONLINE = { timeout: 15_000 };

export const ADD_ITEM = '/api/v2/storefront/cart/add_item';
export const SET_QUANTITY = '/api/v2/storefront/cart/set_quantity';

/** What a page's write came to: its status and queue id, or `network error` when its fetch rejected. */
export type WriteAnswer = { status: number; queued: string | null; body: string } | 'network error';

/** Sends `method path` with a JSON:API body from the page; never throws. */
export function pageWrite(page: Page, path: string, body: unknown, method = 'POST', headers: Record<string, string> = {}): Promise<WriteAnswer> {
  return page.evaluate(
    async ({ path, body, method, headers }) => {
      try {
        const response = await fetch(path, { method, headers: { 'Content-Type': 'application/vnd.api+json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
        return { status: response.status, queued: response.headers.get('Storefront-Auth-Queued'), body: await response.text() };
      } catch {
        return 'network error' as const;
      }
    },
    { path, body, method, headers },
  );
}

/** Adds `quantity` of variant `variant` to the held v2 cart from the page. */
export function addItem(page: Page, variant: string, quantity = 1): Promise<WriteAnswer> {
  return pageWrite(page, ADD_ITEM, { variant_id: variant, quantity });
}

/** The queue id of an answer that says the write was queued; fails otherwise. */
export function queuedId(answer: WriteAnswer): string {
  if (answer === 'network error' || answer.status !== 202 || answer.queued === null) throw new Error(`not queued: ${JSON.stringify(answer)}`);
  return answer.queued;
}

/** The details of the events of `type` the page heard, in order. */
export async function eventDetails(page: Page, type: string): Promise<unknown[]> {
  return (await recordedEvents(page)).filter((event) => event.type === type).map((event) => event.detail);
}

/** The line items of cart `number` as the v2 storefront holds them: `variant × quantity`. */
export function cartLines(storefront: Storefront, number: string | undefined): string[] {
  const cart = [...(storefront.carts as unknown as ReadonlyMap<string, { number: string; lineItems: Array<{ variantId: string; quantity: number }> }>).values()].find((candidate) => candidate.number === number);
  if (cart === undefined) throw new Error(`The storefront holds no cart ${number}`);
  return cart.lineItems.map((line) => `${line.variantId} × ${line.quantity}`);
}
