/**
 * A hard reload (Shift+Reload; CDP's `Page.reload` with `ignoreCache`) bypasses every service worker,
 * so the page starts uncontrolled and its calls would go out without a credential. The bridge asks
 * the active worker to claim it: the demo's worker (an app's own, built with
 * `installStorefrontAuth({ claimPages: true })`) does, and the shop works at once. Before, the demo
 * waited 10 s and then told the shopper that service workers were off.
 */
import { existsSync } from 'node:fs';
import { expect, requestsTo, root, test } from './support.js';

const DEMO = `${root}demo/build`;

test.use({ storefrontOptions: { static: [{ prefix: '/', dir: DEMO }] } });

test.beforeAll(() => {
  if (!existsSync(`${DEMO}/sw.js`)) throw new Error('demo/build/ is missing: run `npm run build` first.');
});

test("after a hard reload the demo's worker claims the page back, and a guest's cart works at once", async ({ page, storefront }) => {
  await page.goto(`${storefront.url}/`);
  await expect(page.locator('#products li')).toHaveCount(4);
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);

  const cdp = await page.context().newCDPSession(page);
  await Promise.all([page.waitForEvent('load'), cdp.send('Page.reload', { ignoreCache: true })]);
  await expect(page.locator('#products li')).toHaveCount(4);
  const startedAt = Date.now();
  await page.getByRole('button', { name: 'Add to cart' }).first().click();
  await expect(page.locator('#cart')).toContainText('1 item(s)', { timeout: 5_000 });
  // Well inside the bridge's 10 s: the page was claimed, not waited out.
  expect(Date.now() - startedAt).toBeLessThan(5_000);
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  expect(requestsTo(storefront, 'POST', '/api/v2/storefront/cart/add_item').at(-1)?.headers.orderToken).toBeTruthy();
  await expect(page.locator('#message')).not.toContainText("can't run");
});
