/**
 * Spree 5's Store API (preset spree-v3): a guest's cart, created by the page's own fetch or through
 * the bridge, is kept by the worker, which puts `x-spree-token` on the calls to `/carts/{id}`; the
 * page reads `sealed:cart` and sends its own publishable key, which the worker leaves as it is.
 */
import { realCartToken, requestsTo } from '../support.js';
import { expect, inEveryEngine, spreeV3Storefront, test } from './fixtures.js';
import { createCart, getState, recordedEvents, V3, v3Fetch } from './shop.js';

test.use({ storefrontOptions: spreeV3Storefront() });

inEveryEngine(() =>
  test('a guest cart created by the page or the bridge opens with x-spree-token, and the page reads sealed:cart', async ({ shop, storefront }) => {
    const tab = await shop.openV3();
    const key = storefront.v3?.publishableKey;

    const created = await v3Fetch(tab, storefront, '/carts', { method: 'POST' });
    expect(created.status).toBe(201);
    const { id, number, token: sealed } = JSON.parse(created.body) as { id: string; number: string; token: string };
    expect(sealed, 'the page reads a placeholder').toBe('sealed:cart');
    expect(id).toMatch(/^cart_/);
    const token = realCartToken(storefront, number);
    const [creation] = requestsTo(storefront, 'POST', `${V3}/carts`);
    expect(creation?.headers, 'a guest creates the cart with the key alone').toMatchObject({ apiKey: key, orderToken: undefined, authorization: undefined });

    const guestWithCart = { signedIn: false, accessTokenExpiresAt: null, cart: { number, id }, pendingWrites: 0 };
    expect(await getState(tab)).toEqual(guestWithCart);
    await expect.poll(() => recordedEvents(tab)).toEqual([{ type: 'change', detail: guestWithCart }]);

    const read = await v3Fetch(tab, storefront, `/carts/${id}`);
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body)).toMatchObject({ id, number, token: 'sealed:cart' });
    expect(requestsTo(storefront, 'GET', `${V3}/carts/${id}`).at(-1)?.headers).toMatchObject({ orderToken: token, apiKey: key, authorization: undefined });

    const products = await v3Fetch(tab, storefront, '/products');
    expect(products.status).toBe(200);
    const [product] = (JSON.parse(products.body) as { data: Array<{ default_variant: { id: string } }> }).data;
    expect(requestsTo(storefront, 'GET', `${V3}/products`).at(-1)?.headers, 'products: untouched').toMatchObject({ orderToken: undefined, authorization: undefined });
    const body = { variant_id: product?.default_variant.id, quantity: 2 };
    const item = await v3Fetch(tab, storefront, `/carts/${id}/items`, { method: 'POST', body });
    expect(item.status, item.body).toBe(201);
    expect(JSON.parse(item.body)).toMatchObject({ id, total_quantity: 2, token: 'sealed:cart' });
    const added = requestsTo(storefront, 'POST', `${V3}/carts/${id}/items`).at(-1);
    expect(added?.headers.orderToken).toBe(token);
    expect(added?.body).toBe(JSON.stringify(body));
    expect(read.body + item.body, 'no real token reaches the page').not.toContain(token);

    // Through the bridge: the worker's own creation carries the configured key, and replaces the cart held.
    const state = await createCart(tab);
    expect(state.cart?.number).not.toBe(number);
    const byBridge = requestsTo(storefront, 'POST', `${V3}/carts`).at(-1);
    expect(byBridge?.headers).toMatchObject({ apiKey: key, orderToken: undefined, authorization: undefined });
    expect(realCartToken(storefront, state.cart?.number)).not.toBe(token);
  }),
);
