// The navigation rows: what a page load pays for the worker. A storefront page (bench/site/shop/: a
// style, a script, an image, an image from another origin, a products call) is opened again and again
// in four contexts, interleaved: no worker on the origin, storefront-auth running, storefront-auth
// stopped before each navigation (as the browser stops it after about 30 s idle), and the navigation
// floor stopped before each: the smallest worker with the same static routes and a fetch handler
// (bench/site/floor-nav-sw.js). Timed: the document's `responseEnd` in its navigation entry (ms after
// the navigation started).
//
// Why a floor: Chromium starts a stopped worker beside every navigation its static routes send to the
// network (the ServiceWorkerStaticRouterStartServiceWorker feature, on by default since the static
// routing API shipped: ServiceWorkerMainResourceLoader::StartRequest starts the worker right after it
// hands the navigation to the network, for the subresources to come). The navigation does not wait
// for it, but the start shares the browser's threads with the page load. No worker with a fetch
// handler can opt out of it, and it is what keeps the page's controller reachable: with the feature
// switched off, a page loaded while its worker was stopped sends its later storefront calls past the
// worker altogether (Chromium 156; e2e/page-loads-never-wake-a-stopped-worker.spec.ts). So a stopped
// worker is judged against the floor. A second Chromium with the feature off times no worker against
// storefront-auth stopped, for the record: what the page load costs when only the routes decide.
// After each stopped navigation the bench records whether the worker woke (CDP's running status):
// every time in the first browser, never in the second.
//
// Then a context in the first browser runs the debug build and the same navigations, running and
// stopped, and counts the fetch events its handler logs ("fetch event N: …", src/sw/standalone.ts),
// read from the worker's console.
import { evaluate, launch, openContext, sleep } from './browser.mjs';
import { rotate } from './stats.mjs';

export const NAVIGATION_CONDITIONS = {
  none: 'no worker',
  running: 'storefront-auth, running',
  stopped: 'storefront-auth, stopped before each navigation',
  floor: 'navigation floor: the smallest worker with the same static routes, stopped before each navigation',
};

/** The Chromium switch that leaves a stopped worker stopped when a static route sends a navigation to the network. */
export const WITHOUT_START = '--disable-features=ServiceWorkerStaticRouterStartServiceWorker';

/** The storefront-auth worker's own paths under the v2 base: a fetch event for any other path is one it need not have had. */
const STOREFRONT_PATH = /^\/(api\/v2\/storefront\/(cart|checkout|account)|store_oauth\/)/;

/** The drop-in, and a guest cart for the cart call after each load. */
const withCart = (page) => evaluate(page, () => window.bench.loadDropIn({}).then(() => window.storefrontAuth.createCart()));

/** How each condition's context gets its worker, on the bench page. */
const SET_UP = {
  none: null,
  running: withCart,
  stopped: withCart,
  floor: (page) => evaluate(page, () => window.bench.registerWorker('/floor-nav-sw.js')),
};

/**
 * When the page's cart call follows the load, ms after it loaded: by then a worker that Chromium
 * started beside the navigation has loaded the credentials (it does as it starts,
 * src/sw/startAuthWorker.ts), so what the call costs over a worker running all along is the
 * freshly started worker's first run of its code.
 */
const CART_CALL_AFTER_MS = 200;

/**
 * `rounds` navigations per condition to `server`'s shop page, its other-origin image from
 * `otherOrigin`, in `browser` (none, running, stopped, floor) and in a second Chromium without the
 * start (none, stopped): the document times per condition, how often a stopped worker woke, and the
 * fetch events the worker received.
 */
export async function measureNavigation(browser, server, otherOrigin, rounds) {
  const url = `${server.url}/shop/index.html?other=${encodeURIComponent(otherOrigin)}`;
  const shipped = await timeNavigations(browser, server, url, rounds, ['none', 'running', 'stopped', 'floor'], { cartCalls: true });
  const startOff = await launch([WITHOUT_START]);
  let withoutStart;
  try {
    withoutStart = await timeNavigations(startOff, server, url, rounds, ['none', 'stopped']);
  } finally {
    await startOff.close();
  }
  return { url: '/shop/index.html', cartCallAfterMs: CART_CALL_AFTER_MS, ...shipped, withoutStart, fetchEvents: await countFetchEvents(browser, server, url, rounds) };
}

/**
 * `rounds` interleaved navigations to `url` per condition of `keys`, in `browser`: times, wake-ups of
 * stopped workers, and with `cartCalls` the page's cart call after each load. Not in the Chromium
 * without the start: there a page loaded while its worker was stopped sends its calls past the worker.
 */
