/**
 * Spree 5 rotates strictly: a refresh token works once. An 8 s JWT expires; the worker refreshes; the
 * server commits the rotation and answers 3 s later (`delayRefreshAnswers`), and the browser stops
 * the worker while that answer is on its way (CDP `ServiceWorker.stopAllWorkers`), as it does with
 * an idle worker, or as a browser that quits does. The key was stored with the refresh token before
 * the grant went out, so the next worker retries the rotation with the same `Idempotency-Key`, Spree
 * replays it, and the shopper stays signed in: one rotation, no `sessionexpired`.
 * On 3ffce34 the key was stored only after a failure: the next worker sent a new key, Spree answered
 * 401 `invalid_refresh_token`, and the shopper was signed out.
 */
import { expect, login, recordedEvents, requestsTo, stopServiceWorkers, test, waitForExpiry } from './support.js';
import { openV3Shop, stateOf, V3, V3_STOREFRONT, v3, v3Fetch, v3Stats } from './storeApiV3.js';

test.use({ storefrontOptions: { ...V3_STOREFRONT, accessTokenLifetime: 8 } });

test('a worker stopped while the refresh answer is on its way leaves its key: the next worker gets the rotation replayed, and the session is kept', async ({ context, storefront }) => {
  const page = await openV3Shop(context, storefront);
  const signedIn = await login(page, storefront.user);
  await waitForExpiry(page);
  storefront.clearLog();
  v3(storefront).delayRefreshAnswers({ ms: 3_000 });

  const pending = v3Fetch(page, '/customers/me').then((result) => result.status, () => 'network error');
  await expect.poll(() => v3Stats(storefront).rotations, { message: 'the server has rotated' }).toBe(1);
  await stopServiceWorkers(page);
  console.log(`the call in flight when the worker stopped: ${await pending}`);

  // A new worker starts from IndexedDB, with the old refresh token and the key stored beside it.
  expect((await v3Fetch(page, '/customers/me')).status).toBe(200);
  const refreshes = requestsTo(storefront, 'POST', `${V3}/auth/refresh`);
  expect(refreshes).toHaveLength(2);
  expect(refreshes[1]?.refreshToken, 'the same refresh token').toBe(refreshes[0]?.refreshToken);
  expect(refreshes[1]?.headers.idempotencyKey, 'the same Idempotency-Key').toBe(refreshes[0]?.headers.idempotencyKey);
  expect(refreshes[1]?.replayed, 'Spree replays the rotation').toBe(true);
  const stats = v3Stats(storefront);
  expect([stats.rotations, stats.refusedRefreshes], 'one rotation, no refusal').toEqual([1, 0]);

  const state = await stateOf(page);
  expect(state.signedIn).toBe(true);
  expect(state.accessTokenExpiresAt).toBeGreaterThan(signedIn.accessTokenExpiresAt ?? 0);
  expect((await recordedEvents(page)).map((event) => event.type)).not.toContain('sessionexpired');
  // The rotated pair works on: the next rotation is a new one, with a new key.
  await waitForExpiry(page);
  expect((await v3Fetch(page, '/customers/me')).status).toBe(200);
  const third = requestsTo(storefront, 'POST', `${V3}/auth/refresh`).at(-1);
  expect(third?.headers.idempotencyKey).not.toBe(refreshes[0]?.headers.idempotencyKey);
  expect(v3Stats(storefront).rotations).toBe(2);
});
