/**
 * The demo shop built for Spree 5's Store API (demo/build-v3/, `npm run demo:v3`) against the
 * reference storefront's spree-v3 flavour: a guest cart, sign-in and sign-out, with the live panel
 * naming the credential headers the server received (`x-spree-token`, `Authorization`), never a value.
 */
import { existsSync } from 'node:fs';
import { expect, realCartToken, requestsTo, root, test } from './support.js';

const DEMO = `${root}demo/build-v3`;
const V3 = '/api/v3/store';

test.use({ storefrontOptions: { flavour: 'spree-v3', static: [{ prefix: '/', dir: DEMO }] } });

test.beforeAll(() => {
  if (!existsSync(`${DEMO}/sw.js`)) throw new Error('demo/build-v3/ is missing: run `npm run build` first.');
});

test('the v3 demo: a guest cart opens with x-spree-token, sign-in adds the bearer, and the live panel names both headers', async ({ page, storefront }) => {
  await page.goto(`${storefront.url}/`);
  await expect(page.locator('#products li')).toHaveCount(4);
  await expect(page.locator('#api-root')).toHaveText(V3);
  expect(requestsTo(storefront, 'GET', `${V3}/products`).at(-1)?.headers.apiKey, "the page's own key").toBe(storefront.v3?.publishableKey);

  // A guest adds a product: the page creates the cart with the item, the worker keeps its token.
  await page.getByRole('button', { name: 'Add to cart' }).first().click();
  await expect(page.locator('#cart')).toContainText('1 item(s)');
  const [creation] = requestsTo(storefront, 'POST', `${V3}/carts`);
  expect(creation?.headers).toMatchObject({ orderToken: undefined, authorization: undefined });
  const number = (await page.evaluate(() => window.localStorage.getItem('demo-v3-cart')))?.match(/"number":"(R\d+)"/)?.[1];
  const token = realCartToken(storefront, number);
  await page.getByRole('button', { name: 'Add to cart' }).nth(1).click();
  await expect(page.locator('#cart')).toContainText('2 item(s)');
  const added = storefront.requests.filter((request) => request.method === 'POST' && /\/carts\/cart_\w+\/items$/.test(request.path)).at(-1);
  expect(added?.headers).toMatchObject({ orderToken: token, authorization: undefined });
  await expect(page.locator('#requests')).toContainText('POST /carts/');
  await expect(page.locator('#requests')).toContainText('x-spree-token');

  // Sign in: the worker assigns the guest cart, account calls carry the bearer, cart calls both.
  await page.getByRole('navigation').getByRole('link', { name: 'Account' }).click();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('#profile-name')).toContainText('demo@example.com');
  await expect(page.locator('#state')).toContainText(`"number": "${number}"`);
  expect(requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.authorization).toMatch(/^Bearer ey/);
  await expect.poll(() => storefront.requests.filter((request) => request.path.endsWith('/associate')).map((request) => request.status)).toEqual([200]);
  await page.getByRole('navigation').getByRole('link', { name: 'Shop' }).click();
  await page.getByRole('button', { name: 'Add to cart' }).first().click();
  await expect(page.locator('#cart')).toContainText('3 item(s)');
  const signedIn = storefront.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/items')).at(-1);
  expect(signedIn?.headers.authorization).toMatch(/^Bearer ey/);
  expect(signedIn?.headers.orderToken).toBe(token);
  await expect(page.locator('#requests')).toContainText('Authorization, x-spree-token');
  await expect(page.locator('#requests')).toContainText('GET /customers/me');

  const html = await page.content();
  expect(html).not.toContain(token);
  expect(html).not.toContain((signedIn?.headers.authorization ?? 'Bearer none').slice('Bearer '.length));

  // Sign out: the worker revokes the refresh token and forgets the cart.
  await page.getByRole('navigation').getByRole('link', { name: 'Account' }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.locator('#who')).toHaveText('Guest');
  await expect(page.locator('#state')).toContainText('"cart": null');
  await expect.poll(() => requestsTo(storefront, 'POST', `${V3}/auth/logout`).map((request) => request.status)).toEqual([204]);
  expect(storefront.tokens.size, 'no live refresh token').toBe(0);
});
