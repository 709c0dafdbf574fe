/**
 * Storage waits are bounded. A script of the origin keeps a readwrite
 * transaction on the worker's IndexedDB store busy for 8 s (a loop of requests, so the transaction
 * never commits); the worker's write of a new cart waits behind it. A read or write not settled in
 * 2 s no longer holds the page: the page's `POST /cart` is answered from memory within 9 s (about 2 s on a quiet machine), and the
 * cart is kept once storage frees up.
 * On 947a503, the page's POST waited for the write, the whole 14 s here (more than 20 s in the review),
 * and the elapsed-time check fails.
 */
import { cartInStorage, expect, openShop, realCartToken, requestsTo, stopServiceWorkers, test } from './support.js';

const CART = '/api/v2/storefront/cart';
const BUSY_MS = 14_000;

test("a page's new cart is answered at once while another script keeps the database busy, and kept after", async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  // The worker has read its state (getState waits for the read); now a readwrite transaction holds the store.
  await page.evaluate(() => window.storefrontAuth.getState());
  await page.evaluate(async (busyMs) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('storefront-auth');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const tx = db.transaction(db.objectStoreNames[0]!, 'readwrite');
    const store = tx.objectStore(db.objectStoreNames[0]!);
    const until = performance.now() + busyMs;
    const spin = () => {
      const request = store.get('#schema');
      request.onsuccess = () => {
        if (performance.now() < until) spin();
      };
    };
    spin();
    Object.assign(window, { busyDone: new Promise((resolve) => (tx.oncomplete = () => resolve(performance.now()))), busyDb: db });
  }, BUSY_MS);

  const started = Date.now();
  const created = await page.evaluate(async () => {
    const response = await fetch('/api/v2/storefront/cart', { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' } });
    return { status: response.status, body: await response.text() };
  });
  const elapsed = Date.now() - started;
  expect(created.status).toBe(201);
  // Measured on main: about 2.1 s, the 2 s storage bound; the database itself frees up at 14 s. The
  // bound leaves room for a loaded CI machine, and stays far below what a wait for storage takes.
  expect(elapsed, `answered after ${elapsed} ms, while the database is busy for ${BUSY_MS} ms`).toBeLessThan(9_000);
  const number = JSON.parse(created.body).data.attributes.number as string;
  const real = realCartToken(storefront, number);

  // Answered from memory meanwhile: the next cart call carries the new cart's token already.
  expect((await page.evaluate(() => fetch('/api/v2/storefront/cart').then((response) => response.status)))).toBe(200);
  expect(requestsTo(storefront, 'GET', CART).at(-1)?.headers.orderToken).toBe(real);

  // Once the transaction ends, the write lands: storage holds the new cart, and a worker started
  // afresh reads it from there. (Waited for in storage first: a worker stopped over CDP before its
  // queued write has run would lose it, as any stopped worker loses unfinished work.)
  await page.evaluate(() => (window as unknown as { busyDone: Promise<number> }).busyDone.then(() => (window as unknown as { busyDb: IDBDatabase }).busyDb.close()));
  await expect
    .poll(() => cartInStorage(page, number), { message: 'the cart is in storage once it frees up', timeout: 20_000 })
    .toBe(true);
  await stopServiceWorkers(page);
  await page.evaluate(() => fetch('/api/v2/storefront/cart').then((response) => response.status));
  expect(requestsTo(storefront, 'GET', CART).at(-1)?.headers.orderToken, 'a restarted worker reads the cart from storage').toBe(real);
  expect(await page.evaluate(() => window.storefrontAuth.getState().then((state) => state.cart?.number))).toBe(number);
});
