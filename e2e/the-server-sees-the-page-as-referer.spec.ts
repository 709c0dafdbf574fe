// The worker sends a copy of the page's request (to add a header, or to ask for a whole body when it
// seals), and Fetch resets a copy's referrer to the worker's own URL and its referrer policy to the
// worker's. The server sees the request as the page made it: the page's URL as Referer, under the
// page's policy (docs/behaviour.md, "What the worker does to requests").
import { expect, openShop, pageFetch, requestsTo, test } from './support.js';

for (const sealed of [true, false]) {
  test(`a cart call carries the page's Referer, and none under the page's no-referrer (sealing ${sealed ? 'on' : 'off'})`, async ({ context, storefront }) => {
    const page = await openShop(context, storefront, sealed ? {} : { sealTokens: 'false' }, '/site/blank.html?from=shop');
    await page.evaluate(() => window.storefrontAuth.createCart());

    expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(200);
    const sent = requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1);
    expect(sent?.headers.orderToken, 'the worker handled it').toBeTruthy();
    expect(sent?.headers.referer).toBe(`${storefront.url}/site/blank.html?from=shop`);

    expect((await pageFetch(page, '/api/v2/storefront/cart', { referrerPolicy: 'no-referrer' })).status).toBe(200);
    expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.referer).toBeUndefined();

    // A referrer the page names (same-origin) is the one sent.
    expect((await pageFetch(page, '/api/v2/storefront/cart', { referrer: '/site/checkout.html' })).status).toBe(200);
    expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.referer).toBe(`${storefront.url}/site/checkout.html`);

    // A request the worker rebuilds at another URL (a placeholder in its query swapped) keeps it too.
    if (sealed) {
      expect((await pageFetch(page, '/api/v2/storefront/cart?guest_order_token=sealed:cart', { referrerPolicy: 'no-referrer' })).status).toBe(200);
      const swapped = requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1);
      expect(swapped?.search).not.toContain('sealed');
      expect(swapped?.headers.referer).toBeUndefined();
      expect((await pageFetch(page, '/api/v2/storefront/cart?guest_order_token=sealed:cart')).status).toBe(200);
      expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.referer).toBe(`${storefront.url}/site/blank.html?from=shop`);
    }
  });
}
