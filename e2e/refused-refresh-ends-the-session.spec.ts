import { expect, lastBearer, login, openShop, pageFetch, recordedEvents, test } from './support.js';

// The default two-hour lifetime: the bearer is not due, so the worker learns of the revocation from a 401.
test.use({ storefrontOptions: { rotation: 'strict' } });

test('a refused refresh after a 401 ends the session in every tab and the page gets the 401', async ({ context, storefront }) => {
  const first = await openShop(context, storefront);
  const second = await openShop(context, storefront);
  await login(first, storefront.user);
  await first.evaluate(() => window.storefrontAuth.createCart());

  storefront.revokeAllTokens();
  const answer = await pageFetch(first, '/api/v2/storefront/account');
  expect(answer.status).toBe(401);
  expect(JSON.parse(answer.body)).toEqual({ error: 'The access token was revoked' });
  expect(storefront.stats().invalidGrants).toBe(1);

  for (const tab of [first, second]) {
    await expect.poll(async () => (await recordedEvents(tab)).filter((event) => event.type === 'sessionexpired').length).toBe(1);
    const expired = (await recordedEvents(tab)).find((event) => event.type === 'sessionexpired');
    expect(expired?.detail).toMatchObject({ signedIn: false, accessTokenExpiresAt: null });
  }
  // The cart stays: only the pair is forgotten.
  expect((await second.evaluate(() => window.storefrontAuth.getState())).cart).not.toBeNull();
  expect((await pageFetch(second, '/api/v2/storefront/account')).status).toBe(403);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBeUndefined();
});
