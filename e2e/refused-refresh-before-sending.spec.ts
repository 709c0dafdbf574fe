import { expect, lastBearer, login, openShop, pageFetch, realCartToken, recordedEvents, test, waitForExpiry } from './support.js';

test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: 2 } });

test('a refused refresh before sending lets the request go out as a guest', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { cart: held } = await page.evaluate(() => window.storefrontAuth.createCart());
  await login(page, storefront.user);
  storefront.revokeAllTokens();
  await waitForExpiry(page);

  const cart = await pageFetch(page, '/api/v2/storefront/cart');
  expect(cart.status).toBe(200);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/cart')).toBeUndefined();
  expect(storefront.requests.at(-1)?.headers.orderToken, 'the guest cart’s own token').toBe(realCartToken(storefront, held?.number));
  await expect.poll(async () => (await recordedEvents(page)).some((event) => event.type === 'sessionexpired')).toBe(true);
});
