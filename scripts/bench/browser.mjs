// The bench's browser: Chromium launched as playwright.config.ts launches it, contexts whose workers
// can be stopped over CDP, and the page-side helpers of bench/site/bench.js called from Node.
import { chromium } from '@playwright/test';
import { existsSync } from 'node:fs';

/** The storefront call every condition times, and a public one storefront-auth leaves alone. */
export const CART = '/api/v2/storefront/cart';
export const PRODUCT = '/api/v2/storefront/products/1';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Playwright's own Chromium if installed, else Debian's; CHROMIUM_PATH overrides both. */
export function executablePath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  let own = false;
  try {
    own = existsSync(chromium.executablePath());
  } catch {}
  const debian = '/usr/lib/chromium/chromium';
  return own || !existsSync(debian) ? undefined : debian;
}

export const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launches the bench's Chromium; `extraArgs` after the usual ones. */
export const launch = (extraArgs = []) => chromium.launch({ headless: true, executablePath: executablePath(), args: [...ARGS, ...extraArgs] });

/** A persistent-profile Chromium (IndexedDB on disk, as a shopper's browser has it). */
export const launchPersistent = (userDataDir) => chromium.launchPersistentContext(userDataDir, { headless: true, executablePath: executablePath(), args: ARGS });

/**
 * Follows the running status of the workers `cdp` sees, and stops them all, as the browser does when
 * idle, waiting until they are stopped.
 */
export async function workerStopper(cdp) {
  const running = new Map();
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const version of versions) running.set(version.versionId, version.runningStatus);
  });
  await cdp.send('ServiceWorker.enable');
  const stopWorkers = async function stopWorkers() {
    await cdp.send('ServiceWorker.stopAllWorkers');
    const deadline = Date.now() + 3000;
    while ([...running.values()].some((status) => status !== 'stopped') && Date.now() < deadline) await sleep(5);
    if ([...running.values()].some((status) => status !== 'stopped')) throw new Error('a service worker did not stop within 3 s');
  };
  /** Whether any worker is starting or running now (CDP's running status). */
  stopWorkers.anyAwake = () => [...running.values()].some((status) => status !== 'stopped');
  return stopWorkers;
}

/** A context with one page on `url`, and a CDP session that can stop the context's workers. */
export async function openContext(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  const cdp = await context.newCDPSession(page);
  return { context, page, cdp, stopWorkers: await workerStopper(cdp) };
}

export const evaluate = (page, fn, arg) => page.evaluate(fn, arg);

/** `count` requests one after another from the page; resolves with each one's ms. */
export const sequential = (page, count, init, expected = 200, url = CART) =>
  evaluate(page, ({ count, url, init, expected }) => window.bench.sequential(count, url, init, expected), { count, url, init, expected });

/** `count` requests to `url` one after another from the page; resolves with each one's `{ first, last }` ms (first and last byte of its body). */
export const firstAndLast = (page, count, init, url, expected = 200) =>
  evaluate(page, ({ count, url, init, expected }) => window.bench.firstAndLast(count, url, init, expected), { count, url, init, expected });

/** `total` cart requests from the page, `inFlight` at a time; resolves with the ms they took. */
export const parallel = (page, total, inFlight, init, expected = 200) =>
  evaluate(page, ({ total, inFlight, init, expected, url }) => window.bench.parallel(total, inFlight, url, init, expected), { total, inFlight, init, expected, url: CART });
