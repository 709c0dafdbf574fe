/**
 * A site that gets a setting wrong is told which one, in the message a developer reads (the
 * rejection, the console), from the production worker too:
 * - `data-base-url` pasted with the API path: createCart and login name the URL they requested
 *   (the path twice over) and baseUrl; a Store API that refuses the publishable key, publishableKey;
 * - `data-base-url` without its scheme, and a publishable key left as the build's placeholder:
 *   `invalid_request` at once, before anything registers (the drop-in, the ES bridge and the worker's
 *   own URL alike), where the scheme-less base used to be read as a path on the page's origin;
 * - a page outside the worker's scope (worker served from /js/, `data-scope="/js/"`): rejected at
 *   once, not after the 10 s wait, naming the scope and `Service-Worker-Allowed`, and the console
 *   says the page's calls go out without credentials.
 * On 3ffce34 the first said `/api/v2/storefront/cart: 404`, the scheme-less base and the placeholder
 * key registered a worker, and the page out of scope waited 10 s for "is the page in scope /js/?".
 */
import type { Page } from '@playwright/test';
import { addDropIn, bridgeError, expect, openShop, root, test, type CaughtError, type DropInAttributes } from './support.js';

/** A rejection of `storefrontAuth.ready` as plain values, timed from the drop-in's run; `null` when it resolved. */
type TimedError = CaughtError & { ms: number };

/** Opens the test site, starts collecting console messages, and adds the drop-in's script tag. */
async function loadDropIn(page: Page, origin: string, attributes: DropInAttributes, src = '/storefront-auth.js'): Promise<string[]> {
  const console: string[] = [];
  page.on('console', (message) => console.push(`${message.type()}: ${message.text()}`));
  await page.goto(`${origin}/site/blank.html`);
  await page.evaluate(() => Object.assign(window, { startedAt: performance.now() }));
  if (src === '/storefront-auth.js') await addDropIn(page, attributes);
  else {
    await page.evaluate(
      ({ src, attributes }) =>
        new Promise((resolve, reject) => {
          const script = Object.assign(document.createElement('script'), { src, onload: resolve, onerror: reject });
          Object.assign(script.dataset, attributes);
          document.head.append(script);
        }),
      { src, attributes },
    );
  }
  return console;
}

/** How `ready` ended, timed from before the drop-in loaded. */
function readyOutcome(page: Page): Promise<TimedError | null> {
  return page.evaluate(async () => {
    const { startedAt } = window as unknown as { startedAt: number };
    try {
      await window.storefrontAuth.ready;
      return null;
    } catch (caught) {
      const error = caught as CaughtError;
      return { name: error.name, code: error.code, message: error.message, ms: performance.now() - startedAt };
    }
  });
}

/** The service worker registrations of the page's origin, by scope. */
function registrations(page: Page): Promise<string[]> {
  return page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).map((registration) => registration.scope));
}

/** Long enough for a page and the test runner under load, far below the 10 s a wait for control may take. */
const AT_ONCE_MS = 3_000;

test('a base URL pasted with the API path: createCart and login name the URL they requested and baseUrl', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { baseUrl: `${storefront.url}/api/v2/storefront` });
  const check = "check baseUrl (the server's root, without the API path) and preset.";

  expect(await bridgeError(page, 'createCart')).toEqual({
    name: 'StorefrontAuthError',
    code: 'bad_response',
    status: 404,
    message: `POST ${storefront.url}/api/v2/storefront/api/v2/storefront/cart answered 404; ${check}`,
  });
  const login = await bridgeError(page, 'login', storefront.user);
  expect(login).toMatchObject({ code: 'bad_response', status: 404, message: `POST ${storefront.url}/api/v2/storefront/store_oauth/token answered 404; ${check}` });
  expect(login?.message).not.toContain(storefront.user.password);
  expect(storefront.stats().tokenRequests).toBe(0);
});

test.describe("against the Store API, a publishable key it refuses", () => {
  test.use({ storefrontOptions: { flavour: 'spree-v3' } });

  test('createCart names the URL and publishableKey', async ({ context, storefront }) => {
    const page = await openShop(context, storefront, { preset: 'spree-v3', publishableKey: 'pk_of_another_store' });
    expect(await bridgeError(page, 'createCart')).toEqual({
      name: 'StorefrontAuthError',
      code: 'bad_response',
      status: 401,
      message: `POST ${storefront.url}/api/v3/store/carts answered 401; check publishableKey.`,
    });
  });
});

