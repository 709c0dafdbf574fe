import type { Page } from '@playwright/test';
import { addDropIn, expect, test, type CaughtError, type DropInAttributes } from './support.js';

// docs/behaviour.md, "The page API": without service workers, `register`, `ready` and every
// method reject with `no_service_worker` within 10 s; nothing waits forever. openShop awaits
// `ready`, which is the very thing that must fail here, so these tests load the drop-in themselves.

/** The contract's bound, plus a second for the page and the test runner to report it. */
const WITHIN_MS = 11_000;

/** A rejection as plain values, with how long it took from the call. */
type TimedError = CaughtError & { ms: number };

/** Opens the test site and adds the drop-in's script tag, without waiting for `ready`. */
async function loadDropIn(page: Page, origin: string, attributes: DropInAttributes): Promise<void> {
  await page.goto(`${origin}/site/blank.html`);
  await addDropIn(page, attributes);
  // Timed from the drop-in's start: it begins registering as soon as it has run.
  await page.evaluate(() => Object.assign(window, { startedAt: performance.now() }));
}

/** Awaits `what` in the page (an expression yielding a promise) and returns its rejection, timed from `window.startedAt`. */
function rejection(page: Page, what: 'ready' | 'createCart'): Promise<TimedError | null> {
  return page.evaluate(async (what) => {
    const { startedAt } = window as unknown as { startedAt: number };
    try {
      await (what === 'ready' ? window.storefrontAuth.ready : window.storefrontAuth.createCart());
      return null;
    } catch (caught) {
      const error = caught as CaughtError;
      return { name: error.name, code: error.code, message: error.message, ms: performance.now() - startedAt };
    }
  }, what);
}

test.describe('with service workers blocked', () => {
  test.use({ serviceWorkers: 'block' });

  test('ready and createCart reject with no_service_worker at once, instead of hanging', async ({ page, storefront }) => {
    await loadDropIn(page, storefront.url, {});

    const ready = await rejection(page, 'ready');
    const createCart = await rejection(page, 'createCart');

    for (const error of [ready, createCart]) {
      expect(error).toMatchObject({ name: 'StorefrontAuthError', code: 'no_service_worker', message: expect.stringContaining('blocked') });
      expect(error!.ms).toBeLessThan(WITHIN_MS);
    }
    expect(storefront.stats().tokenRequests).toBe(0);
  });
});

test('a worker whose install fails makes ready reject with no_service_worker well before 10 s', async ({ page, storefront }) => {
  // A script outside the root may only control its own folder, hence the scope.
  await loadDropIn(page, storefront.url, { sw: '/site/failing-sw.js', scope: '/site/' });

  const ready = await rejection(page, 'ready');

  expect(ready).toMatchObject({ name: 'StorefrontAuthError', code: 'no_service_worker', message: expect.stringContaining('failed to install') });
  expect(ready!.message).toContain('/site/failing-sw.js');
  expect(ready!.ms, 'rejected when the worker became redundant, not at the deadline').toBeLessThan(5_000);
  expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull();
});

test('a worker script that throws makes ready reject with no_service_worker well before 10 s', async ({ page, storefront }) => {
  await loadDropIn(page, storefront.url, { sw: '/site/throwing-sw.js', scope: '/site/' });

  const ready = await rejection(page, 'ready');

  expect(ready).toMatchObject({ name: 'StorefrontAuthError', code: 'no_service_worker', message: expect.stringContaining('/site/throwing-sw.js') });
  expect(ready!.ms).toBeLessThan(5_000);
});

test('register({ registerWorker: false }) on a page where nothing registers a worker rejects with no_service_worker after 10 s', async ({ page, storefront }) => {
  // The drop-in is only here for its global `StorefrontAuth`; its own worker URL does not exist,
  // so its instance registers nothing and the page stays without any service worker.
  await loadDropIn(page, storefront.url, { sw: '/site/no-such-worker.js', scope: '/site/' });
  expect(await rejection(page, 'ready')).toMatchObject({ code: 'no_service_worker' });

  const error = await page.evaluate(async () => {
    const startedAt = performance.now();
    try {
      await window.StorefrontAuth.register({ registerWorker: false });
      return null;
    } catch (caught) {
      const error = caught as CaughtError;
      return { name: error.name, code: error.code, message: error.message, ms: performance.now() - startedAt };
    }
  });

  expect(error).toMatchObject({ name: 'StorefrontAuthError', code: 'no_service_worker', message: expect.stringContaining('registerWorker: false') });
  expect(await page.evaluate(() => navigator.serviceWorker.getRegistrations())).toEqual([]);
  // The wait is bounded by the deadline, not cut short: the app may still be registering its worker.
  expect(error!.ms).toBeGreaterThanOrEqual(9_900);
  expect(error!.ms).toBeLessThan(WITHIN_MS);
});
