// The README's and docs/' snippets as a user pastes them (freshProjects.ts): each project is made
// afresh from the docs as they stand (the Vite template, the documented commands, the documented
// files, whole), built with its own `npm run build` (tsc, then vite build), and driven in Chromium
// against the reference storefront.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, lastIssuedAccessToken, requestsTo, root, test, type Storefront } from '../support.js';
import { allCodeBlocks, projectFiles, type FreshProjectName } from './docSnippets.js';
import { freshDir, makeFreshProject } from './freshProjects.js';
import { run, seconds } from './workspace.js';

/** The API origin the snippets fall back to: the reference storefront as `npm run storefront` starts it. */
const DOCUMENTED_API = 'http://127.0.0.1:8787';
const CART_API = '/api/v2/storefront/cart';

/**
 * Makes project `name` and runs its `npm run build` with `env`; resolves with its dist/. Every
 * TypeScript file the docs give must be in the program of one of the project's tsconfigs: a tsconfig
 * that leaves a file out passes `tsc` without checking it.
 */
async function makeAndBuild(name: FreshProjectName, env: Record<string, string>): Promise<string> {
  const start = performance.now();
  const dir = await makeFreshProject(name);
  await run('npm', ['run', 'build'], dir, env);
  const checked = new Set<string>();
  for (const tsconfig of readdirSync(dir).filter((file) => /^tsconfig(\.\w+)?\.json$/.test(file))) {
    const listed = await run(join(dir, 'node_modules/.bin/tsc'), ['-p', tsconfig, '--listFilesOnly'], dir);
    for (const file of listed.split('\n')) checked.add(relative(dir, file.trim()));
  }
  const unchecked = [...projectFiles(allCodeBlocks(root), name).keys()].filter((path) => /\.tsx?$/.test(path) && !checked.has(path));
  expect(unchecked, 'files no tsconfig of the project type-checks').toEqual([]);
  console.log(`[examples] docs' ${name}: made and built in ${seconds(start)}`);
  return join(dir, 'dist');
}

/** Resolves once the page is controlled by a service worker. */
async function controlled(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), { message: 'the page is controlled' }).toBe(true);
}

/**
 * The shop page the snippets share: a sign-in form, an `#add` button and an `<output>`. A guest's
 * `add_item` carries the real order token; a wrong password says `wrongPassword`; signed in, the
 * next `add_item` carries the bearer the storefront issued.
 */
async function driveShopPage(page: Page, url: string, storefront: Storefront, wrongPassword: string): Promise<void> {
  await controlled(page, url);
  await page.locator('#add').click();
  await expect.poll(() => requestsTo(storefront, 'POST', `${CART_API}/add_item`).length, { message: 'the item is added' }).toBe(1);
  const [cart, ...others] = [...storefront.carts.values()];
  expect(others).toEqual([]);
  const [guest] = requestsTo(storefront, 'POST', `${CART_API}/add_item`);
  expect(guest?.headers.orderToken, 'the guest cart call carries the real order token').toBe(cart?.token);
  expect(guest?.headers.authorization).toBeUndefined();
  expect(guest?.status).toBe(200);

  const form = page.locator('form');
  await form.locator('[name=username]').fill(storefront.user.username);
  await form.locator('[name=password]').fill(`${storefront.user.password}-wrong`);
  await form.locator('button').click();
  await expect(page.locator('output'), 'a wrong password is told apart').toHaveText(wrongPassword);
  await form.locator('[name=password]').fill(storefront.user.password);
  await form.locator('button').click();
  await expect(page.locator('output'), 'signed in').toContainText('"signedIn":true');

  await page.locator('#add').click();
  await expect.poll(() => requestsTo(storefront, 'POST', `${CART_API}/add_item`).length, { message: 'the second item is added' }).toBe(2);
  const signedIn = requestsTo(storefront, 'POST', `${CART_API}/add_item`)[1];
  expect(signedIn?.headers.authorization, 'signed in, the cart call carries the bearer').toBe(`Bearer ${lastIssuedAccessToken(storefront)}`);
  expect(signedIn?.status).toBe(200);
}

