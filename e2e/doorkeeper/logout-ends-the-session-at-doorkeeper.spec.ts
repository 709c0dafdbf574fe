import { login, pageFetch, waitForExpiry } from '../support.js';
import { expect, expectNoTokenWorks, openSpreeShop, revocationsAnswered, test } from './support.js';

const ACCOUNT = '/api/v2/storefront/account';

test.describe('with a live access token', () => {
  test('logout revokes the pair: afterwards neither token works at Doorkeeper', async ({ context, doorkeeper }) => {
    const page = await openSpreeShop(context, doorkeeper);
    await login(page, doorkeeper.user);
    expect((await pageFetch(page, ACCOUNT)).status).toBe(200);
    const pairs = await doorkeeper.issuedPairs();
    expect(pairs).toHaveLength(1);

    const signedOut = await page.evaluate(() => window.storefrontAuth.logout());
    expect(signedOut).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
    const revocations = await revocationsAnswered(doorkeeper, 2);
    expect(revocations.map((request) => new URLSearchParams(request.body).get('token')).sort()).toEqual([pairs[0]!.access_token, pairs[0]!.refresh_token].sort());
    expect(revocations.map((request) => request.status)).toEqual([200, 200]);
    expect(await doorkeeper.stats()).toMatchObject({ refreshGrants: 0 });

    await expectNoTokenWorks(doorkeeper, pairs);
    expect((await pageFetch(page, ACCOUNT)).status, 'the page is a guest again').toBe(403);
  });
});

test.describe('after the access token expired', () => {
  test.use({ doorkeeperOptions: { accessTokenLifetime: 2 } });

  test('logout refreshes, uses the new bearer once and revokes the new pair: afterwards no token works at Doorkeeper', async ({ context, doorkeeper }) => {
    const page = await openSpreeShop(context, doorkeeper);
    await login(page, doorkeeper.user);
    await waitForExpiry(page, 300);

    const started = Date.now();
    const signedOut = await page.evaluate(() => window.storefrontAuth.logout());
    expect(Date.now() - started, 'logout does not wait for the revocation').toBeLessThan(2_500);
    expect(signedOut).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
    await revocationsAnswered(doorkeeper, 2);

    // What the worker sent after the logout: a refresh with the expired pair's refresh token, one
    // account call with the new bearer (Doorkeeper then revokes the expired pair), and the new
    // pair's revocation.
    const [expired, fresh, ...more] = await doorkeeper.issuedPairs();
    expect(more).toEqual([]);
    const names = new Map([
      [expired!.refresh_token, 'expired refresh'],
      [fresh!.access_token, 'new access'],
      [fresh!.refresh_token, 'new refresh'],
    ]);
    const labels = (await doorkeeper.requests())
      .filter((request) => request.at >= started)
      .map((request) => {
        const form = new URLSearchParams(request.body);
        const token = form.get('refresh_token') ?? form.get('token') ?? request.headers.authorization?.replace(/^Bearer /, '') ?? '';
        return `${request.method} ${request.path} ${names.get(token) ?? token} ${request.status}`;
      });
    expect(labels.slice(0, 2)).toEqual(['POST /spree_oauth/token expired refresh 200', `GET ${ACCOUNT} new access 200`]);
    // The two revocations go out together, in either order.
    expect(labels.slice(2).sort()).toEqual(['POST /spree_oauth/revoke new access 200', 'POST /spree_oauth/revoke new refresh 200']);

    await expectNoTokenWorks(doorkeeper, [expired!, fresh!]);
  });
});
