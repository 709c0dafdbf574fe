/**
 * storefront-auth inside an app's own Workbox worker (e2e/workbox-app/sw.js, built by this spec
 * from the built package as an app's bundler would): the app precaches its shell, answers a route
 * of its own and decides its own life cycle; `installStorefrontAuth({ baseUrl, preset, router })`
 * adds credentials to the shop's calls on the app's Router and takes over nothing else.
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { test as base, expect, pageFetch, requestsTo, root } from './support.js';

const SOURCE = `${root}e2e/workbox-app`;
const SHELL = ['index.html', 'app.js'];

/** Builds the app into `dir` (served at /workbox/): the shell, and its worker with the precache list. */
async function buildApp(dir: string, version: string): Promise<void> {
  for (const file of SHELL) copyFileSync(join(SOURCE, file), join(dir, file));
  const manifest = SHELL.map((file) => ({ url: `/workbox/${file}`, revision: createHash('sha256').update(readFileSync(join(dir, file))).digest('hex').slice(0, 16) }));
  await build({
    entryPoints: [join(SOURCE, 'sw.js')],
    outfile: join(dir, 'sw.js'),
    bundle: true,
    format: 'iife',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"', 'self.__WB_MANIFEST': JSON.stringify(manifest), APP_VERSION: JSON.stringify(version) },
  });
}

/** The fixtures plus `appDir`, a fresh folder for the built app, served at /workbox/ (its worker's scope). */
const test = base.extend<{ appDir: string }>({
  appDir: async ({}, use) => {
    const dir = mkdtempSync(join(tmpdir(), 'workbox-app-'));
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
  // dist at the root, for the bridge.
  storefrontOptions: async ({ appDir }, use) => use({ static: [{ prefix: '/workbox/', dir: appDir }, { prefix: '/', dir: `${root}dist` }] }),
});

test.beforeAll(() => {
  if (!existsSync(`${root}dist/sw.js`)) throw new Error('dist/ is missing: run `npm run build` first.');
});

test('an app worker precaches its shell, answers its own route and keeps its life cycle, with storefront-auth on its router', async ({ appDir, context, page, storefront }) => {
  await buildApp(appDir, '1');
  const shell = `${storefront.url}/workbox/`;

  // First visit: the worker installs and activates, and nothing claims the page.
  await page.goto(shell);
  const firstVersion = await page.evaluate(async () => {
    await (window as unknown as { registered: Promise<ServiceWorkerRegistration> }).registered;
    const { active } = await navigator.serviceWorker.ready;
    // A round trip to the activated worker, so that a claim made during activation has landed.
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = (event) => resolve(event.data);
      active?.postMessage({ type: 'GET_VERSION' }, [channel.port2]);
    });
  });
  expect(firstVersion).toBe('1');
  expect(await page.evaluate(() => [navigator.serviceWorker.controller === null, (window as unknown as { controllerChanges: number }).controllerChanges])).toEqual([true, 0]);

  // The next visit is controlled, and the shell comes from the precache, not the server.
  storefront.clearLog();
  await page.reload();
  await expect(page.locator('#status')).toHaveText('The shell script ran.');
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  const shellFiles = ['/workbox/', '/workbox/index.html', '/workbox/app.js'];
  expect(storefront.requests.filter((request) => shellFiles.includes(request.path)), 'the shell from the precache').toEqual([]);

  // storefront-auth's routes: the cart token on cart calls, the bearer once signed in, products untouched.
  // Products are left to the app's own API route, which marks its answers; cart calls are not.
  await connectBridge(page);
  await page.evaluate(() => window.storefrontAuth.createCart());
  expect(await answeredBy(page, '/api/v2/storefront/cart')).toEqual({ status: 200, answeredBy: null });
  expect(await answeredBy(page, '/api/v2/storefront/products')).toEqual({ status: 200, answeredBy: 'app' });
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken).toBeTruthy();
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/products').at(-1)?.headers).toMatchObject({ authorization: undefined, orderToken: undefined });
  await page.evaluate((user) => window.storefrontAuth.login(user), storefront.user);
  expect(await answeredBy(page, '/api/v2/storefront/account')).toEqual({ status: 200, answeredBy: null });
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/account').at(-1)?.headers.authorization).toMatch(/^Bearer /);
  expect(await answeredBy(page, '/api/v2/storefront/products')).toEqual({ status: 200, answeredBy: 'app' });
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/products').at(-1)?.headers).toMatchObject({ authorization: undefined, orderToken: undefined });

  // The app's own route is answered by the worker; the server never sees it.
  expect(await pageFetch(page, '/workbox/hello')).toEqual({ status: 200, body: 'hello from the app worker, version 1' });
  expect(requestsTo(storefront, 'GET', '/workbox/hello')).toEqual([]);

  // Offline, the precached shell still loads and runs.
  await context.setOffline(true);
  await page.reload();
  await expect(page.locator('#status')).toHaveText('The shell script ran.');
  await context.setOffline(false);

  // A new version of the app waits: storefront-auth did not call skipWaiting. The app decides.
  await buildApp(appDir, '2');
  await connectBridge(page);
  const waiting = await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration('/workbox/');
    await registration?.update();
    const worker = registration?.installing ?? registration?.waiting;
    if (worker == null) return 'no new worker';
    // A worker that skips waiting moves on from `installed` within milliseconds; give it a second.
    const settled = () => worker.state !== 'installing' && worker.state !== 'installed';
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 1000);
      worker.addEventListener('statechange', () => settled() && (clearTimeout(timer), resolve(undefined)));
    });
    return worker.state;
  });
  expect(waiting, 'the new version waits').toBe('installed');
  expect((await pageFetch(page, '/workbox/hello')).body).toBe('hello from the app worker, version 1');
  await page.evaluate(async () => {
    const changed = new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
    (await navigator.serviceWorker.getRegistration('/workbox/'))?.waiting?.postMessage({ type: 'SKIP_WAITING' });
    await changed;
  });
  expect((await pageFetch(page, '/workbox/hello')).body).toBe('hello from the app worker, version 2');

  // The new version's storefront-auth reads the same session back and keeps serving it.
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ signedIn: true, cart: { number: expect.any(String) } });
  await pageFetch(page, '/api/v2/storefront/cart');
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.authorization).toMatch(/^Bearer /);
});

