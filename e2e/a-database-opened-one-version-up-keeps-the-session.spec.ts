/**
 * Any script of the origin can open the `storefront-auth` database at a higher version (a devtools
 * snippet, a storage library probing it, a bug). Without storefront-auth's schema marker that is not a
 * newer release, so the worker must not retire: it keeps storing what it learns (a new cart, a
 * rotated pair), and what it stores still survives the browser stopping it.
 */
import type { Page } from '@playwright/test';
import { expect, login, openShop, pageFetch, recordedEvents, stopServiceWorkers, test, waitForExpiry } from './support.js';

/** Opens `storefront-auth` one version up from the page, with an empty upgrade, closes it; the new version. */
function bumpDatabaseVersion(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const current = (await indexedDB.databases()).find((database) => database.name === 'storefront-auth')?.version;
    if (current === undefined) throw new Error('The storefront-auth database does not exist yet.');
    return new Promise<number>((resolve, reject) => {
      const request = indexedDB.open('storefront-auth', current + 1);
      request.onupgradeneeded = () => {};
      request.onsuccess = () => {
        const version = request.result.version;
        request.result.close();
        resolve(version);
      };
      request.onerror = () => reject(request.error);
    });
  });
}

function storageVersion(page: Page): Promise<number | undefined> {
  return page.evaluate(async () => (await indexedDB.databases()).find((database) => database.name === 'storefront-auth')?.version);
}

test('after another script opens the database one version up, a new cart is still stored and survives a stopped worker', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const first = await page.evaluate(() => window.storefrontAuth.createCart());
  const before = await storageVersion(page);

  expect(await bumpDatabaseVersion(page)).toBe((before ?? 0) + 1);

  const second = await page.evaluate(() => window.storefrontAuth.createCart());
  expect(second.cart?.number).toBeDefined();
  expect(second.cart?.number).not.toBe(first.cart?.number);

  // A fresh worker can only know the new cart from storage.
  await stopServiceWorkers(page);
  expect((await page.evaluate(() => window.storefrontAuth.getState())).cart).toEqual(second.cart);
  const cart = await pageFetch(page, '/api/v2/storefront/cart');
  expect(cart.status).toBe(200);
  expect(JSON.parse(cart.body).data.attributes.number).toBe(second.cart?.number);
  expect((await recordedEvents(page)).filter((event) => event.type === 'storageunavailable'), 'storage kept working').toEqual([]);
});

test.describe('signed in with a 2 s access token', () => {
  test.use({ storefrontOptions: { accessTokenLifetime: 2 } });

  test('after another script opens the database one version up, an expired session is still refreshed', async ({ context, storefront }) => {
    const page = await openShop(context, storefront);
    const signedIn = await login(page, storefront.user);
    const before = await storageVersion(page);
    expect(await bumpDatabaseVersion(page)).toBe((before ?? 0) + 1);
    await waitForExpiry(page);
    storefront.clearLog();

    expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
    expect(storefront.stats()).toMatchObject({ refreshGrants: 1, invalidGrants: 0 });
    const state = await page.evaluate(() => window.storefrontAuth.getState());
    expect(state.signedIn).toBe(true);
    expect(state.accessTokenExpiresAt).toBeGreaterThan(signedIn.accessTokenExpiresAt ?? 0);
    expect((await recordedEvents(page)).filter((event) => event.type !== 'change'), 'no storageunavailable, no sessionexpired').toEqual([]);
  });
});
