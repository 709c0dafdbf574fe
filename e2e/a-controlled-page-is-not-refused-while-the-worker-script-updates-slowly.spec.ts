import { addDropIn, expect, test } from './support.js';

// docs/behaviour.md, "The page API": `register` resolves with a bridge once the page is
// controlled by its worker; `no_service_worker` is for pages with no worker to be had. A page its
// own worker controls already must not be refused because `register()` waits: the browser runs a
// scope's registration jobs one at a time, so a `register` made while an update check (the one the
// browser starts after navigations, or the site's own `registration.update()`) is still fetching
// the worker script from a slow server waits for that fetch.
test('a page its worker controls gets its bridge while an update check of the worker script is slow', async ({ page, storefront }) => {
  await page.goto(`${storefront.url}/site/blank.html`);
  await addDropIn(page, {});
  await page.evaluate(() => window.storefrontAuth.ready);
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toContain('/storefront-auth-sw.js');

  // The server is slow to send the worker script (its bytes unchanged) for the next fetch of it.
  storefront.override('GET', '/storefront-auth-sw.js', { passThrough: true, delayMs: 14_000 });
  const outcome = await page.evaluate(async () => {
    void navigator.serviceWorker.getRegistration().then((registration) => registration?.update()).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    const startedAt = performance.now();
    try {
      const bridge = await window.StorefrontAuth.register({});
      const state = await bridge.getState();
      return { ok: true, state, ms: performance.now() - startedAt, controlled: navigator.serviceWorker.controller !== null };
    } catch (caught) {
      const error = caught as { code?: string; message?: string };
      return { ok: false, code: error.code, message: error.message, ms: performance.now() - startedAt, controlled: navigator.serviceWorker.controller !== null };
    }
  });
  expect(outcome.controlled).toBe(true);
  expect(outcome).toMatchObject({ ok: true });
  expect(outcome.ms).toBeLessThan(2_000);
});

test('after a navigation, the drop-in of a controlled page is ready while the browser\'s own update check is slow', async ({ page, storefront }) => {
  await page.goto(`${storefront.url}/site/blank.html`);
  await addDropIn(page, {});
  await page.evaluate(() => window.storefrontAuth.ready);

  storefront.override('GET', '/storefront-auth-sw.js', { passThrough: true, delayMs: 14_000 });
  // A later visit: the browser checks the worker script for an update after the navigation.
  await page.goto(`${storefront.url}/site/blank.html`);
  await page.waitForTimeout(2_500);
  await addDropIn(page, {});
  const outcome = await page.evaluate(async () => {
    const startedAt = performance.now();
    try {
      await window.storefrontAuth.ready;
      return { ok: true, ms: performance.now() - startedAt };
    } catch (caught) {
      return { ok: false, message: (caught as Error).message, ms: performance.now() - startedAt, controlled: navigator.serviceWorker.controller !== null };
    }
  });
  expect(outcome).toMatchObject({ ok: true });
});
