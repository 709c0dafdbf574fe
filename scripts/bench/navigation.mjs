// The navigation rows: what a page load pays for the worker. A storefront page (bench/site/shop/: a
// style, a script, an image, an image from another origin, a products call) is opened again and again
// in three contexts, interleaved: no worker on the origin, storefront-auth running, and storefront-auth
// stopped before each navigation (as the browser stops it after about 30 s idle). Timed: the
// document's `responseEnd` in its navigation entry (ms after the navigation started). Then a fourth
// context runs the debug build and the same navigations, running and stopped, and counts the fetch
// events its handler logs ("fetch event N: …", src/sw/standalone.ts), read from the worker's console.
import { evaluate, openContext, sleep } from './browser.mjs';
import { rotate } from './stats.mjs';

export const NAVIGATION_CONDITIONS = {
  none: 'no worker',
  running: 'storefront-auth, running',
  stopped: 'storefront-auth, stopped before each navigation',
};

/** The storefront-auth worker's own paths under the v2 base: a fetch event for any other path is one it need not have had. */
const STOREFRONT_PATH = /^\/(api\/v2\/storefront\/(cart|checkout|account)|store_oauth\/)/;

/**
 * `rounds` navigations per condition to `server`'s shop page, its other-origin image from
 * `otherOrigin`; the document times per condition, and the fetch events the worker received.
 */
export async function measureNavigation(browser, server, otherOrigin, rounds) {
  const url = `${server.url}/shop/index.html?other=${encodeURIComponent(otherOrigin)}`;
  const bench = `${server.url}/bench.html`;
  const contexts = {};
  for (const key of Object.keys(NAVIGATION_CONDITIONS)) {
    contexts[key] = await openContext(browser, bench);
    if (key !== 'none') await evaluate(contexts[key].page, () => window.bench.loadDropIn({}));
    // One load first, so that each context's HTTP cache and connections are in the same state.
    await open(contexts[key].page, url);
  }
  const times = Object.fromEntries(Object.keys(contexts).map((key) => [key, []]));
  const keys = Object.keys(contexts);
  for (let r = 0; r < rounds; r++) {
    for (const key of rotate(keys, r % keys.length)) {
      if (key === 'stopped') {
        await contexts[key].stopWorkers();
        await sleep(20);
      }
      times[key].push(await open(contexts[key].page, url));
    }
  }
  for (const { context } of Object.values(contexts)) await context.close();
  return { url: '/shop/index.html', times, fetchEvents: await countFetchEvents(browser, server, url, rounds) };
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
