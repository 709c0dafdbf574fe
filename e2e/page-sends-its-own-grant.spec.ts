import { expect, lastBearer, lastIssuedAccessToken, openShop, pageFetch, test } from './support.js';

test("the worker keeps the pair from a token response to the page's own grant, form or JSON", async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { username, password } = storefront.user;

  const form = await pageFetch(page, '/store_oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password }).toString(),
  });
  expect(form.status).toBe(200);
  // Sealed tokens: the page reads placeholders, and the worker keeps the pair the server issued.
  expect(JSON.parse(form.body)).toMatchObject({ access_token: 'sealed:access', refresh_token: 'sealed:refresh', token_type: 'Bearer' });
  const formToken = lastIssuedAccessToken(storefront);
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
  expect(JSON.parse(json.body)).toMatchObject({ access_token: 'sealed:access', refresh_token: 'sealed:refresh' });
  const jsonToken = lastIssuedAccessToken(storefront);
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

test('with sealed tokens off, the page reads the real tokens of its own grant and of its cart', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { sealTokens: 'false' });
  const { username, password } = storefront.user;
  const cart = JSON.parse((await pageFetch(page, '/api/v2/storefront/cart?fields[cart]=number,token', { method: 'POST' })).body).data.attributes as { token: string };
  expect(storefront.carts.has(cart.token), 'the cart document carries the real order token').toBe(true);

  const grant = await pageFetch(page, '/store_oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username, password }),
  });
  const { access_token: access, refresh_token: refresh } = JSON.parse(grant.body) as { access_token: string; refresh_token: string };
  expect(access).toBe(lastIssuedAccessToken(storefront));
  expect(storefront.tokens.get(refresh)?.accessToken).toBe(access);
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBe(`Bearer ${access}`);
});

// Rails squeezes `//`, drops a trailing `/` and takes a format extension off before routing, so these
// reach Doorkeeper's token endpoint as `/store_oauth/token` does. While the worker compared exact
// paths, the page read the real pair of each; `//` and `.json`, under no prefix as written, also need
// their static routes, without which Chromium sends them straight to the network.
test('a grant to the token path with a trailing / or a // run or a format is sealed and kept', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { username, password } = storefront.user;
  for (const path of ['/store_oauth/token/', '/store_oauth//token', '/store_oauth/token.json']) {
    const pair = { access_token: `access-${path.length}-0123456789abcdef`, refresh_token: `refresh-${path.length}-0123456789abcdef`, token_type: 'Bearer', expires_in: 7200, created_at: 1 };
    storefront.override('POST', path, { status: 200, headers: { 'Content-Type': 'application/json' }, body: pair });
    const answer = await pageFetch(page, path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'password', username, password }).toString() });
    expect(answer.status, path).toBe(200);
    expect(JSON.parse(answer.body), path).toMatchObject({ access_token: 'sealed:access', refresh_token: 'sealed:refresh' });
    expect(storefront.requests.some((request) => request.method === 'POST' && request.path === path), `${path} went out as the page wrote it`).toBe(true);
    expect((await page.evaluate(() => window.storefrontAuth.getState())).signedIn, path).toBe(true);
    await page.evaluate(() => window.storefrontAuth.logout());
  }
});
