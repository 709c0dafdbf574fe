/**
 * The drop-in's script tag written as `type="module"` (as the README's next tag is): a module script
 * has no `document.currentScript`, so the drop-in finds its tag by name (src/page/dropin.ts).
 */
import { expect, test } from './support.js';

test('a drop-in tag of type=module: its data-base-url and data-preset are used', async ({ page, storefront }) => {
  const messages: string[] = [];
  page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
  await page.goto(`${storefront.url}/site/blank.html`);
  const base = `${storefront.url}/store`;
  await page.evaluate(
    (base) =>
      new Promise((resolve, reject) => {
        const script = Object.assign(document.createElement('script'), { type: 'module', src: '/storefront-auth.js', onload: resolve, onerror: reject });
        script.dataset['baseUrl'] = base;
        script.dataset['preset'] = 'spree';
        document.head.append(script);
      }),
    base,
  );
  const seen = await page.evaluate(async () => {
    await window.storefrontAuth.ready.catch(() => {});
    const registration = await navigator.serviceWorker.getRegistration();
    return { baseUrl: window.storefrontAuth.baseUrl, worker: registration?.active?.scriptURL ?? null };
  });
  // The module tag is found by its name: its settings are taken, and nothing is logged.
  expect(seen).toEqual({ baseUrl: base, worker: expect.stringContaining('preset=spree') });
  expect(messages.filter((line) => line.startsWith('error: storefront-auth'))).toEqual([]);
});
