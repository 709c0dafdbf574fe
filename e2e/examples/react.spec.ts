// examples/react: a React app (Vite + TypeScript) on storefront-auth-sw/react, built from the packed
// package: StorefrontAuthProvider registers the prebuilt worker, the page's buttons drive the core
// flow through useStorefrontAuth's methods, and its `state` follows a change made in another tab.
import type { Page } from '@playwright/test';
import { join } from 'node:path';
import { expect, requestsTo, test } from '../support.js';
import { buildAndDrive } from './coreFlow.js';
import { workDir } from './workspace.js';

test.use({ storefrontOptions: { static: [{ prefix: '/', dir: join(workDir('react'), 'dist') }] } });

/** The AuthState the app renders from the hook. */
async function shownState(page: Page): Promise<{ signedIn?: boolean; cart?: { number: string } | null }> {
  const text = (await page.locator('#state').textContent()) ?? '';
  return text === '' ? {} : (JSON.parse(text) as { signedIn?: boolean; cart?: { number: string } | null });
}

test('a React app: the provider registers the worker, the hook drives guest cart, sign-in, account, logout, and follows another tab', async ({ context, page, storefront }) => {
  await buildAndDrive('react', page, storefront);
  expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).map((registration) => registration.active?.scriptURL))).toEqual([
    `${storefront.url}/storefront-auth-sw.js?base=${encodeURIComponent(storefront.url)}&preset=store`,
  ]);

  // Another tab signs in and creates a cart: this tab's hook re-renders with that state.
  const other = await context.newPage();
  await other.goto(`${storefront.url}/`);
  await other.locator('#sign-in [name=username]').fill(storefront.user.username);
  await other.locator('#sign-in [name=password]').fill(storefront.user.password);
  await other.locator('#sign-in button').click();
  await expect.poll(async () => (await shownState(page)).signedIn, { message: "the other tab's sign-in reaches this tab's hook" }).toBe(true);
  await other.locator('#add').click();
  await expect.poll(async () => (await shownState(page)).cart?.number, { message: "the other tab's cart reaches this tab's hook" }).toMatch(/^R\d+/);
  expect((await shownState(page)).cart?.number).toBe((await shownState(other)).cart?.number);

  // After a reload `state` is null until the worker answers (held back here by 2 s): an Add to cart
  // clicked meanwhile goes to the cart the worker holds once it has answered, and creates none.
  const number = (await shownState(page)).cart?.number;
  const created = requestsTo(storefront, 'POST', '/api/v2/storefront/cart').length;
  const added = requestsTo(storefront, 'POST', '/api/v2/storefront/cart/add_item').length;
  await page.addInitScript(() => {
    const post = ServiceWorker.prototype.postMessage as (...args: unknown[]) => void;
    ServiceWorker.prototype.postMessage = function (this: ServiceWorker, ...args: unknown[]) {
      setTimeout(() => post.apply(this, args), 2_000);
    } as ServiceWorker['postMessage'];
  });
  await page.reload();
  await page.locator('#add').click();
  await expect.poll(() => requestsTo(storefront, 'POST', '/api/v2/storefront/cart/add_item').length, { message: 'the item is added' }).toBe(added + 1);
  expect(requestsTo(storefront, 'POST', '/api/v2/storefront/cart'), 'no second cart is created').toHaveLength(created);
  expect((await shownState(page)).cart?.number).toBe(number);
});
