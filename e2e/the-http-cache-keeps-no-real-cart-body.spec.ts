/**
 * Sealed tokens and the browser's HTTP cache: the worker sends the requests whose answers it seals
 * with `cache: 'no-store'`, so the browser keeps no copy of the body as the server sent it. A page
 * the worker does not control (after a hard reload) that asks for the cart from the cache, with
 * `force-cache` or `only-if-cached`, finds no token. Before, it read the real order token there.
 */
import { expect, issuedTokens, login, openShop, pageFetch, test } from './support.js';

const CART = '/api/v2/storefront/cart';

test('a page the worker does not control finds no token in the HTTP cache, guest or signed in', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  // The cart calls a shop makes, as a guest and signed in, the last one asking for the cache itself.
  await page.evaluate(() => window.storefrontAuth.createCart());
  expect((await pageFetch(page, CART)).status).toBe(200);
  await login(page, storefront.user);
  expect((await pageFetch(page, CART)).status).toBe(200);
  const fromCache = await pageFetch(page, CART, { cache: 'force-cache' });
  expect(fromCache.status).toBe(200);
  expect(JSON.parse(fromCache.body).data.attributes.token).toBe('sealed:cart');

  // A hard reload leaves the page uncontrolled: its fetches go straight to the network and the cache.
  const cdp = await context.newCDPSession(page);
  await Promise.all([page.waitForNavigation(), cdp.send('Page.reload', { ignoreCache: true })]);
  expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull();
  const bodies: string[] = [];
  for (const cache of ['force-cache', 'only-if-cached'] as const) {
    // A network error (nothing in the cache for only-if-cached) reads as an empty body.
    const answer = await page.evaluate(async ({ url, cache }) => {
      try {
        return await (await fetch(url, { cache, mode: 'same-origin' })).text();
      } catch {
        return '';
      }
    }, { url: CART, cache });
    bodies.push(answer);
  }
  const tokens = issuedTokens(storefront);
  expect(tokens.length).toBeGreaterThanOrEqual(3);
  expect(tokens.filter((token) => bodies.some((body) => body.includes(token)))).toEqual([]);
});
