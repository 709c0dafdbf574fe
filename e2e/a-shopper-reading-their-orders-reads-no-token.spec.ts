/**
 * Account responses are cart and order documents too. Spree's
 * `/account/orders` lists the shopper's orders with their `token` (the reference storefront's list
 * holds the current cart), the HTTP cache must keep no copy of them, and an account path that
 * redirects to the cart must not hand the page the cart's token.
 * On 947a503, account responses were never sealed: the order list showed the page the real tokens
 * of both carts, a page outside the worker's control read the same list back with `only-if-cached`,
 * and `/account/moved` → `/cart` showed the real cart token (each `leakedSecrets` check fails).
 */
import { leakedSecrets } from './leaks.js';
import { expect, issuedTokens, login, openShop, pageFetch, realCartToken, test } from './support.js';

const ORDERS = '/api/v2/storefront/account/orders';

test('a signed-in shopper listing their orders reads sealed:cart and sealed:order, never a token', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await login(page, storefront.user);
  // Two carts of the shopper: an earlier one, and the current one the worker holds.
  const earlier = await page.evaluate(() => window.storefrontAuth.createCart());
  const current = await page.evaluate(() => window.storefrontAuth.createCart());
  expect(earlier.cart?.number).not.toBe(current.cart?.number);

  const list = await pageFetch(page, ORDERS);
  expect(list.status).toBe(200);
  const orders = JSON.parse(list.body).data as Array<{ attributes: { number: string; token: string } }>;
  const tokenOf = (number: string | undefined) => orders.find((order) => order.attributes.number === number)?.attributes.token;
  expect(tokenOf(current.cart?.number)).toBe('sealed:cart');
  expect(tokenOf(earlier.cart?.number)).toBe('sealed:order');
  expect(leakedSecrets([realCartToken(storefront, earlier.cart?.number), ...issuedTokens(storefront)], [list.body])).toEqual([]);

  // sealed:order is never swapped back: sent as an order token, it reaches the server as it is.
  await pageFetch(page, '/api/v2/storefront/cart', { headers: { 'X-Store-Order-Token': 'sealed:order' } });
  expect(storefront.requests.at(-1)?.headers.orderToken).toBe('sealed:order');
});

test('a page the worker does not control finds no account answer with a token in the HTTP cache', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await login(page, storefront.user);
  await page.evaluate(() => window.storefrontAuth.createCart());
  for (const path of [ORDERS, '/api/v2/storefront/account']) expect((await pageFetch(page, path)).status).toBe(200);
  expect((await pageFetch(page, ORDERS, { cache: 'force-cache' })).status).toBe(200);

  // A hard reload leaves the page uncontrolled: its fetches go to the network and the HTTP cache.
  const cdp = await context.newCDPSession(page);
  await Promise.all([page.waitForNavigation(), cdp.send('Page.reload', { ignoreCache: true })]);
  expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull();
  const bodies: string[] = [];
  for (const cache of ['only-if-cached', 'force-cache'] as const) {
    bodies.push(
      await page.evaluate(async ({ url, cache }) => {
        try {
          return await (await fetch(url, { cache, mode: 'same-origin' })).text();
        } catch {
          return ''; // only-if-cached with nothing cached: a network error
        }
      }, { url: ORDERS, cache }),
    );
  }
  // force-cache went to the network without a bearer: 403, nothing cached to read.
  expect(leakedSecrets(issuedTokens(storefront), bodies)).toEqual([]);
});

test('an account path that redirects to the cart shows the page no token', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await login(page, storefront.user);
  await page.evaluate(() => window.storefrontAuth.createCart());
  // Two answers: a worker may try once with the bearer and follow once more without it.
  storefront.override('GET', '/api/v2/storefront/account/moved', { status: 302, headers: { Location: '/api/v2/storefront/cart' }, body: '', times: 2 });

  const answer = await pageFetch(page, '/api/v2/storefront/account/moved');
  expect(answer.status).toBe(200);
  expect(storefront.requests.at(-1)?.path).toBe('/api/v2/storefront/cart');
  expect(JSON.parse(answer.body).data.attributes.token).toBe('sealed:cart');
  expect(leakedSecrets(issuedTokens(storefront), [answer.body])).toEqual([]);
});
