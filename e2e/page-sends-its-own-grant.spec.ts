import { expect, lastBearer, openShop, pageFetch, test } from './support.js';

test("the worker keeps the pair from a token response to the page's own grant, form or JSON", async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { username, password } = storefront.user;

  const form = await pageFetch(page, '/store_oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password }).toString(),
  });
  expect(form.status).toBe(200);
  const formToken = JSON.parse(form.body).access_token as string;
  expect((await page.evaluate(() => window.storefrontAuth.getState())).signedIn).toBe(true);
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBe(`Bearer ${formToken}`);

  await page.evaluate(() => window.storefrontAuth.logout());
  // As the Spree SDK sends it: a JSON body.
  const json = await pageFetch(page, '/store_oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username, password }),
  });
  expect(json.status).toBe(200);
  const jsonToken = JSON.parse(json.body).access_token as string;
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBe(`Bearer ${jsonToken}`);

  // A refused grant changes nothing.
  const refused = await pageFetch(page, '/store_oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username, password: 'wrong' }),
  });
  expect(refused.status).toBe(400);
  await pageFetch(page, '/api/v2/storefront/account');
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBe(`Bearer ${jsonToken}`);
});
