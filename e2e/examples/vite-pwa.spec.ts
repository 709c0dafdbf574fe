// examples/vite-pwa (docs/recipes.md, "Your own Workbox worker"): a Vite app whose own Workbox
// worker, built by vite-plugin-pwa with strategies 'injectManifest', composes storefront-auth:
// built and served, and on Vite's dev server (another origin than the storefront's, so its API
// calls are cross-origin).
import type { Page } from '@playwright/test';
import { join } from 'node:path';
import { expect, test } from '../support.js';
import { buildAndDrive, driveCoreFlow } from './coreFlow.js';
import { seconds, startDevServer, workDir } from './workspace.js';

test.use({ storefrontOptions: { static: [{ prefix: '/', dir: join(workDir('vite-pwa'), 'dist') }] } });

/** The page's service worker registrations, by script URL: one, never a second from registerSW.js. */
function registrations(page: Page): Promise<string[]> {
  return page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).map((registration) => registration.active?.scriptURL ?? ''));
}

test('vite build: the app worker with storefront-auth drives guest cart, sign-in, account, logout', async ({ page, storefront }) => {
  await buildAndDrive('vite-pwa', page, storefront);
  expect(await registrations(page)).toEqual([`${storefront.url}/sw.js`]);
});

test('vite dev server: the worker is served as a module at /dev-sw.js?dev-sw and drives the same flow', async ({ page, storefront }) => {
  const start = performance.now();
  const server = await startDevServer('vite-pwa', storefront.url);
  try {
    const started = performance.now();
    await driveCoreFlow(page, `${server.url}/`, storefront);
    expect(await registrations(page)).toEqual([`${server.url}/dev-sw.js?dev-sw`]);
    console.log(`[examples] vite-pwa dev: server up ${seconds(start)}, flow ${seconds(started)}`);
  } finally {
    await server.close();
  }
});
