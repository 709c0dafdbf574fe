import { expect, openShop, pageFetch, test, type Storefront } from './support.js';
// @ts-expect-error: the reference storefront is plain JavaScript without declarations.
import { startStorefront } from '../demo/storefront/server.mjs';

test('navigations and look-alike servers never see a credential', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  await page.evaluate((credentials) => window.storefrontAuth.login(credentials), storefront.user);
  // The cart's association follows the login (it does not hold it up); let it land first.
  await expect.poll(() => storefront.requests.filter((request) => request.path === '/api/v2/storefront/cart/associate' && request.status !== undefined)).toHaveLength(1);

  // A navigation to a cart URL is the browser's, not an API call: nothing is added.
  storefront.clearLog();
  const navigation = await page.goto(`${storefront.url}/api/v2/storefront/cart`);
  expect(navigation?.status()).toBe(404);
  const navigated = storefront.requests.filter((request) => request.method === 'GET' && request.path === '/api/v2/storefront/cart');
  expect(navigated).toHaveLength(1);
  expect(navigated[0]?.headers.orderToken).toBeUndefined();
  expect(navigated[0]?.headers.authorization).toBeUndefined();
  await page.goto(`${storefront.url}/site/blank.html`);

  // Another port of the same host, and a host name that only looks like the API's, are other origins.
  const other = (await startStorefront({ port: 0, host: '127.0.0.1' })) as Storefront;
  try {
    const otherPort = `${other.url}/api/v2/storefront/cart`;
    const lookAlike = `http://localhost.:${new URL(other.url).port}/api/v2/storefront/account`;
    for (const url of [otherPort, lookAlike]) await pageFetch(page, url);
    const seen = other.requests.filter((request) => request.method !== 'OPTIONS');
    expect(seen.map((request) => request.headers.host)).toEqual([new URL(other.url).host, `localhost.:${new URL(other.url).port}`]);
    for (const request of seen) {
      expect(request.headers.orderToken, `${request.path}`).toBeUndefined();
      expect(request.headers.authorization, `${request.path}`).toBeUndefined();
    }
  } finally {
    await other.close();
  }
});