test.describe('the static site (README)', () => {
  test.use({ storefrontOptions: { static: [{ prefix: '/', dir: join(freshDir('static-site'), 'site') }] } });

  test('the script tag page, the scripts copied by cp and by the Node script: guest cart, sign-in, the bearer', async ({ page, storefront }) => {
    const dir = await makeFreshProject('static-site');
    // The one edit the README asks for: the API's origin.
    const index = join(dir, 'site/index.html');
    writeFileSync(index, readFileSync(index, 'utf8').replaceAll(DOCUMENTED_API, storefront.url));
    for (const script of ['storefront-auth.js', 'storefront-auth-sw.js', 'storefront-auth-sw.debug.js']) {
      expect(readFileSync(join(dir, 'site', script)).equals(readFileSync(join(root, 'dist', script))), `site/${script} is the packed one`).toBe(true);
    }
    await driveShopPage(page, `${storefront.url}/`, storefront, 'invalid_grant');
  });
});

for (const name of ['vite-pwa', 'serwist', 'drop-in-ts'] as const) {
  test.describe(`${name} (docs/recipes.md)`, () => {
    test.use({ storefrontOptions: { static: [{ prefix: '/', dir: join(freshDir(name), 'dist') }] } });

    test(`${name}: built from the docs, guest cart, sign-in, the bearer`, async ({ page, storefront }) => {
      await makeAndBuild(name, { VITE_STOREFRONT_URL: storefront.url });
      await driveShopPage(page, `${storefront.url}/`, storefront, 'Wrong email or password');
    });
  });
}

test.describe('the ES module bridge (README)', () => {
  test.use({ storefrontOptions: { static: [{ prefix: '/', dir: join(freshDir('bridge'), 'dist') }] } });

  test('the bridge with the prebuilt worker: a guest cart, read with plain fetch', async ({ page, storefront }) => {
    await makeAndBuild('bridge', { VITE_STOREFRONT_URL: storefront.url });
    await controlled(page, `${storefront.url}/`);
    await expect(page.locator('body')).toContainText('cart: 200');
    const [cart] = [...storefront.carts.values()];
    expect(requestsTo(storefront, 'GET', CART_API).map((request) => request.headers.orderToken)).toEqual([cart?.token]);
  });
});

test.describe('React (README)', () => {
  test.use({ storefrontOptions: { static: [{ prefix: '/', dir: join(freshDir('react'), 'dist') }] } });

  test("a react-ts project with the README's src/main.tsx: the provider registers the worker, the hook's state and methods drive guest cart, sign-in, the bearer", async ({ page, storefront }) => {
    await makeAndBuild('react', { VITE_STOREFRONT_URL: storefront.url });
    await driveShopPage(page, `${storefront.url}/`, storefront, 'Wrong email or password');
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`${storefront.url}/storefront-auth-sw.js?base=${encodeURIComponent(storefront.url)}&preset=store`);
  });
});

test.describe('offline cart writes (docs/recipes.md)', () => {
  test.use({ storefrontOptions: { static: [{ prefix: '/', dir: join(freshDir('offline'), 'dist') }] } });

  test('the page with offlineWrites: an add made offline is answered 202, told by writequeued, and applied once by writesettled', async ({ context, page, storefront }) => {
    await makeAndBuild('offline', { VITE_STOREFRONT_URL: storefront.url });
    await controlled(page, `${storefront.url}/`);
    expect(new URL(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? '')).searchParams.get('offline'), 'the worker runs with offline=1').toBe('1');
    const output = page.locator('output');
    await page.locator('#add').click();
    await expect(output, 'online, added at once').toHaveText('Added.');

    await context.setOffline(true);
    await page.locator('#add').click();
    await expect(output, 'offline: kept, and writequeued says so').toHaveText("No network: it will be added when you're back online.");
    expect(requestsTo(storefront, 'POST', `${CART_API}/add_item`), 'nothing left while offline').toHaveLength(1);

    await context.setOffline(false);
    // The first replay may find the worker's network still down (Playwright takes the page online
    // first); that attempt waits its 5 s back-off.
    await expect(output, 'back online: writesettled says applied').toHaveText('Added.', { timeout: 15_000 });
    const [cart, ...others] = [...storefront.carts.values()];
    expect(others).toEqual([]);
    const sent = requestsTo(storefront, 'POST', `${CART_API}/add_item`);
    expect(sent.map((request) => [request.status, request.headers.orderToken]), 'the kept write sent once, with the real order token').toEqual([
      [200, cart?.token],
      [200, cart?.token],
    ]);
  });
});