async function timeNavigations(browser, server, url, rounds, keys, { cartCalls: timeCartCalls = false } = {}) {
  const contexts = {};
  for (const key of keys) {
    contexts[key] = await openContext(browser, `${server.url}/bench.html`);
    await SET_UP[key]?.(contexts[key].page);
    // One load first, so that each context's HTTP cache and connections are in the same state.
    await open(contexts[key].page, url);
  }
  const times = Object.fromEntries(keys.map((key) => [key, []]));
  /** The cart call after each load, where the context has the drop-in and a cart (running, stopped). */
  const cartCalls = Object.fromEntries(keys.filter((key) => timeCartCalls && SET_UP[key] === withCart).map((key) => [key, []]));
  const woke = Object.fromEntries(keys.filter((key) => key === 'stopped' || key === 'floor').map((key) => [key, 0]));
  for (let r = 0; r < rounds; r++) {
    for (const key of rotate(keys, r % keys.length)) {
      const stopped = key in woke;
      if (stopped) {
        await contexts[key].stopWorkers();
        await sleep(20);
      }
      times[key].push(await open(contexts[key].page, url));
      // Once the page and its subresources have loaded; CDP reports a start within a few ms.
      if (stopped) {
        await sleep(50);
        if (contexts[key].stopWorkers.anyAwake()) woke[key] += 1;
      }
      if (key in cartCalls) {
        await sleep(stopped ? CART_CALL_AFTER_MS - 50 : CART_CALL_AFTER_MS);
        cartCalls[key].push(await timedCartCall(contexts[key].page));
      }
    }
  }
  for (const { context } of Object.values(contexts)) await context.close();
  return { times, woke, cartCalls };
}

/** One cart call from `page`, ms until its body was read. */
function timedCartCall(page) {
  return evaluate(page, async () => {
    const started = performance.now();
    const response = await fetch('/api/v2/storefront/cart');
    await response.arrayBuffer();
    const entry = performance.getEntriesByType('resource').filter((e) => e.name.includes('/cart')).at(-1);
    if (response.status !== 200) throw new Error(`the cart call after the load answered ${response.status} ${entry?.workerMatchedSourceType} ${entry?.workerStart} ${navigator.serviceWorker.controller?.scriptURL} ${location.href}`);
    return performance.now() - started;
  });
}

/** Opens `url` in `page`, waits for its subresources, and returns the document's `responseEnd`. */
async function open(page, url) {
  await page.goto(url);
  const status = await evaluate(page, () => window.shopLoaded);
  if (status !== 200) throw new Error(`the shop page's products call answered ${status}`);
  return evaluate(page, () => performance.getEntriesByType('navigation')[0].responseEnd);
}

/**
 * The same navigations with the debug build (untimed: it logs): `rounds` with the worker running and
 * `rounds` with it stopped before each. Each fetch event its handler received, by path.
 */
async function countFetchEvents(browser, server, url, rounds) {
  const { context, page, stopWorkers } = await openContext(browser, `${server.url}/bench.html`);
  const lines = [];
  // Playwright reports a service worker's console on its context (Chromium, over CDP).
  context.on('console', (message) => {
    if (message.text().includes('fetch event')) lines.push(message.text());
  });
  await evaluate(page, () => window.bench.loadDropIn({ debug: '' }));
  await open(page, url);
  /** @type {Record<string, any>} */
  const counted = {};
  for (const state of ['running', 'stopped']) {
    lines.length = 0;
    for (let r = 0; r < rounds; r++) {
      if (state === 'stopped') {
        await stopWorkers();
        await sleep(20);
      }
      await open(page, url);
    }
    await sleep(200);
    const paths = lines.map((line) => /fetch event \d+: (\S+ \S+)/.exec(line)?.[1] ?? line);
    counted[state] = {
      navigations: rounds,
      fetchEvents: paths.length,
      // The log names the path only, so another origin's image counts here too.
      outsideStorefrontPaths: paths.filter((path) => !STOREFRONT_PATH.test(path.split(' ')[1] ?? '')).length,
      paths: [...new Set(paths)],
    };
  }
  // The control: a cart call reaches the handler, so the counter sees fetch events when there are some.
  lines.length = 0;
  await evaluate(page, () => fetch('/api/v2/storefront/cart').then((response) => response.arrayBuffer()));
  await sleep(200);
  counted.controlCartCallEvents = lines.length;
  await context.close();
  return counted;
}
