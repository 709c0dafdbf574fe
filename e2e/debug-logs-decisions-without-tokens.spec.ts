import { realCartToken, expect, login, openShop, pageFetch, test } from './support.js';

test('with data-debug the worker logs each decision, and never a token value', async ({ context, storefront }) => {
  const logs: string[] = [];
  context.on('console', (message) => logs.push(message.text()));
  const page = await openShop(context, storefront, { debug: '' });

  await page.evaluate(() => window.storefrontAuth.createCart());
  const token = realCartToken(storefront, JSON.parse((await pageFetch(page, '/api/v2/storefront/cart')).body).data.attributes.number as string);
  await login(page, storefront.user);
  await pageFetch(page, '/api/v2/storefront/account');
  const bearer = storefront.requests.at(-1)?.headers.authorization?.slice('Bearer '.length) ?? '';

  await expect.poll(() => logs.filter((line) => line.startsWith('[storefront-auth]')).length).toBeGreaterThanOrEqual(4);
  const ours = logs.filter((line) => line.startsWith('[storefront-auth]'));
  expect(ours.some((line) => line.includes('GET /api/v2/storefront/cart: orderToken'))).toBe(true);
  expect(ours.some((line) => line.includes('GET /api/v2/storefront/account: bearer'))).toBe(true);
  expect(ours.some((line) => line.includes('login'))).toBe(true);
  for (const secret of [token, bearer, storefront.user.password]) {
    expect(secret.length).toBeGreaterThan(5);
    expect(logs.join('\n')).not.toContain(secret);
  }
  // The log comes from the debug build, which the production worker runs for debug=1.
  expect(storefront.requests.some((request) => request.path === '/storefront-auth-sw.debug.js')).toBe(true);
});

test('without data-debug the production worker logs nothing and never loads the debug build', async ({ context, storefront }) => {
  const logs: string[] = [];
  context.on('console', (message) => logs.push(message.text()));
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  await login(page, storefront.user);
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  expect(logs.filter((line) => line.startsWith('[storefront-auth]'))).toEqual([]);
  expect(storefront.requests.some((request) => request.path === '/storefront-auth-sw.debug.js')).toBe(false);
});
