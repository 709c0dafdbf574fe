import { expect, inEveryEngine, test } from './fixtures.js';
import { createCart, login, logout, pageFetch } from './shop.js';

inEveryEngine(() =>
  test('a cart call redirected to another origin reaches it without the order token or the bearer', async ({ shop, storefront }) => {
    const tab = await shop.open();
    const pageHost = new URL(storefront.url).host;
    const otherHost = `localhost:${new URL(storefront.url).port}`; // the same server, another origin
    const seenAt = (host: string) => storefront.requests.filter((request) => request.method === 'GET' && request.path === '/api/v2/storefront/cart' && request.headers.host === host);

    for (const status of [302, 307]) {
      await logout(tab);
      await createCart(tab);
      for (const who of ['guest', 'signed in']) {
        if (who === 'signed in') await login(tab, storefront.user);
        storefront.clearLog();
        // Two answers: the worker's credentialed try, and its credential-free retry that the browser follows.
        storefront.override('GET', '/api/v2/storefront/cart', { status, headers: { Location: `http://${otherHost}/api/v2/storefront/cart` }, body: '', times: 2 });

        const answer = await pageFetch(tab, '/api/v2/storefront/cart');

        expect(answer.status, `${status} ${who}: the page gets the redirect followed`).toBe(404);
        const away = seenAt(otherHost);
        expect(away.length, `${status} ${who}: the other origin was reached`).toBe(1);
        expect(away[0]?.headers.orderToken, `${status} ${who}: no order token leaves`).toBeUndefined();
        expect(away[0]?.headers.authorization, `${status} ${who}: no bearer leaves`).toBeUndefined();
        expect(seenAt(pageHost).length, `${status} ${who}: asked twice at the base`).toBe(2);
      }
    }
  }),
);
