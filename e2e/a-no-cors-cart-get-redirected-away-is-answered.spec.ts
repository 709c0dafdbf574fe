// A same-origin no-cors GET under a cart path, which the server redirects to
// another origin, is answered as the browser answers it without the worker (an opaque response),
// not with a network error. The worker's credential-free follow-up goes in same-origin mode, which a
// cross-origin redirect fails (Fetch, "main fetch").
import { expect, openShop, test } from './support.js';

test('a no-cors cart GET redirected to another origin gets the opaque answer, not a network error', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  const otherHost = `localhost:${new URL(storefront.url).port}`;
  storefront.override('GET', '/api/v2/storefront/cart/badge', { status: 302, headers: { Location: `http://${otherHost}/logo.png` }, body: '', times: 2 });
  // The control: the same redirect on a path the worker leaves alone reaches the page opaque.
  storefront.override('GET', '/api/v2/storefront/products/badge', { status: 302, headers: { Location: `http://${otherHost}/logo.png` }, body: '', times: 1 });
  const get = (path: string) => page.evaluate(async (path) => {
    try {
      const response = await fetch(path, { mode: 'no-cors' });
      return `answered ${response.type}`;
    } catch (error) {
      return `rejected ${String(error)}`;
    }
  }, path);
  expect(await get('/api/v2/storefront/products/badge'), 'without the worker').toBe('answered opaque');
  expect(await get('/api/v2/storefront/cart/badge'), 'through the worker').toBe('answered opaque');
});
