import { expect, login, openShop, pageFetch, requestsTo, test } from './support.js';

test('a 401 to a bearer call causes one refresh and one replay, request body included', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await login(page, storefront.user);
  const expiresBefore = (await page.evaluate(() => window.storefrontAuth.getState())).accessTokenExpiresAt;

  // The server ends the access token early (as after a revocation or clock skew); the worker cannot know.
  storefront.expireAllAccessTokens();
  storefront.clearLog();
  const body = JSON.stringify({ user: { first_name: 'Ada', last_name: 'Lovelace' } });
  const answer = await pageFetch(page, '/api/v2/storefront/account', { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body });

  expect(answer.status).toBe(200);
  const patches = requestsTo(storefront, 'PATCH', '/api/v2/storefront/account');
  expect(patches.map((request) => request.body)).toEqual([body, body]);
  expect(patches[0]?.headers.authorization).not.toBe(patches[1]?.headers.authorization);
  expect(storefront.stats().refreshGrants).toBe(1);

  const refresh = requestsTo(storefront, 'POST', '/store_oauth/token')[0];
  expect(new URLSearchParams(refresh?.body).get('grant_type')).toBe('refresh_token');
  const after = await page.evaluate(() => window.storefrontAuth.getState());
  expect(after.signedIn).toBe(true);
  expect(after.accessTokenExpiresAt).toBeGreaterThan(expiresBefore ?? 0);

  // The next call uses the new bearer straight away.
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  expect(storefront.stats().refreshGrants).toBe(1);
});
