import type { Page } from '@playwright/test';
import { expect, login, openShop, realCartToken, requestsTo, test, type LoggedRequest, type Storefront } from './support.js';

// A worker cannot read where a manual redirect points (Fetch: an opaque-redirect filtered
// response), so it cannot tell a safe Location from one on another origin. A write that met a
// redirect has already reached the server once, and sending it again would add a second order line;
// following it would carry its credential (fetch keeps headers across origins) or its body (307/308
// keep it) away. So the page's fetch fails instead (docs/behaviour.md, "What the worker does to
// requests"). The reference storefront answers as 127.0.0.1 and as localhost on one port: two
// origins, one log, told apart by Host.

const ADD_ITEM = '/api/v2/storefront/cart/add_item';

/** The page's origin's host and another origin's host, both served by `storefront`. */
function hosts(storefront: Storefront): { pageHost: string; otherHost: string } {
  const { host, port } = new URL(storefront.url);
  return { pageHost: host, otherHost: `localhost:${port}` };
}

/** Every request that reached the other origin, preflights included. */
function seenAt(storefront: Storefront, host: string): LoggedRequest[] {
  return storefront.requests.filter((request) => request.headers.host === host);
}

/** What the page's fetch ended in: `status N`, or the name of the error it rejected with. */
function fetchOutcome(page: Page, url: string, init: RequestInit = {}): Promise<string> {
  return page.evaluate(({ url, init }) => fetch(url, init).then((r) => `status ${r.status}`, (e: Error) => e.name), { url, init });
}

/** Adds variant 1 to the cart, as a shop's "add to cart" button does. */
function addItem(page: Page): Promise<string> {
  return fetchOutcome(page, ADD_ITEM, {
    method: 'POST',
    headers: { 'Content-Type': 'application/vnd.api+json' },
    body: JSON.stringify({ variant_id: '1', quantity: 1 }),
  });
}

/**
 * Adds an item while add_item answers 303 to `location`, once to another origin and once to the
 * page's own, and checks that the page's fetch failed, the write reached the server once with the
 * credential `carried` checks, and nothing was requested from the Location.
 */
async function expectAddItemSentOnce(page: Page, storefront: Storefront, carried: (request: LoggedRequest) => void): Promise<void> {
  const { pageHost, otherHost } = hosts(storefront);
  const locations = [`http://${otherHost}/api/v2/storefront/cart`, `http://${pageHost}/api/v2/storefront/cart`];
  for (const location of locations) {
    const cartBefore = await page.evaluate(() => window.storefrontAuth.getState());
    storefront.clearLog();
    // `times: 2`: a second sending would meet the redirect too, and still be counted below.
    storefront.override('POST', ADD_ITEM, { status: 303, headers: { Location: location }, body: '', times: 2 });

    expect(await addItem(page), `${location}: the page's fetch fails as a network error`).toBe('TypeError');

    const sent = requestsTo(storefront, 'POST', ADD_ITEM);
    expect(sent.length, `${location}: add_item reached the server exactly once`).toBe(1);
    expect(sent[0]?.headers.host).toBe(pageHost);
    expect(sent[0]?.status).toBe(303);
    carried(sent[0]!);
    expect(seenAt(storefront, otherHost), `${location}: nothing reached the other origin`).toEqual([]);
    // A 303 followed would be a GET of the Location: none happened, on either origin.
    expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart'), `${location}: the Location was never requested`).toEqual([]);
    expect(await page.evaluate(() => window.storefrontAuth.getState()), `${location}: the state is unchanged`).toEqual(cartBefore);
    storefront.clearOverrides();
  }
}

test("a guest's add to cart that is redirected fails in the page and reaches the server once", async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());

  await expectAddItemSentOnce(page, storefront, (request) => {
    expect(request.headers.orderToken, 'the one request carried the order token').toBe(realCartToken(storefront, cart?.number));
  });
});

test("a signed-in shopper's add to cart that is redirected fails in the page and reaches the server once", async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  await login(page, storefront.user);
  // The guest cart is assigned to the shopper after login resolves; let that finish first.
  await expect.poll(() => requestsTo(storefront, 'PATCH', '/api/v2/storefront/cart/associate').at(-1)?.status).toBe(200);

  await expectAddItemSentOnce(page, storefront, (request) => {
    expect(request.headers.authorization, 'the one request carried the bearer').toMatch(/^Bearer \S+$/);
  });
});

test("the page's own sign-in form that is redirected elsewhere fails, and the password never leaves", async ({ context, storefront }) => {
  const { pageHost, otherHost } = hosts(storefront);
  const page = await openShop(context, storefront);
  const { username, password } = storefront.user;
  const before = await page.evaluate(() => window.storefrontAuth.getState());
  storefront.clearLog();
  // A 307 keeps method and body: followed, it would post the password to the other origin.
  storefront.override('POST', '/store_oauth/token', { status: 307, headers: { Location: `http://${otherHost}/store_oauth/token` }, body: '', times: 2 });

  const outcome = await fetchOutcome(page, '/store_oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password }).toString(),
  });

  expect(outcome).toBe('TypeError');
  const away = seenAt(storefront, otherHost);
  expect(away.filter((request) => request.body?.includes(password) === true), 'no password reached the other origin').toEqual([]);
  expect(away, 'nothing at all reached the other origin').toEqual([]);
  const sent = requestsTo(storefront, 'POST', '/store_oauth/token');
  expect(sent.map((request) => [request.headers.host, request.status]), 'the grant was sent once, and met the redirect').toEqual([[pageHost, 307]]);
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(before);
});

test('reading the cart through a redirect still follows it, without the order token', async ({ context, storefront }) => {
  const { otherHost } = hosts(storefront);
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  storefront.clearLog();
  // A GET may be asked twice: the worker's credentialed try meets the redirect, and its retry
  // without the credential is followed by the browser (hence two answers).
  storefront.override('GET', '/api/v2/storefront/cart', { status: 302, headers: { Location: `http://${otherHost}/api/v2/storefront/products` }, body: '', times: 2 });

  expect(await fetchOutcome(page, '/api/v2/storefront/cart'), 'the page gets the final answer').toBe('status 200');
  const away = seenAt(storefront, otherHost).filter((request) => request.method === 'GET');
  expect(away.map((request) => request.path)).toEqual(['/api/v2/storefront/products']);
  expect(away[0]?.headers.orderToken, 'the order token did not follow').toBeUndefined();
});
