/**
 * Sealed tokens (docs/security.md): a session-replay or error-tracking script that records every
 * response body the page reads (by wrapping fetch and XMLHttpRequest, as such scripts do) finds no
 * token the storefront issued, through the guest, sign-in, refresh, Spree SDK and logout flows.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { sdk } from './spreeSdk.js';
import { expect, issuedTokens, login, openShop, pageFetch, test, waitForExpiry, type Storefront } from './support.js';

test.use({ storefrontOptions: { flavour: 'spree', rotation: 'strict', accessTokenLifetime: 3 } });

/** Wraps fetch and XMLHttpRequest in every page of the context, keeping each body read in `window.recorded`. */
async function recordResponseBodies(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const recorded: string[] = [];
    Object.assign(window, { recorded });
    const pageFetch = window.fetch.bind(window);
    window.fetch = async (...args: Parameters<typeof fetch>) => {
      const response = await pageFetch(...args);
      recorded.push(await response.clone().text());
      return response;
    };
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, ...args: Parameters<XMLHttpRequest['send']>) {
      this.addEventListener('loadend', () => recorded.push(typeof this.response === 'string' ? this.response : JSON.stringify(this.response)));
      send.apply(this, args);
    };
  });
}

function recorded(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { recorded: string[] }).recorded);
}

/** The tokens of `storefront` found in any recorded body. */
function leaked(storefront: Storefront, bodies: string[]): string[] {
  return issuedTokens(storefront).filter((token) => bodies.some((body) => body.includes(token)));
}

test('a script recording every response the page reads finds no token, from guest cart to logout', async ({ context, storefront }) => {
  await recordResponseBodies(context);
  const page = await openShop(context, storefront, { preset: 'spree' });
  const json = { 'Content-Type': 'application/json' };

  // Guest: a cart through the bridge, one the page creates, and the cart calls that return it.
  await page.evaluate(() => window.storefrontAuth.createCart());
  expect((await pageFetch(page, '/api/v2/storefront/cart', { method: 'POST', headers: json })).status).toBe(201);
  expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(200);
  expect((await pageFetch(page, '/api/v2/storefront/cart/add_item', { method: 'POST', headers: json, body: JSON.stringify({ variant_id: '1', quantity: 1 }) })).status).toBe(200);

  // Sign-in through the bridge; then the page's own grant, form-encoded, after a logout.
  await login(page, storefront.user);
  expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(200);
  await page.evaluate(() => window.storefrontAuth.logout());
  const form = new URLSearchParams({ grant_type: 'password', ...storefront.user }).toString();
  const grant = await pageFetch(page, '/spree_oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form });
  expect(JSON.parse(grant.body)).toMatchObject({ access_token: 'sealed:access', refresh_token: 'sealed:refresh' });

  // Refresh: the worker's, on an expired bearer, and the page's own with the placeholder.
  await waitForExpiry(page);
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  await waitForExpiry(page);
  const refreshed = await pageFetch(page, '/spree_oauth/token', { method: 'POST', headers: json, body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'sealed:refresh' }) });
  expect(refreshed.status).toBe(200);
  expect(JSON.parse(refreshed.body)).toMatchObject({ access_token: 'sealed:access', refresh_token: 'sealed:refresh', token_type: 'Bearer' });

  // The Spree SDK, handing back the placeholders it was given.
  const shop = await openShop(context, storefront, { preset: 'spree' }, '/site/spree.html');
  await page.evaluate(() => window.storefrontAuth.logout());
  expect((await sdk(shop, 'cart', 'create')).ok).toBe(true);
  expect((await sdk(shop, 'cart', 'show', { order_token: 'sealed:cart' })).ok).toBe(true);
  expect((await sdk(shop, 'authentication', 'getToken', storefront.user)).ok).toBe(true);
  expect((await sdk(shop, 'account', 'accountInfo', { bearer_token: 'sealed:access' })).ok).toBe(true);
  expect((await sdk(shop, 'cart', 'show', { bearer_token: 'sealed:access' })).ok).toBe(true);
  expect((await sdk(shop, 'authentication', 'refreshToken', { refresh_token: 'sealed:refresh' })).ok).toBe(true);

  // Logout: after it, the cart calls answer without any token to read.
  await shop.evaluate(() => window.storefrontAuth.logout());
  await pageFetch(page, '/api/v2/storefront/cart');

  const bodies = [...(await recorded(page)), ...(await recorded(shop))];
  expect(bodies.length, 'the recorder saw the responses').toBeGreaterThan(10);
  expect(bodies.some((body) => body.includes('sealed:cart')), 'the page read cart documents').toBe(true);
  expect(issuedTokens(storefront).length, 'carts and pairs were issued').toBeGreaterThan(6);
  expect(leaked(storefront, bodies)).toEqual([]);
  expect(storefront.stats().invalidGrants).toBe(0);
});

test("a page's refresh grant and the worker's refresh at the same expiry make one refresh grant", async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { preset: 'spree' });
  await login(page, storefront.user);
  await waitForExpiry(page);

  const [account, grant] = await page.evaluate(() =>
    Promise.all([
      fetch('/api/v2/storefront/account').then((response) => response.status),
      fetch('/spree_oauth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'sealed:refresh' }),
      }).then(async (response) => ({ status: response.status, body: await response.text() })),
    ]),
  );
  expect(account).toBe(200);
  expect(grant.status).toBe(200);
  expect(JSON.parse(grant.body)).toMatchObject({ access_token: 'sealed:access', refresh_token: 'sealed:refresh' });
  expect(storefront.stats().refreshGrants, 'one refresh for the expiry, whoever asked').toBe(1);
  expect(storefront.stats().invalidGrants).toBe(0);
  // The page's sealed bearer now stands for the rotated one.
  expect((await pageFetch(page, '/api/v2/storefront/account', { headers: { Authorization: 'Bearer sealed:access' } })).status).toBe(200);
});

test('a placeholder sent anywhere but the base URL goes out as it is, worthless', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { preset: 'spree' });
  await login(page, storefront.user);
  // Another origin (the same server under another name): the worker does not touch the request.
  const elsewhere = `http://localhost:${new URL(storefront.url).port}/api/v2/storefront/account`;
  await page.evaluate((url) => fetch(url, { headers: { Authorization: 'Bearer sealed:access' } }).catch(() => null), elsewhere);
  const seen = storefront.requests.filter((request) => request.headers.host?.startsWith('localhost') && request.method === 'GET');
  expect(seen.map((request) => request.headers.authorization)).toEqual(['Bearer sealed:access']);
});
