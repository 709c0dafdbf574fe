/**
 * A page's `guest_order_token=sealed:cart` is swapped for the real token on the
 * way out; a GET that meets a redirect to another origin must not take that URL along. Here the other
 * origin is a second storefront on another port, whose log shows what reached it.
 * On 947a503, the worker's request with the swapped URL followed the redirect, whose Location carried
 * the query the server received, and the other origin logged the real cart token (the
 * `leakedSecrets` check over the other origin's log).
 */
// @ts-expect-error: the reference storefront is plain JavaScript without declarations.
import { startStorefront } from '../demo/storefront/server.mjs';
import { leakedSecrets } from './leaks.js';
import { expect, login, openShop, realCartToken, test, type Storefront } from './support.js';

test('a shopper whose cart link is redirected to another origin sends that origin no token', async ({ context, storefront }) => {
  const other = (await startStorefront({ port: 0 })) as Storefront;
  try {
    const page = await openShop(context, storefront);
    const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
    const real = realCartToken(storefront, cart?.number);
    const outcomes: string[] = [];
    for (const who of ['guest', 'signed in'] as const) {
      if (who === 'signed in') await login(page, storefront.user);
      // The server redirects to the other origin with the query it received (keepQuery), as a moved shop would.
      // Paths that get a credential, so the placeholder is swapped: a guest's cart and checkout, a signed-in shopper's cart and account.
      const paths = who === 'guest' ? (['/api/v2/storefront/cart', '/api/v2/storefront/checkout'] as const) : (['/api/v2/storefront/cart', '/api/v2/storefront/account'] as const);
      for (const [path, status] of [[paths[0], 302], [paths[1], 307]] as const) {
        storefront.clearLog();
        storefront.override('GET', path, { status, headers: { Location: `${other.url}${path}` }, keepQuery: true, body: '', times: 2 });
        outcomes.push(
          await page.evaluate(async (url) => {
            try {
              const response = await fetch(url);
              return `${response.status} ${response.url}`;
            } catch (error) {
              return String(error);
            }
          }, `${path}?guest_order_token=sealed:cart`),
        );
        expect(storefront.requests.some((request) => request.path === path && request.search === `?guest_order_token=${real}`), `${who} ${path}: the swap was made`).toBe(true);
      }
    }
    const seenAway = other.requests.map((request) => `${request.method} ${request.path}${request.search} ${request.headers.authorization ?? ''} ${request.headers.orderToken ?? ''}`);
    expect(leakedSecrets([real], [...seenAway, ...outcomes]), [...seenAway, ...outcomes].join("\n")).toEqual([]);
  } finally {
    await other.close();
  }
});
