import { realCartToken, expect, openShop, pageFetch, recordedEvents, requestsTo, test } from './support.js';

test("the worker keeps the cart token when the page creates the cart with its own fetch", async ({ context, storefront }) => {
  const page = await openShop(context, storefront);

  const created = await pageFetch(page, '/api/v2/storefront/cart', { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' } });
  expect(created.status).toBe(201);
  const { number, token: sealed } = JSON.parse(created.body).data.attributes as { number: string; token: string };
  // Sealed tokens: the page reads a placeholder; the worker sends the real token (the server's).
  expect(sealed).toBe('sealed:cart');
  const token = realCartToken(storefront, number);

  // The response reached the page untouched, and the worker kept the cart before answering it.
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: { number }, pendingWrites: 0 });
  await expect.poll(() => recordedEvents(page)).toEqual([{ type: 'change', detail: { signedIn: false, accessTokenExpiresAt: null, cart: { number }, pendingWrites: 0 }, at: expect.any(Number) }]);

  const item = await pageFetch(page, '/api/v2/storefront/cart/add_item', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ variant_id: '1', quantity: 2 }),
  });
  expect(item.status).toBe(200);
  const added = requestsTo(storefront, 'POST', '/api/v2/storefront/cart/add_item').at(-1);
  expect(added?.headers.orderToken).toBe(token);
  expect(JSON.parse(added?.body ?? '{}')).toEqual({ variant_id: '1', quantity: 2 });
});
