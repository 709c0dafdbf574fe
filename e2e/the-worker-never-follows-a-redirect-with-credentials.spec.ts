import { bridgeError, expect, login, openShop, recordedEvents, requestsTo, test, waitForExpiry, type LoggedRequest, type Storefront } from './support.js';

// The worker's own requests (grants, cart creation, revocation) carry a password, a refresh token,
// a bearer or a token in their body. Fetch keeps headers and a 307/308 keeps the body across
// origins, so a followed redirect would hand them to whoever the Location names (docs/behaviour.md,
// "What the worker does to requests"). The reference storefront answers as 127.0.0.1 and as
// localhost on the same port: two origins, one request log, told apart by the Host header.

/** The page's origin's host and another origin's host, both served by `storefront`. */
function hosts(storefront: Storefront): { pageHost: string; otherHost: string } {
  const { host, port } = new URL(storefront.url);
  return { pageHost: host, otherHost: `localhost:${port}` };
}

/** Every request that reached the other origin, preflights included: any of them would be a leak. */
function seenAt(storefront: Storefront, host: string): LoggedRequest[] {
  return storefront.requests.filter((request) => request.headers.host === host);
}

test('a sign-in whose token endpoint redirects elsewhere fails with bad_response and sends the password nowhere', async ({ context, storefront }) => {
  const { pageHost, otherHost } = hosts(storefront);
  const page = await openShop(context, storefront);
  const guest = await page.evaluate(() => window.storefrontAuth.createCart());
  const eventsBefore = (await recordedEvents(page)).length;
  storefront.clearLog();
  // Same path at the other origin: a worker that followed would even be signed in there. `times: 2`
  // so a second try would meet the redirect too, and show up in the count below.
  storefront.override('POST', '/store_oauth/token', { status: 307, headers: { Location: `http://${otherHost}/store_oauth/token` }, body: '', times: 2 });

  expect(await bridgeError(page, 'login', storefront.user)).toMatchObject({ name: 'StorefrontAuthError', code: 'bad_response' });

  expect(seenAt(storefront, otherHost), 'nothing at all reached the other origin').toEqual([]);
  const sent = requestsTo(storefront, 'POST', '/store_oauth/token').filter((request) => request.headers.host === pageHost);
  expect(sent.map((request) => request.status), 'the grant was sent once, and met the redirect').toEqual([307]);
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(guest);
  expect((await recordedEvents(page)).length, 'a failed login announces nothing').toBe(eventsBefore);
});

test.describe('with access tokens that live 2 s', () => {
  test.use({ storefrontOptions: { accessTokenLifetime: 2 } });

  test('a refresh whose token endpoint redirects elsewhere fails the request, keeps the session and sends the refresh token nowhere', async ({ context, storefront }) => {
    const { otherHost } = hosts(storefront);
    const page = await openShop(context, storefront);
    const signedIn = await login(page, storefront.user);
    await waitForExpiry(page);
    storefront.clearLog();
    storefront.override('POST', '/store_oauth/token', { status: 308, headers: { Location: `http://${otherHost}/store_oauth/token` }, body: '', times: 2 });

    // The access token has expired, so the request cannot go out with it: a failed refresh is a
    // network error for the page (docs/behaviour.md, "Refresh": a failure without a refusal keeps
    // the pair).
    const outcome = await page.evaluate(() => fetch('/api/v2/storefront/account').then((r) => `status ${r.status}`, (e: Error) => e.name));
    expect(outcome).toBe('TypeError');

    expect(storefront.stats().refreshGrants, 'one refresh grant').toBe(1);
    expect(requestsTo(storefront, 'POST', '/store_oauth/token').map((request) => request.status), 'it met the redirect').toEqual([308]);
    const away = seenAt(storefront, otherHost);
    expect(away.filter((request) => request.body?.includes('refresh_token') === true), 'no refresh token left for the other origin').toEqual([]);
    expect(away, 'nothing at all reached the other origin').toEqual([]);
    expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(signedIn);
  });
});

test('creating a cart that the server redirects elsewhere fails with bad_response, keeps the cart held, and sends no bearer away', async ({ context, storefront }) => {
  const { pageHost, otherHost } = hosts(storefront);
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());

  // As a guest the creation carries nothing; signed in it carries the bearer, which must not leave.
  for (const who of ['guest', 'signed in']) {
    if (who === 'signed in') {
      await login(page, storefront.user);
      // The guest cart's association runs after the login resolves; let it finish first.
      await expect.poll(() => requestsTo(storefront, 'PATCH', '/api/v2/storefront/cart/associate').at(-1)?.status).toBe(200);
    }
    const before = await page.evaluate(() => window.storefrontAuth.getState());
    storefront.clearLog();
    storefront.override('POST', '/api/v2/storefront/cart', { status: 307, headers: { Location: `http://${otherHost}/api/v2/storefront/cart` }, body: '', times: 2 });

    expect(await bridgeError(page, 'createCart'), who).toMatchObject({ name: 'StorefrontAuthError', code: 'bad_response' });

    expect(seenAt(storefront, otherHost), `${who}: nothing at all reached the other origin`).toEqual([]);
    const sent = requestsTo(storefront, 'POST', '/api/v2/storefront/cart').filter((request) => request.headers.host === pageHost);
    expect(sent.map((request) => request.status), `${who}: sent once, and met the redirect`).toEqual([307]);
    expect(await page.evaluate(() => window.storefrontAuth.getState()), `${who}: the previous cart is kept`).toEqual(before);
    storefront.clearOverrides();
  }
});

test.describe('against a Spree server', () => {
  test.use({ storefrontOptions: { flavour: 'spree' } });

  test('logout while the revoke endpoint redirects elsewhere signs out at once and sends no token away', async ({ context, storefront }) => {
    const { pageHost, otherHost } = hosts(storefront);
    const page = await openShop(context, storefront, { preset: 'spree' });
    await login(page, storefront.user);
    storefront.clearLog();
    // Enough answers for a revocation of each token, and a retry of each.
    storefront.override('POST', '/spree_oauth/revoke', { status: 307, headers: { Location: `http://${otherHost}/spree_oauth/revoke` }, body: '', times: 4 });

    const started = Date.now();
    const signedOut = await page.evaluate(() => window.storefrontAuth.logout());
    const took = Date.now() - started;
    test.info().annotations.push({ type: 'logout took', description: `${took} ms` });
    expect(signedOut).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
    // Revocation is best effort in the background: it never delays the logout (docs/behaviour.md,
    // "The page API").
    expect(took, 'logout resolved at once').toBeLessThan(2_000);

    // Wait for the background revocation to meet the redirect, then give a follower time to show up.
    await expect.poll(() => requestsTo(storefront, 'POST', '/spree_oauth/revoke').filter((request) => request.headers.host === pageHost && request.status === 307).length).toBeGreaterThan(0);
    await page.waitForTimeout(1_000);
    expect(seenAt(storefront, otherHost), 'no token reached the other origin').toEqual([]);
    expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(signedOut);
  });
});