test('a base URL without its scheme is invalid_request at once, in the drop-in, the ES bridge and the worker, and nothing registers', async ({ page, storefront }) => {
  const hostAndPort = storefront.url.replace(/^https?:\/\//, '');
  const console = await loadDropIn(page, storefront.url, { baseUrl: hostAndPort });
  const refusal = `baseUrl "${hostAndPort}" is not an http:// or https:// URL (nor a path from the site's root, "/…").`;

  const ready = await readyOutcome(page);
  expect(ready).toMatchObject({ name: 'StorefrontAuthError', code: 'invalid_request', message: refusal });
  expect(ready!.ms).toBeLessThan(AT_ONCE_MS);
  expect(await bridgeError(page, 'createCart')).toMatchObject({ code: 'invalid_request', message: refusal });
  // The console names the tag's attribute, as the site wrote it.
  await expect.poll(() => console).toContain(`error: storefront-auth: ${refusal.replace(/^baseUrl/, 'data-base-url')}`);

  const bridge = await page.evaluate((baseUrl) => window.StorefrontAuth.register({ baseUrl }).then(() => null, (error: CaughtError) => ({ code: error.code, message: error.message })), hostAndPort);
  expect(bridge).toEqual({ code: 'invalid_request', message: refusal });

  // The worker's own URL: its script refuses to start, so the registration fails.
  const worker = await page.evaluate((base) => navigator.serviceWorker.register(`/storefront-auth-sw.js?base=${encodeURIComponent(base)}`, { scope: '/site/' }).then(() => 'registered', (error: Error) => error.name), hostAndPort);
  expect(worker).not.toBe('registered');

  expect(await registrations(page)).toEqual([]);
  expect(storefront.requests.filter((request) => request.path.startsWith('/api/'))).toEqual([]);
});

test('a publishable key left as the build placeholder is invalid_request at once, in the drop-in, the ES bridge and the worker, and nothing registers', async ({ page, storefront }) => {
  const placeholder = '%VITE_SPREE_PUBLISHABLE_KEY%';
  const console = await loadDropIn(page, storefront.url, { preset: 'spree-v3', publishableKey: placeholder });
  const refusal = (key: string): string => `publishableKey ${JSON.stringify(key)} is not a key (a placeholder left unfilled, or whitespace); give it the Store API's "pk_…" key.`;

  const ready = await readyOutcome(page);
  expect(ready).toMatchObject({ name: 'StorefrontAuthError', code: 'invalid_request', message: refusal(placeholder) });
  expect(ready!.ms).toBeLessThan(AT_ONCE_MS);
  await expect.poll(() => console).toContain(`error: storefront-auth: ${refusal(placeholder).replace(/^publishableKey/, 'data-publishable-key')}`);

  for (const key of ['${SPREE_PUBLISHABLE_KEY}', 'pk_test storefront_auth']) {
    const bridge = await page.evaluate((publishableKey) => window.StorefrontAuth.register({ preset: 'spree-v3', publishableKey }).then(() => null, (error: CaughtError) => ({ code: error.code, message: error.message })), key);
    expect(bridge).toEqual({ code: 'invalid_request', message: refusal(key) });
  }

  const worker = await page.evaluate((key) => navigator.serviceWorker.register(`/storefront-auth-sw.js?preset=spree-v3&key=${encodeURIComponent(key)}`, { scope: '/site/' }).then(() => 'registered', (error: Error) => error.name), placeholder);
  expect(worker).not.toBe('registered');

  expect(await registrations(page)).toEqual([]);
  expect(storefront.requests.filter((request) => request.path.startsWith('/api/'))).toEqual([]);
});

test.describe('a worker served from /js/', () => {
  // The built files only under /js/, as a site keeping its scripts in one folder serves them.
  test.use({ storefrontOptions: { static: [{ prefix: '/site/', dir: `${root}e2e/site` }, { prefix: '/js/', dir: `${root}dist` }] } });

  test('with data-scope="/js/", a page outside it is told at once, naming the scope and Service-Worker-Allowed, and warned that its calls go without credentials', async ({ page, storefront }) => {
    const console = await loadDropIn(page, storefront.url, { sw: '/js/storefront-auth-sw.js', scope: '/js/' }, '/js/storefront-auth.js');

    const ready = await readyOutcome(page);
    expect(ready).toMatchObject({ name: 'StorefrontAuthError', code: 'no_service_worker' });
    expect(ready!.message).toContain(`This page (${storefront.url}/site/blank.html) is outside the worker's scope ${storefront.url}/js/`);
    expect(ready!.message).toContain('"Service-Worker-Allowed: /"');
    expect(ready!.ms).toBeLessThan(AT_ONCE_MS);
    await expect.poll(() => console.filter((line) => line.startsWith('warning: storefront-auth: This page'))).toEqual([expect.stringContaining('Meanwhile its API calls go out without credentials.')]);
    expect(await registrations(page)).toEqual([]);
  });
});
