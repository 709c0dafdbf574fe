import { expect, login, openShop, pageFetch, realCartToken, test } from './support.js';

test('a cart call redirected to another origin reaches it without the order token or the bearer', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  const pageHost = new URL(storefront.url).host;
  const otherHost = `localhost:${new URL(storefront.url).port}`; // same server, another origin
  const seenAt = (host: string) => storefront.requests.filter((request) => request.path === '/api/v2/storefront/cart' && request.method === 'GET' && request.headers.host === host);

  for (const status of [302, 307]) {
    for (const who of ['guest', 'signed in']) {
      if (who === 'signed in') await login(page, storefront.user);
      storefront.clearLog();
      // Two answers: the worker's credentialed try, and its credential-free retry that the browser follows.
      storefront.override('GET', '/api/v2/storefront/cart', { status, headers: { Location: `http://${otherHost}/api/v2/storefront/cart` }, body: '', times: 2 });

      const answer = await pageFetch(page, '/api/v2/storefront/cart');

      expect(answer.status, `${status} ${who}: the page gets the redirect followed`).toBe(404);
      const away = seenAt(otherHost);
      expect(away.length, `${status} ${who}: the other origin was reached`).toBe(1);
      expect(away[0]?.headers.orderToken, `${status} ${who}: no order token leaves`).toBeUndefined();
      expect(away[0]?.headers.authorization, `${status} ${who}: no bearer leaves`).toBeUndefined();
      expect(seenAt(pageHost).length).toBe(2);
    }
    await page.evaluate(() => window.storefrontAuth.logout().then(() => window.storefrontAuth.createCart()));
  }
});

test('a redirect that stays under the base URL gets the credential again', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  storefront.override('GET', '/api/v2/storefront/cart/moved', { status: 302, headers: { Location: '/api/v2/storefront/cart' }, body: '', times: 2 });

  const answer = await pageFetch(page, '/api/v2/storefront/cart/moved');
  expect(answer.status).toBe(200);
  expect(storefront.requests.at(-1)?.path).toBe('/api/v2/storefront/cart');
  expect(storefront.requests.at(-1)?.headers.orderToken).toBe(realCartToken(storefront, cart?.number));
});
