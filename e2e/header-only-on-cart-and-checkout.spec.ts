import { expect, openShop, pageFetch, requestsTo, test } from './support.js';

test('the order token goes on cart and checkout calls under the base URL, and nowhere else', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());

  const port = new URL(storefront.url).port;
  const otherOrigin = `http://localhost:${port}`; // same server, another origin than the page's 127.0.0.1
  const calls: Array<[string, string, boolean]> = [
    ['GET', '/api/v2/storefront/cart', true],
    ['GET', '/api/v2/storefront/cart?include=line_items', true],
    ['GET', '/api/v2/storefront/checkout', true],
    ['PATCH', '/api/v2/storefront/checkout', true],
    ['GET', '/api/v2/storefront/account', false],
    ['GET', '/api/v2/storefront/products', false],
    ['GET', '/api/v2/storefront/cartography', false],
    ['GET', '/api/v2/storefront/checkouts', false],
    ['GET', `${otherOrigin}/api/v2/storefront/cart`, false],
  ];
  for (const [method, url, gets] of calls) {
    storefront.clearLog();
    await pageFetch(page, url, method === 'GET' ? {} : { method, headers: { 'Content-Type': 'application/json' }, body: '{"email":"a@b.example"}' });
    const seen = storefront.requests.filter((request) => request.method === method);
    expect(seen.length, `${method} ${url} reached the server once`).toBe(1);
    expect(seen[0]?.headers.orderToken !== undefined, `${method} ${url} ${gets ? 'gets' : 'does not get'} the order token`).toBe(gets);
    expect(seen[0]?.headers.authorization, `${method} ${url} has no bearer`).toBeUndefined();
  }

  // A request that carries its own order token keeps the page's value.
  await pageFetch(page, '/api/v2/storefront/cart', { headers: { 'X-Store-Order-Token': 'the-page-own-value' } });
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken).toBe('the-page-own-value');
});
