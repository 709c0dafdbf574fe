/**
 * The demo shop (demo/app, built into demo/build/ by `npm run build`) as a shopper uses it: a guest
 * cart, sign-in, then a visit without a network. Its worker precaches the shell and composes
 * storefront-auth, so the reload shows the shop and the stored state and says the API is unreachable.
 */
import { existsSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, requestsTo, root, test, type Storefront } from './support.js';

const DEMO = `${root}demo/build`;

// The README's screenshots come from this run (scripts/screenshots.mjs), at this size.
test.use({ storefrontOptions: { static: [{ prefix: '/', dir: DEMO }] }, viewport: { width: 1000, height: 700 } });

test.beforeAll(() => {
  if (!existsSync(`${DEMO}/sw.js`)) throw new Error('demo/build/ is missing: run `npm run build` first.');
});

test('the demo offline shows the shell and the stored state, and says the API cannot be reached', async ({ context, page, storefront }) => {
  await page.goto(`${storefront.url}/`);
  await expect(page.locator('#products li')).toHaveCount(4);

  // A guest adds a product: the bridge creates the cart, the worker puts its token on add_item.
  await page.getByRole('button', { name: 'Add to cart' }).first().click();
  await expect(page.locator('#cart')).toContainText('1 item(s)');
  expect(requestsTo(storefront, 'POST', '/api/v2/storefront/cart/add_item').at(-1)?.headers.orderToken).toBeTruthy();
  await expect(page.locator('#requests')).toContainText('X-Store-Order-Token');
  await screenshot(page, 'guest-with-cart');

  // Sign in on the account page: the guest cart follows, and account calls carry the bearer.
  await page.getByRole('navigation').getByRole('link', { name: 'Account' }).click();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('#profile-name')).toContainText('demo@example.com');
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/account').at(-1)?.headers.authorization).toMatch(/^Bearer /);
  await expect(page.locator('#requests')).toContainText('Authorization');
  const number = [...issued(storefront).carts.values()][0]?.number ?? 'no cart';
  await expect(page.locator('#state')).toContainText(`"number": "${number}"`);
  await expectNoTokenOnThePage(page, storefront);
  await screenshot(page, 'signed-in');

  // Offline: the reload is served by the worker alone, from the precache and IndexedDB.
  await context.setOffline(true);
  const seen = storefront.requests.length;
  await page.reload();
  await expect(page.getByRole('alert')).toContainText("The shop's API cannot be reached");
  await expect(page.locator('#state')).toContainText('"signedIn": true');
  await expect(page.locator('#state')).toContainText(`"number": "${number}"`);
  await expect(page.locator('#who')).toHaveText('Signed in');
  await page.getByRole('navigation').getByRole('link', { name: 'Shop' }).click();
  await expect(page.locator('#products li')).toHaveCount(4); // the copy saved by the worker's own route
  await expect(page.getByRole('alert')).toContainText('The products are the list saved on');
  await expect(page.locator('#cart')).toContainText(`Cart ${number}. Its contents cannot be loaded`);
  await screenshot(page, 'offline');
  expect(storefront.requests.length, 'nothing reached the server while offline').toBe(seen);

  // Back online, the same page works again: fresh data, and the warning is gone.
  await context.setOffline(false);
  await page.reload();
  await expect(page.locator('#cart')).toContainText(`Cart ${number}: 1 item(s)`);
  await expect(page.getByRole('alert')).toBeHidden();
  await page.getByRole('button', { name: 'Add to cart' }).nth(1).click();
  await expect(page.locator('#cart')).toContainText('2 item(s)');
  expect(requestsTo(storefront, 'POST', '/api/v2/storefront/cart/add_item').at(-1)?.headers.authorization).toMatch(/^Bearer /);
});

/** Saves the page as `<name>.png` when `npm run screenshots` asks for the README's screenshots. */
async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env['DEMO_SCREENSHOTS'];
  if (dir !== undefined && dir !== '') await page.screenshot({ path: `${dir}/${name}.png` });
}

/** The page's text and markup hold none of the tokens the storefront issued. */
async function expectNoTokenOnThePage(page: Page, storefront: Storefront): Promise<void> {
  const html = await page.content();
  const secrets = [...issued(storefront).carts.keys(), ...issued(storefront).tokens.keys()];
  expect(secrets.length).toBeGreaterThan(0);
  for (const secret of secrets) expect(html.includes(secret), 'a token on the page').toBe(false);
}

/** The handle's maps of carts (by order token) and token pairs (by token), which support.ts leaves untyped. */
function issued(storefront: Storefront): Storefront & { carts: ReadonlyMap<string, { number: string }>; tokens: ReadonlyMap<string, unknown> } {
  return storefront as Storefront & { carts: ReadonlyMap<string, { number: string }>; tokens: ReadonlyMap<string, unknown> };
}
