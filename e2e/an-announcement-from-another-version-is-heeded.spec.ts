/**
 * An announcement from a worker of another protocol version (a newer release in
 * another tab, say) still makes the worker re-read storage. Here a page empties the worker's record
 * in IndexedDB, as a logout elsewhere would leave it, and posts a `v: 2` announcement on the channel.
 * On 947a503, the worker ignored any announcement whose `v` was not its own and kept sending the
 * old order token and bearer from memory (the polls for "no credential" time out).
 */
import type { Page } from '@playwright/test';
import { expect, login, openShop, requestsTo, test } from './support.js';

const CART = '/api/v2/storefront/cart';

/** Deletes every record of the worker's store but the schema marker, from the page. */
function eraseStoredState(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('storefront-auth');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const name = db.objectStoreNames[0]!;
    const keys = await new Promise<IDBValidKey[]>((resolve) => {
      const request = db.transaction(name).objectStore(name).getAllKeys();
      request.onsuccess = () => resolve(request.result);
    });
    const erased = keys.filter((key) => key !== '#schema');
    const tx = db.transaction(name, 'readwrite');
    for (const key of erased) tx.objectStore(name).delete(key);
    await new Promise((resolve) => (tx.oncomplete = resolve));
    db.close();
    return erased.length;
  });
}

/** Posts a `change` announcement of protocol version `v` on the worker's channel. */
function announce(page: Page, v: number): Promise<void> {
  return page.evaluate((v) => {
    const baseUrl = window.storefrontAuth.baseUrl;
    const channel = new BroadcastChannel(`storefront-auth:${baseUrl}`);
    channel.postMessage({ tag: 'storefront-auth', v, type: 'change', baseUrl, id: `from-v${v}`, state: { signedIn: false, accessTokenExpiresAt: null, cart: null } });
    channel.close();
  }, v);
}

async function credentialsOnACartCall(page: Page, storefront: Parameters<typeof requestsTo>[0]): Promise<string> {
  await page.evaluate((url) => fetch(url).then((response) => response.status), CART);
  const sent = requestsTo(storefront, 'GET', CART).at(-1);
  return `${sent?.headers.authorization ?? '-'} ${sent?.headers.orderToken ?? '-'}`;
}

test('a worker told by a newer release that the session ended sends no old credential', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  await login(page, storefront.user);
  const before = await credentialsOnACartCall(page, storefront);
  expect(before).toMatch(/^Bearer \S+ /);

  expect(await eraseStoredState(page), 'the record was there').toBeGreaterThan(0);
  // Without an announcement, the worker answers from memory: the old credential still goes out.
  expect(await credentialsOnACartCall(page, storefront)).toBe(before);

  await announce(page, 2);
  await expect.poll(() => credentialsOnACartCall(page, storefront), { message: 'after the re-read, a guest with nothing' }).toBe('- -');
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState())).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
});
