import type { BrowserContext, CDPSession, Page } from '@playwright/test';
import { chromiumLaunchOptions } from './engines/browsers.js';
import { expect, openShop, pageFetch, realCartToken, requestsTo, test } from './support.js';
import type { Storefront } from './support.js';

// docs/behaviour.md, "Page loads do not wait for the worker": the worker's static routes send
// navigations and everything outside the storefront paths to the network, so nothing of a page load
// reaches its fetch handler. Whether a stopped worker is *started* beside such a navigation is
// Chromium's choice: with ServiceWorkerStaticRouterStartServiceWorker (on by default), the browser
// hands the navigation to the network and then starts the worker, without the navigation waiting
// for it (content/browser/service_worker/service_worker_main_resource_loader.cc). No worker with a
// fetch handler can opt out, and the start is what keeps the page's controller reachable: in a
// Chromium with it switched off, the routes alone leave the worker stopped through the whole page
// load (the first test), but the page's later storefront calls then bypass the worker altogether
// (Chromium 156: no fetch event, no static-routing match, the call leaves without its credential).
// So the second test, in Chromium as shipped, is the one a shopper gets: the browser's own start,
// nothing of the page load at the fetch handler, subresources that never start the worker, and cart
// calls that do.

/** The Chromium switch that leaves a stopped worker stopped beside a navigation routed to the network. */
const WITHOUT_START = '--disable-features=ServiceWorkerStaticRouterStartServiceWorker';

/** Follows every service worker's running status over CDP (ServiceWorker.workerVersionUpdated). */
async function followWorkers(page: Page): Promise<{ cdp: CDPSession; statuses: string[]; stop(): Promise<void> }> {
  const cdp = await page.context().newCDPSession(page);
  const running = new Map<string, string>();
  const statuses: string[] = [];
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const version of versions) {
      running.set(version.versionId, version.runningStatus);
      // Updates come for other reasons too (the drop-in's `register` checks for an update), each with the status.
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

/** A shop page with a cart, its worker stopped; the debug build logs each fetch event its handler receives ("fetch event N: …"). */
async function stoppedShop({ context, storefront }: { context: BrowserContext; storefront: Storefront }) {
  const logs: string[] = [];
  context.on('console', (message) => logs.push(message.text()));
  const page = await openShop(context, storefront, { debug: '' });
  const { number } = (await page.evaluate(() => window.storefrontAuth.createCart())).cart ?? {};
  const workers = await followWorkers(page);
  await workers.stop();
  logs.length = 0;
  storefront.clearLog();
  return { page, workers, number, fetchEvents: () => logs.filter((line) => line.includes('fetch event')) };
}

/** A shopper opens a page: the document, its style, script and image, the drop-in, a products call; each is requested at the server. */
async function openShopPage(page: Page, storefront: Storefront): Promise<void> {
  await page.goto(`${storefront.url}/site/shop-page.html`);
  expect(await page.evaluate(() => (window as unknown as { shopLoaded: Promise<number> }).shopLoaded)).toBe(200);
  const loaded = storefront.requests.map((request) => `${request.method} ${request.path}`);
  for (const path of ['/site/shop-page.html', '/site/shop-page.css', '/site/shop-page.js', '/site/shop-logo.svg', '/storefront-auth.js', '/api/v2/storefront/products']) {
    expect(loaded, path).toContain(`GET ${path}`);
  }
}

/** The page loads more: an image, a style, a script, a products call. */
function loadMore(page: Page): Promise<void> {
  return page.evaluate(async () => {
    const image = new Image();
    image.src = '/site/shop-logo.svg?more';
    const style = Object.assign(document.createElement('link'), { rel: 'stylesheet', href: '/site/shop-page.css?more' });
    const script = Object.assign(document.createElement('script'), { src: '/site/shop-page.js?more' });
    const loads = [style, script].map((element) => new Promise((resolve, reject) => Object.assign(element, { onload: resolve, onerror: reject })));
    document.head.append(style, script);
    await Promise.all([image.decode(), ...loads, fetch('/api/v2/storefront/products?page=2').then((response) => response.text())]);
  });
}

/** Each of the page's loads by the static-routing source that matched it (Resource Timing's `workerMatchedSourceType`, Chromium). */
function matchedSources(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() =>
    Object.fromEntries(
      performance.getEntries()
        .filter((entry) => entry.entryType === 'navigation' || entry.entryType === 'resource')
        .map((entry) => [new URL(entry.name).pathname + new URL(entry.name).search, String((entry as PerformanceResourceTiming & { workerMatchedSourceType?: string }).workerMatchedSourceType)]),
    ),
  );
}

/** The first cart call starts the worker, which reads the cart token back from IndexedDB and adds it; it was the handler's first fetch event. */
async function cartCallStartsTheWorker(page: Page, storefront: Storefront, workers: { statuses: string[] }, number: string | undefined, fetchEvents: () => string[]): Promise<void> {
  expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(200);
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken).toBe(realCartToken(storefront, number));
  expect(workers.statuses).toContain('running');
  expect(fetchEvents()).toEqual(['[storefront-auth] fetch event 1: GET /api/v2/storefront/cart']);
  expect((await matchedSources(page))['/api/v2/storefront/cart']).toBe('fetch-event');
}

test('in Chromium without its own start beside a network-routed navigation, a page load and its subresources leave a stopped worker stopped and never reach its fetch handler', async ({ playwright, storefront }) => {
  // A browser of its own: launch options force a new Playwright worker when set with test.use.
  const browser = await playwright.chromium.launch(chromiumLaunchOptions([WITHOUT_START]));
  try {
    const { page, workers, fetchEvents } = await stoppedShop({ context: await browser.newContext(), storefront });

    await openShopPage(page, storefront);
    await loadMore(page);
    await page.waitForTimeout(300);
    expect(workers.statuses.filter((status) => status !== 'stopped'), 'the worker stayed stopped (CDP running status)').toEqual([]);
    expect(fetchEvents(), 'its fetch handler never ran').toEqual([]);
    const sources = await matchedSources(page);
    expect(Object.keys(sources)).toEqual(expect.arrayContaining(['/site/shop-page.html', '/site/shop-page.css', '/site/shop-logo.svg?more', '/api/v2/storefront/products?page=2']));
    expect(new Set(Object.values(sources)), 'every load matched a network route').toEqual(new Set(['network']));
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL), 'the page is still controlled').toContain('/storefront-auth-sw.js');
    await workers.cdp.detach();
  } finally {
    await browser.close();
  }
});

test('in Chromium as shipped, the browser starts a stopped worker beside the navigation, but nothing of the page load reaches it', async ({ context, storefront }) => {
  const { page, workers, number, fetchEvents } = await stoppedShop({ context, storefront });

  await openShopPage(page, storefront);
  // Chromium's own start, after it handed the navigation to the network (the routes matched it).
  await expect.poll(() => workers.statuses).toContain('running');
  expect((await matchedSources(page))['/site/shop-page.html']).toBe('network');
  expect(fetchEvents(), 'its fetch handler never ran').toEqual([]);

  // Subresources alone never start it: stopped again, the page loads more.
  await workers.stop();
  await loadMore(page);
  await page.waitForTimeout(300);
  expect(workers.statuses.filter((status) => status !== 'stopped'), 'the worker stayed stopped (CDP running status)').toEqual([]);
  expect(new Set(Object.values(await matchedSources(page))), 'every load matched a network route').toEqual(new Set(['network']));
  expect(fetchEvents(), 'its fetch handler never ran').toEqual([]);

  await cartCallStartsTheWorker(page, storefront, workers, number, fetchEvents);
  await workers.cdp.detach();
});
