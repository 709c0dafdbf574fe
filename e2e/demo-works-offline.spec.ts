/**
 * The demo shop (demo/app, built into demo/build/ by `npm run build`) as a shopper uses it: a guest
 * cart, sign-in, then a visit without a network. Its worker precaches the shell and composes
 * storefront-auth, so the reload shows the shop, the stored state and the orders as last loaded,
 * says in plain words that the shopper is offline, and leaves the console quiet while it stays so.
 * "Add to cart" offline is kept by the worker (offlineWrites): the page says the item will be added
 * once back online and how many changes wait; back online, the cart shows it, and the live panel
 * lists the replay with the credential header it got.
 */
import { existsSync } from 'node:fs';
import type { ConsoleMessage, Page } from '@playwright/test';
import { BACK_ONLINE } from './offlineWrites.js';
import { expect, requestsTo, root, test, type Storefront } from './support.js';

const DEMO = `${root}demo/build`;

// The README's screenshots come from this run (scripts/screenshots.mjs), at this size.
test.use({ storefrontOptions: { static: [{ prefix: '/', dir: DEMO }] }, viewport: { width: 1000, height: 700 } });

test.beforeAll(() => {
  if (!existsSync(`${DEMO}/sw.js`)) throw new Error('demo/build/ is missing: run `npm run build` first.');
});

/** How long the page is left alone offline while its console lines are counted. */
const QUIET_MS = 5000;

test('the demo offline shows the shell, the stored state and the last orders, and says the shopper is offline', async ({ context, page, storefront }) => {
  const logged = consoleOf(page);
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
  await expect(page.locator('#orders')).toContainText(`${number} · cart · 1 item(s)`);
  await expectNoTokenOnThePage(page, storefront);
  await screenshot(page, 'signed-in');

  // Offline: the reload is served by the worker alone, from the precache and IndexedDB.
  await context.setOffline(true);
  const seen = storefront.requests.length;
  await page.reload();
  await expect(page.getByRole('alert')).toContainText("You're offline.");
  await expect(page.locator('#state')).toContainText('"signedIn": true');
  await expect(page.locator('#state')).toContainText(`"number": "${number}"`);
  await expect(page.locator('#who')).toHaveText('Signed in');
  // The orders as this tab last loaded them, said to be so, rather than a spinner.
  await expect(page.locator('#orders')).toContainText(`${number} · cart · 1 item(s)`);
  await expect(page.locator('#orders')).toContainText('As loaded on');
  await expect(page.locator('#requests')).toContainText("You're offline");
  await page.getByRole('navigation').getByRole('link', { name: 'Shop' }).click();
  await expect(page.locator('#products li')).toHaveCount(4); // the copy saved by the worker's own route
  await expect(page.getByRole('alert')).toContainText('The products are the list saved on');
  await expect(page.locator('#cart')).toContainText(`Cart ${number}. Its contents cannot be loaded now. You're offline.`);

  // Adding offline: the worker keeps the change, and the page says so in the shopper's words.
  await page.getByRole('button', { name: 'Add to cart' }).nth(2).click();
  await expect(page.locator('#message')).toHaveText("Spree T-Shirt will be added to your cart when you're back online.");
  await expect(page.locator('#cart')).toContainText("1 change waits to be sent when you're back online.");
  await expect(page.locator('#state')).toContainText('"pendingWrites": 1');
  await screenshot(page, 'offline');
  await expectAQuietConsoleWhileOffline(page, logged);
  // Chromium checks for a new worker script after each navigation (a soft update, Service Workers
  // "Handle Fetch"), from the browser process, which context.setOffline does not take offline.
  const reached = storefront.requests.slice(seen).filter((request) => request.path !== '/sw.js');
  expect(reached.map((request) => `${request.method} ${request.path}`), 'nothing reached the API while offline').toEqual([]);

  // Back online: the worker sends the change with the bearer, the cart shows it, and the live panel
  // (which asks at once) lists it with the header it got; the warning is gone.
  await context.setOffline(false);
  await expect(page.locator('#cart')).toContainText(`Cart ${number}: 2 item(s)`, BACK_ONLINE);
  await expect(page.locator('#cart')).not.toContainText('waits to be sent');
  await expect(page.locator('#state')).toContainText('"pendingWrites": 0');
  const replayed = requestsTo(storefront, 'POST', '/api/v2/storefront/cart/add_item');
  expect(replayed.map((request) => request.status), 'sent once').toEqual([200, 200]);
  expect(replayed.at(-1)?.headers.authorization).toMatch(/^Bearer /);
  expect(JSON.parse(replayed.at(-1)?.body ?? '{}')).toMatchObject({ variant_id: '3' });
  // The panel lists the newest first: the replay is the newest add_item.
  await expect(page.locator('#requests tr', { hasText: 'POST /cart/add_item' }).first()).toContainText('Authorization');
  await page.reload();
  await expect(page.locator('#cart')).toContainText(`Cart ${number}: 2 item(s)`);
  await expect(page.getByRole('alert')).toBeHidden();
  await page.getByRole('button', { name: 'Add to cart' }).nth(1).click();
  await expect(page.locator('#cart')).toContainText('3 item(s)');
  expect(requestsTo(storefront, 'POST', '/api/v2/storefront/cart/add_item').at(-1)?.headers.authorization).toMatch(/^Bearer /);
});

test('a guest adding to the cart offline is told they are offline, not shown the error code', async ({ context, page, storefront }) => {
  const logged = consoleOf(page);
  await page.goto(`${storefront.url}/`);
  await expect(page.locator('#products li')).toHaveCount(4);
  await expect(page.locator('#state')).toContainText('"cart": null');
  await page.evaluate(() => navigator.serviceWorker.ready);

  // No cart yet: the bridge's cart creation is what fails, with a network_error naming its URL.
  await context.setOffline(true);
  await page.getByRole('button', { name: 'Add to cart' }).first().click();
  await expect(page.locator('#message')).toHaveText("You're offline. Your cart and sign-in are kept on this device; try again when you're back online.");
  await expect(page.getByRole('alert')).toContainText("You're offline.");
  await expect.poll(() => logged.lines.some((line) => line.text().includes('network_error')), { message: 'the code is in the console' }).toBe(true);
  await expectAQuietConsoleWhileOffline(page, logged);
  expect(requestsTo(storefront, 'POST', '/api/v2/storefront/cart')).toHaveLength(0);
});

/** The page's console lines, as they come (the worker's console is not among them). */
function consoleOf(page: Page): { lines: ConsoleMessage[] } {
  const lines: ConsoleMessage[] = [];
  page.on('console', (line) => lines.push(line));
  return { lines };
}

/** Leaves the offline page alone for QUIET_MS and expects not one console line in that time. */
async function expectAQuietConsoleWhileOffline(page: Page, logged: { lines: ConsoleMessage[] }): Promise<void> {
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500))); // the action's own lines land first
  const before = logged.lines.length;
  await page.waitForTimeout(QUIET_MS);
  const during = logged.lines.slice(before).map((line) => `${line.type()}: ${line.text()}`);
  expect(during, `console lines in ${QUIET_MS} ms offline`).toEqual([]);
}

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
