/**
 * Sealed tokens and the URL a page reads back: a `guest_order_token=sealed:cart` placeholder the page
 * sends is swapped for the real cart token on the way out, and a response's URL (`response.url`,
 * XHR's `responseURL`) is the one it was sent to. The page reads its own URL there, placeholder and
 * all. Before, an account call or an opaque redirect (`redirect: 'manual'`) showed it the real token.
 */
import { expect, issuedTokens, login, openShop, test } from './support.js';

const QUERY = '?guest_order_token=sealed:cart';

test('no response URL the page reads holds the real cart token', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  await login(page, storefront.user);

  const urls = await page.evaluate(async (query) => {
    const seen: string[] = [];
    const account = await fetch(`/api/v2/storefront/account${query}`);
    seen.push(account.url);
    seen.push(await new Promise<string>((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open('GET', `/api/v2/storefront/account${query}`);
      xhr.onloadend = () => resolve(xhr.responseURL);
      xhr.send();
    }));
    seen.push((await fetch(`/api/v2/storefront/cart${query}`)).url);
    return seen;
  }, QUERY);
  expect(urls.every((url) => url.endsWith(QUERY)), urls.join(' ')).toBe(true);

  // The association answered with a redirect, met with redirect 'manual': an opaque redirect would carry the URL sent.
  storefront.override('PATCH', '/api/v2/storefront/cart/associate', { status: 302, headers: { Location: '/api/v2/storefront/cart' } });
  const manual = await page.evaluate(async (query) => {
    try {
      const response = await fetch(`/api/v2/storefront/cart/associate${query}`, { method: 'PATCH', redirect: 'manual' });
      return `${response.type} ${response.url}`;
    } catch (error) {
      return String(error);
    }
  }, QUERY);
  expect(manual).toBe('TypeError: Failed to fetch');

  const tokens = issuedTokens(storefront);
  // The placeholder was swapped each time: the login's association and the page's four calls.
  expect(storefront.requests.filter((request) => request.search.includes('guest_order_token=') && !request.search.includes('sealed')).length).toBe(5);
  expect(tokens.filter((token) => [...urls, manual].some((url) => url.includes(token)))).toEqual([]);
});
