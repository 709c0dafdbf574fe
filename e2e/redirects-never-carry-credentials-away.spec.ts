// @ts-expect-error: the reference storefront is plain JavaScript without declarations.
import { startStorefront } from '../demo/storefront/server.mjs';
import { leakedSecrets } from './leaks.js';
import { expect, login, openShop, pageFetch, realCartToken, test, type Storefront } from './support.js';

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

// The page sends back the placeholder it was given in the order-token header; the worker sends the
// base the real cart token. On 8f5f5e7 it wrote that token into the request's own headers, which
// the credential-free follow-up copied, and the other origin (a second storefront, whose log shows
// what reached it) received the real cart token four times out of four.
test('a sealed:cart order-token header redirected to another origin reaches it as the placeholder', async ({ context, storefront }) => {
  const other = (await startStorefront({ port: 0 })) as Storefront;
  try {
    const page = await openShop(context, storefront);
    const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
    const real = realCartToken(storefront, cart?.number);
    const outcomes: string[] = [];
    for (const who of ['guest', 'signed in'] as const) {
      if (who === 'signed in') await login(page, storefront.user);
      for (const [path, status] of [['/api/v2/storefront/cart', 302], ['/api/v2/storefront/checkout', 307]] as const) {
        storefront.clearLog();
        storefront.override('GET', path, { status, headers: { Location: `${other.url}${path}` }, body: '', times: 2 });
        outcomes.push(
          await page.evaluate(async (url) => {
            try {
              const response = await fetch(url, { headers: { 'X-Store-Order-Token': 'sealed:cart' } });
              return `${response.status} ${response.url} ${await response.text()}`;
            } catch (error) {
              return String(error);
            }
          }, path),
        );
        expect(storefront.requests.some((request) => request.path === path && request.headers.orderToken === real), `${who} ${path}: the swap was made`).toBe(true);
      }
    }
    const reached = other.requests.filter((request) => request.method === 'GET');
    const seenAway = reached.map((request) => `${request.method} ${request.path}${request.search} ${request.headers.authorization ?? ''} ${request.headers.orderToken ?? ''}`);
    expect(reached.length, seenAway.join('\n')).toBe(4);
    expect(reached.map((request) => request.headers.orderToken)).toEqual(['sealed:cart', 'sealed:cart', 'sealed:cart', 'sealed:cart']);
    expect(leakedSecrets([real], [...seenAway, ...outcomes]), [...seenAway, ...outcomes].join('\n')).toEqual([]);
  } finally {
    await other.close();
  }
});
