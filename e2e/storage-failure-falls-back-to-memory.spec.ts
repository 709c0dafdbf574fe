import { realCartToken, expect, login, openShop, pageFetch, recordedEvents, requestsTo, stopServiceWorkers, test } from './support.js';

const CART = '/api/v2/storefront/cart';
const ACCOUNT = '/api/v2/storefront/account';

test('when IndexedDB cannot be opened the worker keeps working from memory and says so once per run', async ({ context, storefront }) => {
  // A database at a higher version without the worker's store or a storefront-auth schema marker
  // (not a newer release, which would retire the worker instead): the worker opens it as it is, and
  // its first read fails, as real IndexedDB failures do.
  const setup = await context.newPage();
  await setup.goto(`${storefront.url}/site/blank.html`);
  await setup.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('storefront-auth', 99);
        open.onupgradeneeded = () => open.result.createObjectStore('from-a-newer-release');
        open.onsuccess = () => {
          open.result.close();
          resolve();
        };
        open.onerror = () => reject(open.error);
      }),
  );
  await setup.close();

  const warnings: string[] = [];
  context.on('console', (message) => {
    if (message.text().includes('storefront-auth')) warnings.push(message.text());
  });
  const page = await openShop(context, storefront);
  const guest = await page.evaluate(() => window.storefrontAuth.createCart());
  expect(guest.cart).toEqual({ number: expect.any(String) });
  const token = realCartToken(storefront, JSON.parse((await pageFetch(page, CART)).body).data.attributes.number as string);
  expect(requestsTo(storefront, 'GET', CART).at(-1)?.headers.orderToken, 'the memory copy serves requests').toBe(token);

  const signedIn = await login(page, storefront.user);
  expect(signedIn).toMatchObject({ signedIn: true, cart: guest.cart });
  expect((await pageFetch(page, ACCOUNT)).status).toBe(200);

  // Said once, with a clear reason, in the page and in the console; never with a token.
  const unavailable = (await recordedEvents(page)).filter((event) => event.type === 'storageunavailable');
  expect(unavailable).toHaveLength(1);
  expect(unavailable[0]?.detail).toMatchObject({ warning: { code: 'storage_unavailable', message: expect.stringContaining('IndexedDB') } });
  await expect.poll(() => warnings.filter((text) => text.includes('IndexedDB')).length).toBe(1);
  expect(warnings.filter((text) => text.includes(token))).toEqual([]);

  // A second tab shares the worker's memory and hears nothing new.
  const second = await openShop(context, storefront);
  expect(await second.evaluate(() => window.storefrontAuth.getState())).toEqual(signedIn);
  expect(await recordedEvents(second)).toEqual([]);

  // Memory only lasts as long as the worker: after the browser stops it, the shopper is a guest
  // again, and the new run says so again. The newer release's database is left as it was.
  await stopServiceWorkers(page);
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
  await expect.poll(async () => (await recordedEvents(page)).filter((event) => event.type === 'storageunavailable').length).toBe(2);
  const databases = await page.evaluate(() => indexedDB.databases());
  expect(databases).toContainEqual({ name: 'storefront-auth', version: 99 });
});
