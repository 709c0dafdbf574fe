/**
 * A shop whose pages are on another origin than its Spree API, as docs/cors.md describes: the
 * bench's rack-cors block (demo/doorkeeper/application.rb) is the one docs/cors.md quotes. The
 * pages come from http://localhost:PORT and the API is http://127.0.0.1:PORT: the same server under
 * two host names, so two origins. Every credentialed call is a CORS request the browser preflights,
 * and the worker's credentials must pass through.
 */
import { login, openShop, pageFetch } from '../support.js';
import { expect, test } from './support.js';

const API = '/api/v2/storefront';

test('pages on another origin than the API get a cart, a sign-in and the bearer through CORS', async ({ context, doorkeeper }) => {
  const pages = doorkeeper.url.replace('//127.0.0.1:', '//localhost:');
  expect(new URL(pages).origin).not.toBe(new URL(doorkeeper.url).origin);
  const page = await openShop(context, { url: pages }, { preset: 'spree', baseUrl: doorkeeper.url });

  // A guest cart: the worker's own creation (JSON:API content type: preflighted), then the page's
  // cart call, to which the worker adds X-Spree-Order-Token.
  const guest = await page.evaluate(() => window.storefrontAuth.createCart());
  expect(guest.cart?.number).toMatch(/^R\d{9}$/);
  const cart = await pageFetch(page, `${doorkeeper.url}${API}/cart`);
  expect(cart.status).toBe(200);
  expect(JSON.parse(cart.body).data.attributes.token).toBe('sealed:cart');
  const [asGuest] = (await doorkeeper.requestsTo('GET', `${API}/cart`)).slice(-1);
  expect(asGuest?.headers.orderToken).toMatch(/^[\w-]{16,}$/);

  // Sign-in and the bearer on the account, read by the page across origins.
  await login(page, doorkeeper.user);
  const account = await pageFetch(page, `${doorkeeper.url}${API}/account`);
  expect(account.status).toBe(200);
  expect(JSON.parse(account.body).data.attributes.email).toBe(doorkeeper.user.username);
  const [pair] = await doorkeeper.issuedPairs();
  expect((await doorkeeper.requestsTo('GET', `${API}/account`)).at(-1)?.headers.authorization).toBe(`Bearer ${pair?.access_token}`);

  // The browser asked before each credentialed call: preflights reached the API and were allowed.
  const preflights = (await doorkeeper.requestsTo('OPTIONS', `${API}/account`)).concat(await doorkeeper.requestsTo('OPTIONS', `${API}/cart`));
  expect(preflights.length).toBeGreaterThan(0);
  expect(preflights.every((request) => request.status === 200 && request.headers.origin === new URL(pages).origin)).toBe(true);
});