/** Loads the ES-module bridge (dist/index.js) into the page for the app's own worker, as `window.storefrontAuth`. */
async function connectBridge(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const { StorefrontAuth } = (await import('/index.js' as string)) as typeof import('../src/page/index.js');
    Object.assign(window, { storefrontAuth: await StorefrontAuth.register({ registerWorker: false }) });
  });
}

/** Fetches `url` in the page: its status, and which route of the app's worker answered, if one marked it. */
function answeredBy(page: Page, url: string): Promise<{ status: number; answeredBy: string | null }> {
  return page.evaluate(async (url) => {
    const response = await fetch(url);
    return { status: response.status, answeredBy: response.headers.get('X-Answered-By') };
  }, url);
}

// A hard reload bypasses the app's worker, which (built without `claimPages`) does not claim the page
// when the bridge asks: `register` says so 2 s after asking, where it used to wait 10 s and ask
// whether the page was in scope.
test('after a hard reload, an app worker that claims no pages leaves the page uncontrolled, and register says why within 2 s', async ({ appDir, page, storefront }) => {
  await buildApp(appDir, '1');
  await page.goto(`${storefront.url}/workbox/`);
  await page.evaluate(async () => {
    await (window as unknown as { registered: Promise<ServiceWorkerRegistration> }).registered;
    await navigator.serviceWorker.ready;
  });
  await page.reload();
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);

  const cdp = await page.context().newCDPSession(page);
  await Promise.all([page.waitForEvent('load'), cdp.send('Page.reload', { ignoreCache: true })]);
  const error = await page.evaluate(async () => {
    const { StorefrontAuth } = (await import('/index.js' as string)) as typeof import('../src/page/index.js');
    const startedAt = performance.now();
    try {
      await StorefrontAuth.register({ registerWorker: false });
      return null;
    } catch (caught) {
      const { code, message } = caught as { code: string; message: string };
      return { code, message, ms: performance.now() - startedAt, controlled: navigator.serviceWorker.controller !== null };
    }
  });
  expect(error).toMatchObject({ code: 'no_service_worker', message: expect.stringContaining('hard reload'), controlled: false });
  expect(error!.message).toContain('claimPages: true');
  expect(error!.ms).toBeLessThan(5_000);
});
