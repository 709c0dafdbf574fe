/**
 * `fetch('/store_oauth/token', { method: 'POST', mode: 'no-cors', body: form })` on the shop's own
 * origin gets a `basic` response, which the page reads in full: the worker seals and keeps its
 * answer as it does a cors one's. A no-cors request to a base on another origin gets an opaque
 * answer the page cannot read, and stays untouched.
 * On 3ffce34 the worker (and Chromium's static routes) left every no-cors request alone: the page
 * read both real tokens and the state stayed signed out.
 */
import { expect, issuedTokens, lastBearer, lastIssuedAccessToken, openShop, pageFetch, recordedEvents, test } from './support.js';

/** The page's own password grant in no-cors mode, to `url`: the response's type, status and body as the page reads them. */
function noCorsGrant(page: import('@playwright/test').Page, url: string, user: { username: string; password: string }) {
  return page.evaluate(
    async ({ url, user }) => {
      const body = new URLSearchParams({ grant_type: 'password', username: user.username, password: user.password });
      const response = await fetch(url, { method: 'POST', mode: 'no-cors', body });
      return { type: response.type, status: response.status, body: await response.text() };
    },
    { url, user },
  );
}

test('a same-origin no-cors token grant is sealed and kept like a cors one', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const grant = await noCorsGrant(page, '/store_oauth/token', storefront.user);

  expect(grant.type, 'a same-origin no-cors answer is readable').toBe('basic');
  expect(grant.status).toBe(200);
  expect(JSON.parse(grant.body)).toMatchObject({ access_token: 'sealed:access', refresh_token: 'sealed:refresh', token_type: 'Bearer' });
  expect(issuedTokens(storefront).filter((token) => grant.body.includes(token)), 'no real token reaches the page').toEqual([]);
  expect(await page.evaluate(() => window.storefrontAuth.getState().then((state) => state.signedIn)), 'the pair is kept').toBe(true);
  expect((await recordedEvents(page)).map((event) => event.type)).toContain('change');
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBe(`Bearer ${lastIssuedAccessToken(storefront)}`);

  // A no-cors account call is read by the page as well, and gets the bearer like a cors one.
  storefront.clearLog();
  expect((await pageFetch(page, '/api/v2/storefront/account', { mode: 'no-cors' })).status).toBe(200);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account'), 'the bearer survives the no-cors request').toBe(`Bearer ${lastIssuedAccessToken(storefront)}`);
});

test('a no-cors grant to a base on another origin stays untouched: its answer is opaque to the page', async ({ context, storefront }) => {
  // The same server under another origin: localhost instead of 127.0.0.1.
  const api = `http://localhost:${new URL(storefront.url).port}`;
  const page = await openShop(context, storefront, { baseUrl: api });
  const grant = await noCorsGrant(page, `${api}/store_oauth/token`, storefront.user);

  expect(grant).toEqual({ type: 'opaque', status: 0, body: '' });
  expect(storefront.stats().passwordGrants, 'the grant reached the server as the page sent it').toBe(1);
  expect(await page.evaluate(() => window.storefrontAuth.getState().then((state) => state.signedIn))).toBe(false);
});