test.describe('the Spree SDK (docs/recipes.md)', () => {
  test.use({ storefrontOptions: { flavour: 'spree', static: [{ prefix: '/', dir: join(freshDir('spree-sdk'), 'dist') }] } });

  test('the SDK on the bridge: its cart and its own password grant, the placeholders swapped', async ({ page, storefront }) => {
    await makeAndBuild('spree-sdk', { VITE_STOREFRONT_URL: storefront.url });
    await driveShopPage(page, `${storefront.url}/`, storefront, 'Wrong email or password');
    expect(requestsTo(storefront, 'POST', '/spree_oauth/token').map((grant) => grant.status)).toEqual([400, 200]);
  });
});

/** `npm run storefront -- …` in the repository, as the README starts it; resolves with its URL. */
function startStorefrontCommand(args: readonly string[]): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn('npm', ['run', 'storefront', '--', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.pid === undefined) return resolve();
      child.once('exit', () => resolve());
      process.kill(-child.pid, 'SIGTERM');
    });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => void close().then(() => reject(new Error(`npm run storefront did not start in 30 s:\n${output}`))), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve({ url, close });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run storefront exited (${String(code)}):\n${output}`));
    });
  });
}

test("Spree 5's Store API (the README): a fresh Vite project with the snippet, against npm run storefront -- --flavour spree-v3", async ({ page }) => {
  const dist = join(freshDir('spree-v3'), 'dist');
  const storefront = await startStorefrontCommand(['--flavour', 'spree-v3', '--port', '0', '--static', dist]);
  try {
    await makeAndBuild('spree-v3', { VITE_SPREE_URL: storefront.url });
    const recent = async () => ((await (await fetch(`${storefront.url}/__control/requests`)).json()) as { requests: Array<{ method: string; path: string; headers: string[] }> }).requests;
    const items = async () => (await recent()).filter((request) => request.method === 'POST' && /^\/api\/v3\/store\/carts\/cart_\w+\/items$/.test(request.path));
    await controlled(page, `${storefront.url}/`);

    await page.locator('#add').click();
    await expect(page.locator('output')).toHaveText(/^added to cart R\d+/);
    const number = (await page.locator('output').textContent())?.replace('added to cart ', '');
    expect((await items()).map((request) => request.headers), "the guest's item call carries the cart token").toEqual([['x-spree-token']]);

    // After a reload the page holds no cart; the next item goes to the one the worker holds, not a new one.
    await page.reload();
    await page.locator('#add').click();
    await expect(page.locator('output'), 'the item goes to the cart held before the reload').toHaveText(`added to cart ${String(number)}`);
    expect((await recent()).filter((request) => request.method === 'POST' && request.path === '/api/v3/store/carts'), 'no second cart is created').toHaveLength(1);

    const form = page.locator('form');
    await form.locator('[name=username]').fill('demo@example.com');
    await form.locator('[name=password]').fill('wrong-password');
    await form.locator('button').click();
    await expect(page.locator('output'), 'a wrong password is told apart').toHaveText('Wrong email or password');
    await form.locator('[name=password]').fill('spree123');
    await form.locator('button').click();
    await expect(page.locator('output'), 'signed in').toContainText('"signedIn":true');

    await page.locator('#add').click();
    await expect(page.locator('output')).toHaveText(`added to cart ${String(number)}`);
    expect((await items()).map((request) => request.headers), 'signed in, both credentials').toEqual([['x-spree-token'], ['x-spree-token'], ['Authorization', 'x-spree-token']]);
    const stats = (await (await fetch(`${storefront.url}/__control/stats`)).json()) as { passwordGrants: number; invalidGrants: number };
    expect(stats).toMatchObject({ passwordGrants: 2, invalidGrants: 1 });
  } finally {
    await storefront.close();
  }
});
