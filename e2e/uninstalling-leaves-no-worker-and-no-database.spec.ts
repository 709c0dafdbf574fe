/**
 * Taking storefront-auth off a site, as docs/deploying.md's "Uninstalling" says: its snippet, run as
 * the page has it, and the `Clear-Site-Data: "storage"` header, each after a guest cart and a sign-in.
 * Afterwards the page has no worker, the origin no `storefront-auth` database, and the API sees no
 * credential.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, login, openShop, pageFetch, root, test, type Storefront } from './support.js';

/** The first `js` block under docs/deploying.md's "## Uninstalling". */
function uninstallSnippet(): string {
  const page = readFileSync(`${root}docs/deploying.md`, 'utf8');
  const section = page.slice(page.indexOf('\n## Uninstalling\n'));
  const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined || !page.includes('\n## Uninstalling\n')) throw new Error('docs/deploying.md has no js block under "## Uninstalling"');
  return block;
}

test("the docs' uninstall snippet removes the worker and the database, and nothing carries a credential after", async ({ context, storefront }) => {
  const page = await signedInWithACart(context, storefront);
  const snippet = uninstallSnippet();
  // The snippet ends with a reload, which ends the evaluation's page: wait for that navigation.
  await Promise.all([
    page.waitForEvent('load'),
    page.evaluate((code) => (0, eval)(`(async () => {\n${code}\n})()`) as Promise<void>, snippet).catch((error: Error) => {
      if (!/context was destroyed|navigat/i.test(error.message)) throw error;
    }),
  ]);
  await expectUninstalled(page, storefront);
});

test('a Clear-Site-Data: "storage" answer removes the worker and the database', async ({ context, storefront }) => {
  const page = await signedInWithACart(context, storefront);
  storefront.override('GET', '/goodbye', { headers: { 'Clear-Site-Data': '"storage"', 'Content-Type': 'text/html' }, body: '<p>Goodbye</p>' });
  await page.goto(`${storefront.url}/goodbye`);
  await page.goto(`${storefront.url}/site/blank.html`);
  await expectUninstalled(page, storefront);
});

async function signedInWithACart(context: Parameters<typeof openShop>[0], storefront: Storefront): Promise<Page> {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  await login(page, storefront.user);
  expect(await databases(page)).toContain('storefront-auth');
  expect(await page.evaluate(() => navigator.serviceWorker.getRegistrations().then((all) => all.length))).toBe(1);
  return page;
}

async function expectUninstalled(page: Page, storefront: Storefront): Promise<void> {
  expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull();
  expect(await page.evaluate(() => navigator.serviceWorker.getRegistrations().then((all) => all.length))).toBe(0);
  expect(await databases(page)).not.toContain('storefront-auth');
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(403);
  expect(storefront.requests.at(-1)?.headers.authorization).toBeUndefined();
  expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(404);
  expect(storefront.requests.at(-1)?.headers.orderToken).toBeUndefined();
}

function databases(page: Page): Promise<Array<string | undefined>> {
  return page.evaluate(() => indexedDB.databases().then((all) => all.map((database) => database.name)));
}
