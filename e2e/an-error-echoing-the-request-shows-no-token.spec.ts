/**
 * Error bodies that echo the request. The worker knows the values it added to
 * the request, so it scrubs them from whatever comes back, error or not, and drops a response
 * header that holds one.
 * On 947a503, a 404 on checkout echoing the order token and an account answer echoing the
 * Authorization header reached the page as sent (the `leakedSecrets` checks list the cart token and
 * the access token).
 */
import { leakedSecrets } from './leaks.js';
import { expect, issuedTokens, lastIssuedAccessToken, login, openShop, realCartToken, test } from './support.js';

const JSON_API = { 'Content-Type': 'application/vnd.api+json' };

/** fetch in the page: the status, the body and every response header it can read. */
function fetchAll(page: import('@playwright/test').Page, url: string) {
  return page.evaluate(async (url) => {
    const response = await fetch(url);
    return { status: response.status, body: await response.text(), headers: [...response.headers].map(([name, value]) => `${name}: ${value}`) };
  }, url);
}

test('a guest whose checkout 404 echoes the order token reads no token', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  const real = realCartToken(storefront, cart?.number);
  // The server echoes the X-Store-Order-Token it received, in the body and in a debug header.
  storefront.override('GET', '/api/v2/storefront/checkout', {
    status: 404,
    headers: { ...JSON_API, 'X-Request-Order-Token': real, 'Access-Control-Expose-Headers': 'X-Request-Order-Token' },
    body: { error: 'The resource you were looking for could not be found.', request: { headers: { 'X-Store-Order-Token': real } } },
  });
  const answer = await fetchAll(page, '/api/v2/storefront/checkout');
  expect(answer.status).toBe(404);
  expect(storefront.requests.at(-1)?.headers.orderToken, 'the worker added the real token').toBe(real);
  expect(JSON.parse(answer.body).error).toBe('The resource you were looking for could not be found.');
  expect(leakedSecrets([real], [answer.body, ...answer.headers])).toEqual([]);
});

test('a signed-in shopper whose account answer echoes Authorization reads no bearer', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await login(page, storefront.user);
  const access = lastIssuedAccessToken(storefront);
  storefront.override('GET', '/api/v2/storefront/account', {
    // A 200 (a 401 would cause a refresh and a replay with another bearer): an answer that echoes the request.
    status: 200,
    headers: JSON_API,
    body: { data: { id: '1', type: 'user', attributes: { email: storefront.user.username } }, debug: { authorization: `Bearer ${access}`, note: `token ${access} not accepted` } },
  });
  const answer = await fetchAll(page, '/api/v2/storefront/account');
  expect(answer.status).toBe(200);
  expect(storefront.requests.filter((request) => request.path === '/api/v2/storefront/account').every((request) => request.headers.authorization === `Bearer ${access}`)).toBe(true);
  expect(leakedSecrets([access, ...issuedTokens(storefront)], [answer.body, ...answer.headers])).toEqual([]);
});
