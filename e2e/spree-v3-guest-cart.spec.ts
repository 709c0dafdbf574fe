import { expect, recordedEvents, requestsTo, test } from './support.js';
import { openV3Shop, stateOf, V3, V3_KEY, V3_STOREFRONT, v3CartToken, v3Fetch } from './storeApiV3.js';

test.use({ storefrontOptions: V3_STOREFRONT });

test('a guest of a Spree 5 shop gets a cart, and the worker sends its token as x-spree-token on the cart calls', async ({ context, storefront }) => {
  const page = await openV3Shop(context, storefront);

  // Through the bridge: the worker's own POST carries the key and no credential.
  const state = await page.evaluate(() => window.storefrontAuth.createCart());
  expect(state.signedIn).toBe(false);
  expect(state.cart?.number).toMatch(/^R/);
  expect(state.cart?.id, 'the page learns the id its cart paths need').toMatch(/^cart_/);
  const [creation] = requestsTo(storefront, 'POST', `${V3}/carts`);
  expect(creation?.headers.apiKey).toBe(V3_KEY);
  expect(creation?.headers.orderToken).toBeUndefined();
  expect(creation?.headers.authorization).toBeUndefined();
  const token = v3CartToken(storefront, state.cart?.number);

  // The page's own cart calls: the worker adds the real token, and the page reads a placeholder.
  const cart = await v3Fetch(page, `/carts/${state.cart?.id}`);
  expect(cart.status).toBe(200);
  expect(cart.json).toMatchObject({ id: state.cart?.id, number: state.cart?.number, token: 'sealed:cart' });
  expect(requestsTo(storefront, 'GET', `${V3}/carts/${state.cart?.id}`).at(-1)?.headers.orderToken).toBe(token);
  const { data: products } = (await v3Fetch(page, '/products')).json as { data: Array<{ default_variant: { id: string } }> };
  const variant = products[0]?.default_variant.id;
  const added = await v3Fetch(page, `/carts/${state.cart?.id}/items`, { method: 'POST', body: { variant_id: variant, quantity: 2 } });
  expect(added.status).toBe(201);
  expect(added.json).toMatchObject({ total_quantity: 2, token: 'sealed:cart' });
  expect(added.body).not.toContain(token);

  // A cart the page creates itself is kept too, and replaces the one held.
  const own = await v3Fetch(page, '/carts', { method: 'POST' });
  expect(own.status).toBe(201);
  expect(own.json).toMatchObject({ token: 'sealed:cart' });
  const { id, number } = own.json as { id: string; number: string };
  await expect.poll(() => stateOf(page)).toMatchObject({ cart: { id, number } });
  await v3Fetch(page, `/carts/${id}`);
  expect(requestsTo(storefront, 'GET', `${V3}/carts/${id}`).at(-1)?.headers.orderToken).toBe(v3CartToken(storefront, number));

  // No token reaches the page through the bridge or its events.
  for (const secret of [token, v3CartToken(storefront, number)]) {
    expect(JSON.stringify(await stateOf(page))).not.toContain(secret);
    expect(JSON.stringify(await recordedEvents(page))).not.toContain(secret);
  }

  // Calls the worker never touches go out as the page made them.
  expect(requestsTo(storefront, 'GET', `${V3}/products`).at(-1)?.headers.orderToken).toBeUndefined();
});
