import { expect, login, requestsTo, test } from './support.js';
import { openV3Shop, stateOf, V3, V3_STOREFRONT, v3, v3Fetch, v3Stats } from './storeApiV3.js';

// 10 s JWTs: a refresh is due in the last second (a tenth of the lifetime) while the JWT still works.
test.use({ storefrontOptions: { ...V3_STOREFRONT, accessTokenLifetime: 10 } });

test('a 429 on a due refresh keeps the session: calls go out with the valid JWT, nothing retries before Retry-After, and the session recovers once the limit lifts', async ({ context, storefront }) => {
  const page = await openV3Shop(context, storefront);
  const signedIn = await login(page, storefront.user);
  const bearer = (): string | undefined => requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.authorization;
  await v3Fetch(page, '/customers/me');
  const first = bearer();

  // Within the last second: due, not expired. Spree turns the refresh away for 7 s.
  await page.waitForTimeout((signedIn.accessTokenExpiresAt ?? 0) - Date.now() - 700);
  v3(storefront).forceRefreshRateLimit({ forMs: 60_000, retryAfter: 7 });
  const during = await v3Fetch(page, '/customers/me');
  expect(during.status, 'the call goes out with the JWT that is still valid').toBe(200);
  expect(bearer()).toBe(first);
  expect(v3Stats(storefront).rateLimited).toBe(1);
  expect(await stateOf(page)).toMatchObject({ signedIn: true });

  // Spree's limit lifts; the worker still waits out the 7 s it was told.
  v3(storefront).forceRefreshRateLimit({ times: 0 });
  for (let i = 0; i < 4; i++) {
    await page.waitForTimeout(1_000);
    await v3Fetch(page, '/customers/me').catch(() => undefined);
  }
  expect(requestsTo(storefront, 'POST', `${V3}/auth/refresh`), 'no refresh within Retry-After').toHaveLength(1);

  await page.waitForTimeout(3_500);
  const after = await v3Fetch(page, '/customers/me');
  expect(after.status).toBe(200);
  const refreshes = requestsTo(storefront, 'POST', `${V3}/auth/refresh`);
  expect(refreshes).toHaveLength(2);
  expect(refreshes[1]?.headers.idempotencyKey, "a 429 is cached under its key: the retry takes a new one").not.toBe(refreshes[0]?.headers.idempotencyKey);
  expect(v3Stats(storefront).rotations).toBe(1);
  expect(bearer()).not.toBe(first);
  expect((await stateOf(page)).accessTokenExpiresAt).toBeGreaterThan(signedIn.accessTokenExpiresAt ?? 0);
});
