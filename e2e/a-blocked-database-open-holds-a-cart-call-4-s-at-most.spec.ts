/**
 * Storage waits do not add up. As a new user may well do: another tab holds a connection to the
 * worker's database (`storefront-auth`) and ignores `versionchange`; a third tab deletes the
 * database, and the deletion stays pending (blocked) behind that connection; the browser has stopped
 * the worker. The next worker's open queues behind the deletion, so no storage operation settles.
 * The page's `POST /cart` waits once to read (2 s) and once to write the cart it brought (2 s),
 * 4 s in all, however many steps it takes; the server answers at once. The cart is answered from
 * memory meanwhile, and lands in storage once the other tab lets go.
 * On 3ffce34 each step waited its own 2 s (the decision, the load before sending, the cart's write):
 * more than 6 s.
 */
import { cartInStorage, expect, holdDatabase, openShop, realCartToken, requestsTo, stopServiceWorkers, test } from './support.js';

const CART = '/api/v2/storefront/cart';
/** One read's and one write's bound, and room for the worker's start and a loaded machine. */
const AT_MOST_MS = 4_000 + 1_500;

test("a page's new cart waits at most 4 s for storage while another tab's connection blocks a deletion of the database", async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.getState());

  // Another tab holds a connection and ignores versionchange (no handler closes it).
  const holder = await holdDatabase(context, storefront);
  // A third tab deletes the database: blocked behind that connection, it stays pending.
  const deleter = await context.newPage();
  await deleter.goto(`${storefront.url}/site/blank.html`);
  await deleter.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const deletion = indexedDB.deleteDatabase('storefront-auth');
        Object.assign(window, { deleted: new Promise((done) => deletion.addEventListener('success', done)) });
        deletion.onblocked = () => resolve();
        deletion.addEventListener('success', () => reject(new Error('the deletion was not blocked')));
        deletion.onerror = () => reject(deletion.error);
      }),
  );
  await stopServiceWorkers(page);

  storefront.clearLog();
  const started = Date.now();
  const created = await page.evaluate((url) => fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' } }).then(async (response) => ({ status: response.status, body: await response.text() })), CART);
  const elapsed = Date.now() - started;
  console.log(`POST /cart answered after ${elapsed} ms with the database open blocked`);
  expect(created.status).toBe(201);
  expect(requestsTo(storefront, 'POST', CART), 'the server answered once').toHaveLength(1);
  expect(elapsed, `answered after ${elapsed} ms`).toBeLessThan(AT_MOST_MS);

  // Answered from memory meanwhile: the next cart call carries the new cart's token, and waits no more.
  const number = JSON.parse(created.body).data.attributes.number as string;
  const next = Date.now();
  expect(await page.evaluate((url) => fetch(url).then((response) => response.status), CART)).toBe(200);
  expect(requestsTo(storefront, 'GET', CART).at(-1)?.headers.orderToken).toBe(realCartToken(storefront, number));
  expect(Date.now() - next, 'the memory copy answers').toBeLessThan(AT_MOST_MS);

  // The other tab lets go: the deletion goes ahead, then the worker's open, and the cart's write lands.
  await holder.release();
  await deleter.evaluate(() => (window as unknown as { deleted: Promise<unknown> }).deleted);
  await expect
    .poll(() => cartInStorage(deleter, number), { message: 'the cart lands in storage once it frees up', timeout: 20_000 })
    .toBe(true);
});
