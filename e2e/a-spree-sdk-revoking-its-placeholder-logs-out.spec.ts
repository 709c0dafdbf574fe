/**
 * The Spree SDK's `revokeToken` is handed the placeholder the SDK was given
 * (`sealed:access`, or `sealed:refresh`). A page's own revocation is the worker's logout: the real
 * tokens are revoked at the server, the pair is forgotten, and every tab is told.
 * On 947a503, the revoke path was not classified: `token=sealed:access` went out as it was,
 * Doorkeeper answered 200 `{}`, and the worker stayed signed in with a live session (the revoke
 * request's token, `signedIn` in both tabs and the pair's `revoked` flag all fail).
 */
import { sdk } from './spreeSdk.js';
import { expect, lastIssuedAccessToken, openShop, pageFetch, recordedEvents, requestsTo, test, type Storefront } from './support.js';

test.use({ storefrontOptions: { flavour: 'spree', revocation: 'all' } });

const REVOKE = '/spree_oauth/revoke';

function everyPairRevoked(storefront: Storefront): boolean {
  return [...storefront.tokens.values()].every((pair) => pair.revoked);
}

test('a shop on the Spree SDK that revokes the token it was given logs out everywhere', async ({ context, storefront }) => {
  const shop = await openShop(context, storefront, { preset: 'spree' }, '/site/spree.html');
  const other = await openShop(context, storefront, { preset: 'spree' });
  const granted = await sdk(shop, 'authentication', 'getToken', storefront.user);
  expect(granted).toMatchObject({ ok: true, data: { access_token: 'sealed:access' } });
  const access = lastIssuedAccessToken(storefront);
  await expect.poll(() => other.evaluate(() => window.storefrontAuth.getState().then((state) => state.signedIn))).toBe(true);

  const revoked = await sdk(shop, 'authentication', 'revokeToken', { token: 'sealed:access' });
  expect(revoked.ok).toBe(true);

  // The worker answers the page at once and revokes afterwards: revocation never delays a logout.
  await expect.poll(() => everyPairRevoked(storefront), { message: 'the real pair is revoked at the server' }).toBe(true);
  const sent = requestsTo(storefront, 'POST', REVOKE);
  expect(sent.length).toBeGreaterThanOrEqual(1);
  expect(sent.every((request) => !(request.body ?? '').includes('sealed:')), 'no placeholder reaches the server').toBe(true);
  for (const tab of [shop, other]) {
    await expect.poll(() => tab.evaluate(() => window.storefrontAuth.getState().then((state) => state.signedIn))).toBe(false);
    const events = await recordedEvents(tab);
    expect(events.at(-1), 'every tab told').toMatchObject({ type: 'change', detail: { signedIn: false } });
  }
  // The old bearer no longer works, and the worker adds none.
  expect((await pageFetch(other, '/api/v2/storefront/account', { headers: { Authorization: `Bearer ${access}` } })).status).toBe(401);
  expect((await pageFetch(other, '/api/v2/storefront/account')).status).toBe(403);
});

test("a page that posts its own form-encoded revocation of sealed:refresh logs out", async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { preset: 'spree' });
  await page.evaluate((user) => window.storefrontAuth.login(user), storefront.user);
  const answer = await pageFetch(page, REVOKE, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'token=sealed%3Arefresh' });
  expect(answer.status).toBe(200);
  await expect.poll(() => everyPairRevoked(storefront)).toBe(true);
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState().then((state) => state.signedIn))).toBe(false);
  expect(requestsTo(storefront, 'POST', REVOKE).every((request) => !(request.body ?? '').includes('sealed'))).toBe(true);
});
