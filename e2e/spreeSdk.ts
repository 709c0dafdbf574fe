/**
 * Drives the official Spree SDK in a page of the test site (e2e/site/spree.html, whose client is
 * handed no token), for the specs of a shop built on the SDK.
 */
import type { Page } from '@playwright/test';

/** One Spree SDK call as the page saw it: the SDK's Result reduced to plain values. */
export type SdkOutcome =
  | { ok: true; status: number | undefined; data: unknown }
  | { ok: false; status: number | undefined; error: string };

/** A Result as the SDK returns it (only what the tests read). */
interface SdkResult {
  isSuccess(): boolean;
  success(): unknown;
  fail(): { name: string; message: string; serverResponse?: { status?: number } };
}

/**
 * Calls `window.spree[endpoint][method](options)` in the page and returns its outcome with the HTTP
 * status the page saw for the request it sent (the Resource Timing entry of the SDK's XMLHttpRequest).
 */
export function sdk(page: Page, endpoint: 'cart' | 'authentication' | 'account', method: string, options?: object): Promise<SdkOutcome> {
  return page.evaluate(
    async ({ endpoint, method, options }) => {
      const { spree } = window as unknown as { spree: Record<string, Record<string, (options?: object) => Promise<SdkResult>>> };
      const before = performance.getEntriesByType('resource').length;
      const result = await spree[endpoint]![method]!(options);
      const sent = performance.getEntriesByType('resource').slice(before) as PerformanceResourceTiming[];
      const status = sent.find((entry) => entry.initiatorType === 'xmlhttprequest')?.responseStatus;
      if (result.isSuccess()) return { ok: true as const, status, data: result.success() };
      const error = result.fail();
      return { ok: false as const, status: error.serverResponse?.status ?? status, error: `${error.name}: ${error.message}` };
    },
    { endpoint, method, options },
  );
}
