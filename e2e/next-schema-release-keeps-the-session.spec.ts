/**
 * A release with a new storage schema, taking over from this one while tabs are open and a refresh is
 * in flight. The next release is built by this spec the way it would ship: the worker's source with
 * SCHEMA_VERSION one up, and no other change. The built dist worker is the release it replaces.
 */
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, DEFAULT_MOUNTS, expect, expectOneRotatedSession, fire, login, openShop, recordedEvents, root, settle, waitForExpiry } from './support.js';

const NEXT_WORKER = 'storefront-auth-sw-next.js';

/** Builds the next release's standalone worker into `dir`: this source, with the schema version bumped. */
async function buildNextRelease(dir: string): Promise<void> {
  await build({
    entryPoints: [`${root}src/sw/standalone.ts`],
    outfile: join(dir, NEXT_WORKER),
    bundle: true,
    format: 'iife',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [
      {
        name: 'next-schema-version',
        setup(bundler) {
          bundler.onLoad({ filter: /credentialStorage\.ts$/ }, (args) => {
            const source = readFileSync(args.path, 'utf8');
            const next = source.replace('export const SCHEMA_VERSION = 2;', 'export const SCHEMA_VERSION = 3;');
            if (next === source) throw new Error('SCHEMA_VERSION = 2 not found: update this spec to the current schema version.');
            return { contents: next, loader: 'ts' };
          });
        },
      },
    ],
  });
}

/** The fixtures plus `nextDir`, the next release's worker, served at the root before dist. */
const test = base.extend<{ nextDir: string }>({
  nextDir: async ({}, use) => {
    const dir = mkdtempSync(join(tmpdir(), 'storefront-auth-next-'));
    await buildNextRelease(dir);
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
  storefrontOptions: async ({ nextDir }, use) =>
    use({ rotation: 'strict', accessTokenLifetime: 3, static: [{ prefix: '/', dir: nextDir }, ...DEFAULT_MOUNTS] }),
});

test('a release with the next storage schema upgrades the database in place: the session, the cart and one refresh per expiry', async ({ context, storefront }) => {
  const first = await openShop(context, storefront);
  const second = await openShop(context, storefront);
  await first.evaluate(() => window.storefrontAuth.createCart());
  const signedIn = await login(first, storefront.user);
  const oldScript = await first.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? '');
  expect(await first.evaluate(() => indexedDB.databases())).toContainEqual({ name: 'storefront-auth', version: 2 });
  await waitForExpiry(first);

  // This release starts the refresh, which the server answers slowly, with requests in flight.
  storefront.override('POST', '/store_oauth/token', { delayMs: 1_500, passThrough: true });
  await fire(first, 5, 'before');
  await fire(second, 5, 'before');
  await expect.poll(() => storefront.stats().refreshGrants).toBe(1);

  // Meanwhile the site ships the next release, which takes over both tabs.
  const newScript = oldScript.replace('/storefront-auth-sw.js', `/${NEXT_WORKER}`);
  expect(newScript).not.toBe(oldScript);
  await first.evaluate((script) => navigator.serviceWorker.register(script, { scope: '/' }).then(() => undefined), newScript);
  for (const page of [first, second]) {
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL), { timeout: 15_000 }).toBe(newScript);
  }
  // It upgrades the database only when a request needs it, once it serves the pages: a release
  // that installs and then waits (an app worker without skipWaiting) leaves the database to the
  // release still serving.
  expect(await first.evaluate(() => indexedDB.databases())).toContainEqual({ name: 'storefront-auth', version: 2 });
  await fire(first, 5, 'after');
  await fire(second, 5, 'after');

  const statuses: number[] = [];
  for (const page of [first, second]) statuses.push(...(await settle(page, 'before')), ...(await settle(page, 'after')));
  expect(statuses).toEqual(Array(20).fill(200));

  // The upgrade waited for the rotated pair to be stored, and the next release uses it: one refresh.
  expect(await first.evaluate(() => indexedDB.databases())).toContainEqual({ name: 'storefront-auth', version: 3 });
  expect(storefront.stats()).toMatchObject({ refreshGrants: 1, invalidGrants: 0 });
  await expectOneRotatedSession(storefront, [first, second], signedIn);
  for (const page of [first, second]) {
    expect((await recordedEvents(page)).filter((event) => event.type !== 'change'), 'no storageunavailable, no sessionexpired').toEqual([]);
  }

  // The refresh token on disk is the latest: the next expiry refreshes once more, and strict
  // rotation accepts it.
  await waitForExpiry(first);
  await fire(first, 5, 'later');
  await fire(second, 5, 'later');
  expect([...(await settle(first, 'later')), ...(await settle(second, 'later'))]).toEqual(Array(10).fill(200));
  expect(storefront.stats()).toMatchObject({ refreshGrants: 2, invalidGrants: 0 });
});
