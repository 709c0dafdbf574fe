import { expect, lastBearer, login, openShop, pageFetch, recordedEvents, test, waitForExpiry } from './support.js';

test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: 3 } });

test('a refused refresh after a 401 ends the session in every tab and the page gets the 401', async ({ context, storefront }) => {
  const first = await openShop(context, storefront);
  const second = await openShop(context, storefront);
  await login(first, storefront.user);
  await first.evaluate(() => window.storefrontAuth.createCart());

  storefront.revokeAllTokens();
  const answer = await pageFetch(first, '/api/v2/storefront/account');
  expect(answer.status).toBe(401);
  expect(JSON.parse(answer.body)).toEqual({ error: 'The access token was revoked' });
  expect(storefront.stats().invalidGrants).toBe(1);

  for (const tab of [first, second]) {
    await expect.poll(async () => (await recordedEvents(tab)).filter((event) => event.type === 'sessionexpired').length).toBe(1);
    const expired = (await recordedEvents(tab)).find((event) => event.type === 'sessionexpired');
    expect(expired?.detail).toMatchObject({ signedIn: false, accessTokenExpiresAt: null });
  }
  // The cart stays: only the pair is forgotten.
  expect((await second.evaluate(() => window.storefrontAuth.getState())).cart).not.toBeNull();
  expect((await pageFetch(second, '/api/v2/storefront/account')).status).toBe(403);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBeUndefined();
});

test('a refused refresh before sending lets the request go out as a guest', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  await login(page, storefront.user);
  storefront.revokeAllTokens();
  await waitForExpiry(page);

  const cart = await pageFetch(page, '/api/v2/storefront/cart');
  expect(cart.status).toBe(200);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/cart')).toBeUndefined();
  expect(storefront.requests.at(-1)?.headers.orderToken).toBeDefined();
  await expect.poll(async () => (await recordedEvents(page)).some((event) => event.type === 'sessionexpired')).toBe(true);
});
