import { login, pageFetch } from '../support.js';
import { expect, openSpreeShop, send, test } from './support.js';

const CART = '/api/v2/storefront/cart';
const ASSOCIATE = '/api/v2/storefront/cart/associate';

test('a guest cart held at login is assigned to the shopper at Doorkeeper-backed Spree endpoints', async ({ context, doorkeeper }) => {
  const page = await openSpreeShop(context, doorkeeper);
  const guest = await page.evaluate(() => window.storefrontAuth.createCart());
  expect(guest.cart).toEqual({ number: expect.stringMatching(/^R\d{9}$/) });
  const [creation] = await doorkeeper.requestsTo('POST', CART);
  expect(creation).toMatchObject({ status: 201, search: `?${new URLSearchParams({ 'fields[cart]': 'number,token' })}` });
  expect(creation?.headers.authorization).toBeUndefined();

  // As a guest, the worker sends the cart's token in Spree's header.
  const asGuest = await pageFetch(page, CART);
  expect(asGuest.status).toBe(200);
  // Sealed tokens: the page reads a placeholder; the worker sent the real token.
  expect(JSON.parse(asGuest.body).data.attributes.token).toBe('sealed:cart');
  const token = (await doorkeeper.requestsTo('GET', CART)).at(-1)?.headers.orderToken ?? '';
  expect(token).toMatch(/^[\w-]{16,}$/);
  expect((await doorkeeper.requestsTo('GET', CART)).at(-1)?.headers).toEqual({ orderToken: token });

  const signedIn = await login(page, doorkeeper.user);
  expect(signedIn).toMatchObject({ signedIn: true, cart: guest.cart });
  const [pair] = await doorkeeper.issuedPairs();
  // The login does not wait for the association: it follows, with the new bearer.
  await expect.poll(async () => (await doorkeeper.requestsTo('PATCH', ASSOCIATE)).map((request) => request.status)).toEqual([200]);
  const [associate] = await doorkeeper.requestsTo('PATCH', ASSOCIATE);
  expect(new URLSearchParams(associate?.search).get('guest_order_token')).toBe(token);
  expect(associate?.headers.authorization).toBe(`Bearer ${pair?.access_token}`);

  // Signed in, the page's cart call carries the bearer, and the user's cart is the guest's one.
  const cart = await pageFetch(page, CART);
  expect(cart.status).toBe(200);
  expect(JSON.parse(cart.body).data.attributes.number).toBe(guest.cart?.number);
  // (The browser revalidates it with the guest answer's ETag; the body changed, so Rails answers 200.)
  expect((await doorkeeper.requestsTo('GET', CART)).at(-1)).toMatchObject({ status: 200, headers: { authorization: `Bearer ${pair?.access_token}` } });
  expect((await doorkeeper.requestsTo('GET', CART)).at(-1)?.headers.orderToken).toBeUndefined();

  // At the server the cart now belongs to the user: found by the bearer alone, with the user as its relationship.
  const account = await send(doorkeeper, '/api/v2/storefront/account', { headers: { Authorization: `Bearer ${pair?.access_token}` } });
  const userId = (account.json as { data: { id: string } }).data.id;
  const owned = await send(doorkeeper, CART, { headers: { Authorization: `Bearer ${pair?.access_token}` } });
  expect(owned.json).toMatchObject({ data: { attributes: { number: guest.cart?.number, email: doorkeeper.user.username }, relationships: { user: { data: { id: userId, type: 'user' } } } } });
  expect((await page.evaluate(() => window.storefrontAuth.getState())).cart).toEqual(guest.cart);
});
