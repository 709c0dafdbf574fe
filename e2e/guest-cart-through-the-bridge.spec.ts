import { realCartToken, expect, openShop, pageFetch, recordedEvents, requestsTo, test } from './support.js';

test('a guest creates a cart through the bridge and the worker sends its token on cart calls', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);

  const { state, eventsAtResolve } = await page.evaluate(async () => {
    const state = await window.storefrontAuth.createCart();
    return { state, eventsAtResolve: (window as unknown as { events: unknown[] }).events.length };
  });
  expect(state.signedIn).toBe(false);
  expect(state.cart?.number).toMatch(/^R\d+/);
  // The acting page gets its change event before the method's promise resolves.
  expect(eventsAtResolve).toBe(1);
  expect(await recordedEvents(page)).toEqual([{ type: 'change', detail: state, at: expect.any(Number) }]);

  const [creation] = requestsTo(storefront, 'POST', '/api/v2/storefront/cart');
  expect(creation?.search).toContain('fields%5Bcart%5D=number%2Ctoken');
  expect(creation?.headers.orderToken).toBeUndefined();
  expect(creation?.headers.authorization).toBeUndefined();

  const cart = await pageFetch(page, '/api/v2/storefront/cart');
  expect(cart.status).toBe(200);
  expect(JSON.parse(cart.body).data.attributes.token, 'the page reads a placeholder').toBe('sealed:cart');
  const token = realCartToken(storefront, JSON.parse(cart.body).data.attributes.number as string);
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken).toBe(token);
  // The token never reaches the page through the bridge.
  expect(JSON.stringify(await page.evaluate(() => window.storefrontAuth.getState()))).not.toContain(token);
  expect(JSON.stringify(await recordedEvents(page))).not.toContain(token);

  const checkout = await pageFetch(page, '/api/v2/storefront/checkout');
  expect(checkout.status).toBe(200);

  // A second cart replaces the first.
  const second = await page.evaluate(() => window.storefrontAuth.createCart());
  expect(second.cart?.number).not.toBe(state.cart?.number);
  await pageFetch(page, '/api/v2/storefront/cart');
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken).not.toBe(token);

  // Logout forgets the cart: no order token afterwards, and the server answers 404.
  const out = await page.evaluate(() => window.storefrontAuth.logout());
  expect(out).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
  expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(404);
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken).toBeUndefined();
});
