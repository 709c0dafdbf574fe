// docs/behaviour.md, "The page API": a page its own worker controls already gets its bridge at
// once, even while an update check of the worker script (the site's own `registration.update()`, or
// the browser's after a navigation) is still fetching it from a slow server; `register()` waits
// behind that check in every engine's job queue (e2e/a-controlled-page-is-not-refused-while-the-
// worker-script-updates-slowly.spec.ts in Chromium).
import { sleep } from './driver.js';
import { expect, inEveryEngine, test } from './fixtures.js';

inEveryEngine(() => {
  test('a controlled page gets its bridge while an update check of the worker script is slow', async ({ shop, storefront }) => {
    const tab = await shop.open();
    expect(await tab.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null)).toContain('/storefront-auth-sw.js');

    storefront.override('GET', '/storefront-auth-sw.js', { passThrough: true, delayMs: 14_000 });
    const outcome = await tab.evaluate(async () => {
      void navigator.serviceWorker.getRegistration().then((registration) => registration?.update()).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 200));
      const startedAt = performance.now();
      try {
        const bridge = await window.StorefrontAuth.register({});
        await bridge.getState();
        return { ok: true, ms: performance.now() - startedAt, controlled: navigator.serviceWorker.controller !== null };
      } catch (caught) {
        const error = caught as { code?: string; message?: string };
        return { ok: false, code: error.code, message: error.message, ms: performance.now() - startedAt, controlled: navigator.serviceWorker.controller !== null };
      }
    });
    expect(outcome).toMatchObject({ ok: true, controlled: true });
    expect(outcome.ms).toBeLessThan(2_000);
  });

  test("after a navigation, the drop-in of a controlled page is ready while the browser's own update check is slow", async ({ shop, storefront }) => {
    const tab = await shop.open();
    storefront.override('GET', '/storefront-auth-sw.js', { passThrough: true, delayMs: 14_000 });
    await tab.goto(`${storefront.url}/site/blank.html`);
    await sleep(2_500);
    const outcome = await tab.evaluate(async () => {
      const startedAt = performance.now();
      const script = document.createElement('script');
      script.src = '/storefront-auth.js';
      const loaded = new Promise((resolve) => (script.onload = resolve));
      document.head.append(script);
      await loaded;
      try {
        await window.storefrontAuth.ready;
        return { ok: true, ms: performance.now() - startedAt, controlled: navigator.serviceWorker.controller !== null };
      } catch (caught) {
        return { ok: false, message: (caught as Error).message, ms: performance.now() - startedAt, controlled: navigator.serviceWorker.controller !== null };
      }
    });
    expect(outcome).toMatchObject({ ok: true, controlled: true });
    expect(outcome.ms).toBeLessThan(2_000);
  });
});
