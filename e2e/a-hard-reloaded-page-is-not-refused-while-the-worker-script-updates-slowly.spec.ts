import { addDropIn, expect, test } from './support.js';

// docs/behaviour.md, "Configuration": a page loaded by a hard reload starts uncontrolled, and the
// bridge asks the active worker to claim it; "Errors": `no_service_worker` is for a page without
// service workers, or out of the worker's scope. A hard reload made while an update check of the worker script is still fetching
// it from a slow server: `register()` waits behind that check, and the bridge asks for the claim only
// once `register()` has answered.
test('a hard-reloaded page gets its bridge while an update check of the worker script is slow', async ({ page, storefront }) => {
  await page.goto(`${storefront.url}/site/blank.html`);
  await addDropIn(page, {});
  await page.evaluate(() => window.storefrontAuth.ready);

  storefront.override('GET', '/storefront-auth-sw.js', { passThrough: true, delayMs: 14_000 });
  await page.evaluate(() => void navigator.serviceWorker.getRegistration().then((registration) => registration?.update()).catch(() => {}));
  await page.waitForTimeout(200);
  const cdp = await page.context().newCDPSession(page);
  await Promise.all([page.waitForEvent('load'), cdp.send('Page.reload', { ignoreCache: true })]);
  expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull();
  await addDropIn(page, {});
  const outcome = await page.evaluate(async () => {
    const startedAt = performance.now();
    try {
      await window.storefrontAuth.ready;
      return { ok: true, ms: performance.now() - startedAt };
    } catch (caught) {
      return { ok: false, message: (caught as Error).message, ms: performance.now() - startedAt };
    }
  });
  expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true });
  expect(outcome.ms).toBeLessThan(3_000);
});
