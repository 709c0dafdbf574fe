/**
 * A page load after the browser stopped the worker, in every engine: the page, its style, script and
 * image, the drop-in and a products call all load, and the next cart call starts the worker, which
 * adds the cart token it reads back from storage. Chromium also skips the worker for all of it (its
 * static routing: e2e/page-loads-never-wake-a-stopped-worker.spec.ts); the other engines have none,
 * and this checks that nothing broke there.
 */
import { realCartToken, requestsTo } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { createCart, pageFetch } from './shop.js';

inEveryEngine(() =>
  test('a page loaded while the worker is stopped loads whole, and the next cart call gets the credential', async ({ shop, session, storefront }) => {
    test.setTimeout(90_000);
    // The shop page's drop-in carries data-debug: the same worker URL, so no new version.
    const tab = await shop.open({ debug: '' });
    const { cart } = await createCart(tab);
    await session.stopServiceWorkers();
    storefront.clearLog();

    await tab.goto(`${storefront.url}/site/shop-page.html`);
    expect(await tab.evaluate(() => (window as unknown as { shopLoaded: Promise<number> }).shopLoaded)).toBe(200);
    const loaded = storefront.requests.map((request) => `${request.method} ${request.path}`);
    for (const path of ['/site/shop-page.html', '/site/shop-page.css', '/site/shop-page.js', '/site/shop-logo.svg', '/storefront-auth.js', '/api/v2/storefront/products']) {
      expect(loaded, path).toContain(`GET ${path}`);
    }

    expect((await pageFetch(tab, '/api/v2/storefront/cart')).status).toBe(200);
    expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken).toBe(realCartToken(storefront, cart?.number));
  }),
);
