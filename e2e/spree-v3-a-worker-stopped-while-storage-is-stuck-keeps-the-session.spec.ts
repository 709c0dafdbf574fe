/**
 * Spree 5 rotates strictly: a refresh token works once, and only its rotation's `Idempotency-Key`
 * gets the answer replayed. The worker's storage stops answering while it holds the session in
 * memory (another tab asks for a newer version of the database, and a third tab's connection, which
 * ignores `versionchange`, holds that upgrade, so the worker's next open queues behind it). The JWT
 * expires, and a call needs a refresh: its key cannot reach the disk, so no grant goes out. The
 * browser then stops the worker (CDP `ServiceWorker.stopAllWorkers`) before storage answers; once the
 * other tab lets go, the next worker finds the refresh token it left live, refreshes it, and the
 * shopper stays signed in: one rotation, no `sessionexpired`.
 * Before, the grant went out once the key's write had waited its 2 s, with the key in memory alone:
 * Spree rotated, the rotated pair died with the worker, and the next worker's new key got 401
 * `invalid_refresh_token`, which signed the shopper out.
 */
import { expect, holdDatabase, login, recordedEvents, requestsTo, stopServiceWorkers, test, waitForExpiry } from './support.js';
import { openV3Shop, stateOf, V3, V3_STOREFRONT, v3Fetch, v3Stats } from './storeApiV3.js';

test.use({ storefrontOptions: { ...V3_STOREFRONT, accessTokenLifetime: 8 } });

test("a worker stopped while its storage is stuck sends no refresh whose key is not on disk, so the next worker keeps the session", async ({ context, storefront }) => {
  const page = await openV3Shop(context, storefront);
  const signedIn = await login(page, storefront.user);

  // Another tab holds a connection and ignores versionchange (no handler closes it).
  const holder = await holdDatabase(context, storefront);
  // A third tab asks for a newer version: the worker closes its connection, the upgrade stays
  // blocked behind the holder's, and every open the worker makes next queues behind the upgrade.
  const upgrader = await context.newPage();
  await upgrader.goto(`${storefront.url}/site/blank.html`);
  await upgrader.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('storefront-auth', 1_000);
        Object.assign(window, { upgraded: new Promise<void>((done) => open.addEventListener('success', () => (open.result.close(), done()))) });
        open.onblocked = () => resolve();
        open.addEventListener('success', () => reject(new Error('the upgrade was not blocked')));
        open.onerror = () => reject(open.error);
      }),
  );

  await waitForExpiry(page);
  storefront.clearLog();
  const stuck = await v3Fetch(page, '/customers/me').then((result) => result.status, () => 'network error');
  console.log(`the call that needed a refresh while storage was stuck: ${stuck}`);
  expect(requestsTo(storefront, 'POST', `${V3}/auth/refresh`), 'no refresh grant without its key on disk').toHaveLength(0);

  // The browser stops the worker before storage answers; then the other tab lets go.
  await stopServiceWorkers(page);
  await holder.release();
  await upgrader.evaluate(() => (window as unknown as { upgraded: Promise<void> }).upgraded);

  // A new worker starts from IndexedDB, with the refresh token the first one never spent.
  expect((await v3Fetch(page, '/customers/me')).status).toBe(200);
  expect(requestsTo(storefront, 'POST', `${V3}/auth/refresh`)).toHaveLength(1);
  const stats = v3Stats(storefront);
  expect([stats.rotations, stats.refusedRefreshes], 'one rotation, no refusal').toEqual([1, 0]);
  const state = await stateOf(page);
  expect(state.signedIn).toBe(true);
  expect(state.accessTokenExpiresAt).toBeGreaterThan(signedIn.accessTokenExpiresAt ?? 0);
  expect((await recordedEvents(page)).map((event) => event.type)).not.toContain('sessionexpired');
});
