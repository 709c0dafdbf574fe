import { addDropIn, expect, pageFetch, test } from './support.js';

test('moving the shop to another base URL installs a new worker version whose static routes follow it', async ({ context, storefront }) => {
  // The debug build logs each fetch event its handler receives; static routes are fixed at install.
  const logs: string[] = [];
  context.on('console', (message) => logs.push(message.text()));
  const fetchEvents = () => logs.filter((line) => line.includes('fetch event')).map((line) => line.replace(/.*fetch event \d+: /, ''));
  const cart = (shop: string) => `/${shop}/api/v2/storefront/cart`;
  const scriptUrl = () => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? '');

  const page = await context.newPage();
  await page.goto(`${storefront.url}/site/blank.html`);
  await addDropIn(page, { baseUrl: `${storefront.url}/shop-a`, debug: '' });
  await page.evaluate(() => window.storefrontAuth.ready);
  const first = await scriptUrl();
  logs.length = 0;
  for (const shop of ['shop-a', 'shop-b']) await pageFetch(page, cart(shop));
  expect(fetchEvents(), 'only the first base reaches the fetch handler').toEqual([`GET ${cart('shop-a')}`]);

  // The same page registers the worker for another base: a new URL (its query), so a new version.
  await page.goto(`${storefront.url}/site/blank.html`);
  await addDropIn(page, { baseUrl: `${storefront.url}/shop-b`, debug: '' });
  // `ready` waits for the new version's control: the old one, for shop-a, never answers shop-b's bridge.
  const state = await page.evaluate(() => window.storefrontAuth.ready.then(() => window.storefrontAuth.getState()));
  expect(state).toMatchObject({ signedIn: false, cart: null });
  expect(await scriptUrl()).toContain(encodeURIComponent(`${storefront.url}/shop-b`));
  expect(await scriptUrl()).not.toBe(first);
  // A page keeps the static routes of the worker that controlled it when it loaded (Chromium 156:
  // a claim does not change them), so the shop's next page is the first to use the new ones.
  await page.goto(`${storefront.url}/site/blank.html`);
  logs.length = 0;
  for (const shop of ['shop-a', 'shop-b']) await pageFetch(page, cart(shop));
  expect(fetchEvents(), 'the new version routes the new base only').toEqual([`GET ${cart('shop-b')}`]);
});
