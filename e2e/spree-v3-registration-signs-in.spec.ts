import { expect, requestsTo, test } from './support.js';
import { openV3Shop, stateOf, V3, V3_STOREFRONT, v3, v3Fetch, v3Secrets } from './storeApiV3.js';

test.use({ storefrontOptions: V3_STOREFRONT });

test('a shopper who registers at a Spree 5 shop is signed in by the worker, and a password reset signs in anew; the page reads placeholders', async ({ context, storefront }) => {
  const page = await openV3Shop(context, storefront);
  const email = 'new.shopper@example.com';

  const registered = await v3Fetch(page, '/customers', {
    method: 'POST',
    body: { email, password: 'secret123', password_confirmation: 'secret123', first_name: 'New', last_name: 'Shopper' },
  });
  expect(registered.status).toBe(201);
  expect(registered.json).toMatchObject({ token: 'sealed:access', refresh_token: 'sealed:refresh', user: { email } });
  await expect.poll(async () => (await stateOf(page)).signedIn).toBe(true);

  const me = await v3Fetch(page, '/customers/me');
  expect(me.status).toBe(200);
  expect(me.json).toMatchObject({ email });
  expect(requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.authorization).toMatch(/^Bearer /);

  // A password reset answers with a new pair (and revokes the user's refresh tokens): the worker keeps it.
  const before = requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.authorization;
  const resetToken = v3(storefront).passwordResetToken(email);
  const reset = await v3Fetch(page, `/password_resets/${resetToken}`, { method: 'PATCH', body: { password: 'secret456', password_confirmation: 'secret456' } });
  expect(reset.status).toBe(200);
  expect(reset.json).toMatchObject({ token: 'sealed:access', refresh_token: 'sealed:refresh' });
  await v3Fetch(page, '/customers/me');
  await expect.poll(() => requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.authorization).not.toBe(before);
  expect(v3(storefront).refreshTokens.size, 'the worker holds the one live refresh token').toBe(1);

  for (const secret of v3Secrets(storefront)) {
    expect(registered.body).not.toContain(secret);
    expect(reset.body).not.toContain(secret);
  }
});
