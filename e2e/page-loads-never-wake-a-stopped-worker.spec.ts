import type { CDPSession, Page } from '@playwright/test';
import { expect, openShop, pageFetch, realCartToken, requestsTo, test } from './support.js';

/** Follows every service worker's running status over CDP (ServiceWorker.workerVersionUpdated). */
async function followWorkers(page: Page): Promise<{ cdp: CDPSession; statuses: string[]; stop(): Promise<void> }> {
  const cdp = await page.context().newCDPSession(page);
  const running = new Map<string, string>();
  const statuses: string[] = [];
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const version of versions) {
      running.set(version.versionId, version.runningStatus);
      statuses.push(version.runningStatus);
    }
  });
  await cdp.send('ServiceWorker.enable');
  return {
    cdp,
    statuses,
    async stop() {
      await cdp.send('ServiceWorker.stopAllWorkers');
      await expect.poll(() => [...running.values()].every((status) => status === 'stopped')).toBe(true);
      statuses.length = 0;
    },
  };
}

test('a page load never waits for a stopped worker, its subresources leave it stopped, and the next cart call starts it with the credential', async ({ context, storefront }) => {
  // The debug build logs each fetch event its handler receives ("fetch event N: …").
  const logs: string[] = [];
  context.on('console', (message) => logs.push(message.text()));
  const fetchEvents = () => logs.filter((line) => line.includes('fetch event'));
  const page = await openShop(context, storefront, { debug: '' });
  const { number } = (await page.evaluate(() => window.storefrontAuth.createCart())).cart ?? {};
  const workers = await followWorkers(page);
  await workers.stop();
  logs.length = 0;
  storefront.clearLog();

  // A shopper opens a page: the document, its style, script and image, the drop-in, a products call.
  await page.goto(`${storefront.url}/site/shop-page.html`);
  expect(await page.evaluate(() => (window as unknown as { shopLoaded: Promise<number> }).shopLoaded)).toBe(200);
  const loaded = storefront.requests.map((request) => `${request.method} ${request.path}`);
  for (const path of ['/site/shop-page.html', '/site/shop-page.css', '/site/shop-page.js', '/site/shop-logo.svg', '/storefront-auth.js', '/api/v2/storefront/products']) {
    expect(loaded, path).toContain(`GET ${path}`);
  }
  // The static routes sent all of it to the network: the fetch handler never ran. (Chromium 156 still
  // starts a stopped worker beside a navigation that a static route sends to the network, without
  // waiting for it; so the worker is stopped again before the subresources below.)
  expect(fetchEvents(), 'its fetch handler never ran').toEqual([]);
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL), 'the page is still controlled').toContain('/storefront-auth-sw.js');

  // The page loads more: an image, a style, a script, a products call. None of it starts the worker.
  await workers.stop();
  await page.evaluate(async () => {
    const image = new Image();
    image.src = '/site/shop-logo.svg?more';
    const style = Object.assign(document.createElement('link'), { rel: 'stylesheet', href: '/site/shop-page.css?more' });
    const script = Object.assign(document.createElement('script'), { src: '/site/shop-page.js?more' });
    const loads = [style, script].map((element) => new Promise((resolve, reject) => Object.assign(element, { onload: resolve, onerror: reject })));
    document.head.append(style, script);
    await Promise.all([image.decode(), ...loads, fetch('/api/v2/storefront/products?page=2').then((response) => response.text())]);
  });
  await page.waitForTimeout(300);
  expect(workers.statuses, 'the worker stayed stopped (CDP running status)').toEqual([]);
  expect(fetchEvents(), 'its fetch handler never ran').toEqual([]);

  // The first cart call starts the worker, which reads the cart token back and adds it.
  expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(200);
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken).toBe(realCartToken(storefront, number));
  expect(workers.statuses).toContain('running');
  expect(fetchEvents()).toEqual(['[storefront-auth] fetch event 1: GET /api/v2/storefront/cart']);
  await workers.cdp.detach();
});
