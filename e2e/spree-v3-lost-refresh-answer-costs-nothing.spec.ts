import { expect, login, pageFetch, requestsTo, test, waitForExpiry } from './support.js';
import { openV3Shop, stateOf, V3, V3_STOREFRONT, v3, v3Stats } from './storeApiV3.js';

test.use({ storefrontOptions: { ...V3_STOREFRONT, accessTokenLifetime: 4 } });

test('a refresh answer lost after Spree rotated costs nothing: the retry carries the same Idempotency-Key and gets the rotation replayed', async ({ context, storefront }) => {
  const page = await openV3Shop(context, storefront);
  await login(page, storefront.user);
  await waitForExpiry(page);
  storefront.clearLog();
  v3(storefront).dropRefreshAnswers(1);

  // The server rotates, then the connection drops before the answer. Chromium retries a request
  // whose reused connection closed before any answer, POST included, and its retry carries the same
  // Idempotency-Key: Spree replays the rotation. Where the browser does not retry, the worker's
  // refresh fails (no valid JWT is left, so the call fails), and its own retry after the 5 s back-off
  // carries the key instead. Either way the rotation is spent once.
  const call = (): Promise<number | string> =>
    page.evaluate((url) => fetch(url, { headers: { 'X-Spree-Api-Key': 'pk_test_storefront_auth' } }).then((r) => r.status, () => 'network error'), `${V3}/customers/me`);
  const first = await call();
  expect([200, 'network error']).toContain(first);
  expect(await stateOf(page)).toMatchObject({ signedIn: true });
  if (first !== 200) {
    await page.waitForTimeout(5_200);
    expect(await call()).toBe(200);
  }
  console.log(`lost refresh answer: ${first === 200 ? "the browser's own retry" : "the worker's retry after its back-off"} was replayed`);

  const refreshes = requestsTo(storefront, 'POST', `${V3}/auth/refresh`);
  expect(refreshes.map((request) => ({ dropped: request.dropped === true, replayed: request.replayed === true }))).toEqual([
    { dropped: true, replayed: false },
    { dropped: false, replayed: true },
  ]);
  expect(refreshes[1]?.headers.idempotencyKey).toBe(refreshes[0]?.headers.idempotencyKey);
  expect(refreshes[1]?.refreshToken).toBe(refreshes[0]?.refreshToken);
  const stats = v3Stats(storefront);
  expect(stats.rotations).toBe(1);
  expect(stats.refusedRefreshes).toBe(0);
  expect(await stateOf(page)).toMatchObject({ signedIn: true });

  // The next rotation is a new one: a new key, the rotated token.
  await waitForExpiry(page);
  expect((await pageFetch(page, `${V3}/customers/me`, { headers: { 'X-Spree-Api-Key': 'pk_test_storefront_auth' } })).status).toBe(200);
  const third = requestsTo(storefront, 'POST', `${V3}/auth/refresh`).at(-1);
  expect(third?.headers.idempotencyKey).not.toBe(refreshes[0]?.headers.idempotencyKey);
  expect(third?.replayed).not.toBe(true);
  expect(v3Stats(storefront).rotations).toBe(2);
});
