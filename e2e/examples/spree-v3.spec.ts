// examples/spree-v3 (docs/recipes.md, "Spree 5's Store API"): a Vite shop on the official Store API
// SDK, @spree/sdk, with the drop-in (data-preset="spree-v3", data-publishable-key) and the prebuilt
// worker at the web root, built from the packed package and driven against the storefront's
// spree-v3 flavour through the page's own buttons.
import type { Page } from '@playwright/test';
import { join } from 'node:path';
import { realV3CartToken, v3Controls, v3Requests } from '../spreeV3Sdk.js';
import { expect, test } from '../support.js';
import { build, seconds, workDir } from './workspace.js';

test.use({ storefrontOptions: { flavour: 'spree-v3', rateLimits: { login: 100, refresh: 100, logout: 100 }, static: [{ prefix: '/', dir: join(workDir('spree-v3'), 'dist') }] } });

/** The AuthState the page last showed. */
async function shownState(page: Page): Promise<{ signedIn?: boolean; cart?: { number: string } | null }> {
  const text = (await page.locator('#state').textContent()) ?? '';
  return text === '' ? {} : (JSON.parse(text) as { signedIn?: boolean; cart?: { number: string } | null });
}

test('a shop on the Store API SDK: guest cart, the SDK login, account with the sealed JWT, the SDK logout', async ({ page, storefront }) => {
  const start = performance.now();
  await build('spree-v3', storefront.url);
  const built = performance.now();
  const key = v3Controls(storefront).publishableKey;
  await page.goto(`${storefront.url}/`);
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), { message: 'the page is controlled' }).toBe(true);

  // A guest cart, created and written by the SDK: the item carries the real cart token.
  await page.locator('#add').click();
  await expect(page.locator('#output')).toHaveText(/^added to cart R/);
  const number = (await shownState(page)).cart?.number ?? '';
  expect(number).toMatch(/^R/);
  const cartToken = realV3CartToken(storefront, number);
  const [creation, ...more] = v3Requests(storefront, 'POST', '/carts');
  expect(more).toEqual([]);
  expect(creation?.headers.authorization).toBeUndefined();
  const added = storefront.requests.filter((request) => request.method === 'POST' && /^\/api\/v3\/store\/carts\/cart_\w+\/items$/.test(request.path));
  expect(added).toHaveLength(1);
  expect(added[0]?.headers).toMatchObject({ orderToken: cartToken, apiKey: key });
  expect(added[0]?.headers.authorization).toBeUndefined();
  expect(added[0]?.status).toBe(201);
  const cartPath = added[0]!.path.replace(/\/items$/, '');

  // After a reload the page holds no cart of its own; the next item goes to the cart the worker holds,
  // and no second cart replaces it.
  await page.reload();
  await page.locator('#add').click();
  await expect(page.locator('#output'), 'the item goes to the cart held before the reload').toHaveText(`added to cart ${number}`);
  expect(v3Requests(storefront, 'POST', '/carts'), 'no second cart is created').toHaveLength(1);
  expect((await shownState(page)).cart?.number).toBe(number);

  // A wrong password is told apart; the right one signs in and the guest cart is assigned.
  await page.locator('#sign-in [name=username]').fill(storefront.user.username);
  await page.locator('#sign-in [name=password]').fill(`${storefront.user.password}-wrong`);
  await page.locator('#sign-in button').click();
  await expect(page.locator('#output'), 'a wrong password is told apart').toHaveText('Wrong email or password');
  expect((await shownState(page)).signedIn).toBe(false);
  await page.locator('#sign-in [name=password]').fill(storefront.user.password);
  await page.locator('#sign-in button').click();
  await expect.poll(async () => (await shownState(page)).signedIn, { message: 'signed in' }).toBe(true);
  expect(v3Requests(storefront, 'POST', '/auth/login').map((login) => login.status)).toEqual([401, 200]);
  await expect.poll(() => storefront.requests.filter((request) => request.path === `${cartPath}/associate`).map((request) => request.status)).toEqual([200]);

  // The account with the sealed JWT: the server sees the real one.
  await page.locator('#account').click();
  await expect(page.locator('#output')).toHaveText(`account: ${storefront.user.username}`);
  const account = v3Requests(storefront, 'GET', '/customers/me').at(-1);
  expect(account?.headers.authorization).toMatch(/^Bearer eyJ/);
  expect(account?.status).toBe(200);

  // The SDK's logout with the placeholder: signed out, the real refresh token revoked.
  const [refreshToken] = [...v3Controls(storefront).refreshTokens.keys()];
  await page.locator('#logout').click();
  await expect.poll(async () => (await shownState(page)).signedIn, { message: 'signed out' }).toBe(false);
  expect((await shownState(page)).cart).toBeNull();
  await expect.poll(() => v3Requests(storefront, 'POST', '/auth/logout').map((logout) => logout.refreshToken)).toEqual([refreshToken]);
  expect(v3Controls(storefront).refreshTokens.size).toBe(0);
  console.log(`[examples] spree-v3: npm run build ${seconds(start)}, flow ${seconds(built)}`);
});
