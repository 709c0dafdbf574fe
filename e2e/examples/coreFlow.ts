/**
 * The core flow every example page offers, driven through its own buttons (#add, the #sign-in form,
 * #account, #logout; #state shows the AuthState of the last `change`), and checked at the storefront:
 * the page is controlled, the guest cart is created, the cart call reaches the storefront with the
 * order token, a wrong password is reported as such, sign-in puts the bearer on account calls,
 * logout ends the session.
 */
import type { Page } from '@playwright/test';
import { expect, lastIssuedAccessToken, realCartToken, requestsTo, type Storefront } from '../support.js';
import { build, seconds, type ExampleName } from './workspace.js';

const API = '/api/v2/storefront';

/** The AuthState the page last showed. */
async function shownState(page: Page): Promise<{ signedIn?: boolean; cart?: { number: string } | null }> {
  const text = (await page.locator('#state').textContent()) ?? '';
  return text === '' ? {} : (JSON.parse(text) as { signedIn?: boolean; cart?: { number: string } | null });
}

/** Opens `url` and drives the flow; the example's worker serves `storefront`. */
export async function driveCoreFlow(page: Page, url: string, storefront: Storefront): Promise<void> {
  await page.goto(url);
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), { message: 'the page is controlled' }).toBe(true);

  await page.locator('#add').click();
  await expect.poll(async () => (await shownState(page)).cart?.number, { message: 'a guest cart' }).toMatch(/^R\d+/);
  const number = (await shownState(page)).cart?.number;
  const cartToken = realCartToken(storefront, number);
  expect(requestsTo(storefront, 'POST', `${API}/cart`)).toHaveLength(1);
  await expect.poll(() => requestsTo(storefront, 'POST', `${API}/cart/add_item`).length, { message: 'the item is added' }).toBe(1);
  const added = requestsTo(storefront, 'POST', `${API}/cart/add_item`)[0];
  expect(added?.headers.orderToken, 'the cart call carries the order token').toBe(cartToken);
  expect(added?.headers.authorization).toBeUndefined();
  expect(added?.status).toBe(200);

  await page.locator('#sign-in [name=username]').fill(storefront.user.username);
  await page.locator('#sign-in [name=password]').fill(`${storefront.user.password}-wrong`);
  await page.locator('#sign-in button').click();
  await expect(page.locator('#output'), 'a wrong password is told apart').toHaveText('Wrong email or password');
  expect((await shownState(page)).signedIn).toBe(false);
  await page.locator('#sign-in [name=password]').fill(storefront.user.password);
  await page.locator('#sign-in button').click();
  await expect.poll(async () => (await shownState(page)).signedIn, { message: 'signed in' }).toBe(true);

  await page.locator('#account').click();
  await expect(page.locator('#output')).toContainText(storefront.user.username);
  const account = requestsTo(storefront, 'GET', `${API}/account`).at(-1);
  expect(account?.headers.authorization, 'the account call carries the bearer').toBe(`Bearer ${lastIssuedAccessToken(storefront)}`);
  expect(account?.status).toBe(200);

  await page.locator('#logout').click();
  await expect.poll(async () => (await shownState(page)).signedIn, { message: 'signed out' }).toBe(false);
  expect((await shownState(page)).cart).toBeNull();
}

/** Builds example `name` for `storefront` (which serves its dist/), drives the flow there and prints the times. */
export async function buildAndDrive(name: ExampleName, page: Page, storefront: Storefront): Promise<void> {
  const start = performance.now();
  await build(name, storefront.url);
  const built = performance.now();
  await driveCoreFlow(page, `${storefront.url}/`, storefront);
  console.log(`[examples] ${name}: npm run build ${seconds(start)}, flow ${seconds(built)}`);
}
