// docs/behaviour.md, "What the worker does to requests": the copy the worker sends carries the
// page's referrer under the page's referrer policy (e2e/the-server-sees-the-page-as-referer.spec.ts
// in Chromium): the server sees the page's URL as Referer, and none under no-referrer.
import { requestsTo } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { createCart, pageFetch } from './shop.js';

const CART = '/api/v2/storefront/cart';

inEveryEngine(() => {
  test("a cart call through the worker carries the page's Referer, none under no-referrer, and the one the page names", async ({ shop, storefront }) => {
    const tab = await shop.open({}, '/site/blank.html?from=shop');
    await createCart(tab);
    const last = () => requestsTo(storefront, 'GET', CART).at(-1);

    expect((await pageFetch(tab, CART)).status).toBe(200);
    expect(last()?.headers.orderToken, 'the worker handled it').toBeTruthy();
    expect(last()?.headers.referer).toBe(`${storefront.url}/site/blank.html?from=shop`);

    expect((await pageFetch(tab, CART, { referrerPolicy: 'no-referrer' })).status).toBe(200);
    expect(last()?.headers.orderToken).toBeTruthy();
    expect(last()?.headers.referer).toBeUndefined();

    expect((await pageFetch(tab, CART, { referrer: '/site/checkout.html' })).status).toBe(200);
    expect(last()?.headers.referer).toBe(`${storefront.url}/site/checkout.html`);

    // Rebuilt at another URL (a query placeholder swapped): the policy kept too.
    expect((await pageFetch(tab, `${CART}?guest_order_token=sealed:cart`, { referrerPolicy: 'no-referrer' })).status).toBe(200);
    expect(last()?.search).not.toContain('sealed');
    expect(last()?.headers.referer).toBeUndefined();
  });

  test("sealing off, a cart write carries the page's Referer, and none under the page's own no-referrer policy", async ({ shop, storefront }) => {
    const tab = await shop.open({ sealTokens: 'false' }, '/site/blank.html?from=shop');
    await createCart(tab);
    const addItem = async () => {
      const answer = await pageFetch(tab, `${CART}/add_item`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"variant_id":"1","quantity":1}' });
      expect(answer.status).toBe(200);
      const sent = requestsTo(storefront, 'POST', `${CART}/add_item`).at(-1);
      expect(sent?.headers.orderToken, 'the worker handled it').toBeTruthy();
      return sent?.headers.referer;
    };
    expect(await addItem()).toBe(`${storefront.url}/site/blank.html?from=shop`);
    // The document's policy (a meta tag), not one given to fetch: the worker's copy keeps it too.
    await tab.evaluate(() => {
      const meta = document.createElement('meta');
      meta.name = 'referrer';
      meta.content = 'no-referrer';
      document.head.append(meta);
    });
    expect(await addItem()).toBeUndefined();
  });
});
