/**
 * A refresh that lands after the shopper logged out (or signed in anew) brings a
 * pair nobody will use; the worker revokes it at the server rather than keep or drop it live.
 * A 401 on an account call starts the refresh while the bearer is still valid (so the logout revokes
 * it plainly, without the refresh-then-revoke of an expired pair); the refresh grant is held up at
 * the server (an override delaying the token path, then handled as usual) while the page logs out or
 * signs in.
 * On 947a503 the late pair stayed live at the server: both tests failed at their `revoked` polls
 * (verified, and likewise on main with the late-pair revocation in sessionRefresher.ts disabled).
 * Since a970119 a login revokes the pair it replaces, so the refresh held up behind a new sign-in is
 * refused at the server and mints no late pair; the second test checks that nothing but the new pair
 * is left live and that the refusal does not end the new sign-in.
 * An expired bearer would not do: the logout's refresh-then-revoke of an expired pair makes and
 * revokes a pair of its own, and the held refresh is then refused.
 */
import { expect, login, openShop, requestsTo, test, type Storefront } from './support.js';

test.use({ storefrontOptions: { flavour: 'spree', revocation: 'all' } });

const TOKEN = '/spree_oauth/token';

/** Signs in and starts an account call answered 401, whose refresh the server holds up for `holdMs`; resolves once the grant has arrived. */
async function refreshHeldUp(page: import('@playwright/test').Page, storefront: Storefront, holdMs: number): Promise<void> {
  await login(page, storefront.user);
  storefront.override('GET', '/api/v2/storefront/account', { status: 401, body: { error: 'The access token expired' } });
  storefront.override('POST', TOKEN, { delayMs: holdMs, passThrough: true });
  await page.evaluate(() => {
    Object.assign(window, { account: fetch('/api/v2/storefront/account').then((response) => response.status, () => 0) });
  });
  await expect.poll(() => storefront.stats().refreshGrants, { message: 'the refresh grant reached the server' }).toBe(1);
}

const pairsByAge = (storefront: Storefront) => [...new Set(storefront.tokens.values())].sort((a, b) => a.createdAt - b.createdAt);

test('a shopper who logs out while a refresh is on its way leaves no live pair at the server', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { preset: 'spree' });
  await refreshHeldUp(page, storefront, 2_000);
  // The logout's own revocations are held up longer, so that they cannot end the refresh's pair for it.
  storefront.override('POST', '/spree_oauth/revoke', { delayMs: 3_500, passThrough: true, times: 2 });
  await page.evaluate(() => window.storefrontAuth.logout());

  await expect.poll(() => requestsTo(storefront, 'POST', TOKEN).at(-1)?.status, { message: 'the refresh was answered 200' }).toBe(200);
  expect(pairsByAge(storefront)).toHaveLength(2);
  await expect.poll(() => pairsByAge(storefront).map((pair) => pair.revoked), { message: 'both the old pair and the late one are revoked', timeout: 15_000 }).toEqual([true, true]);
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ signedIn: false });
  await page.evaluate(() => (window as unknown as { account: Promise<number> }).account);
  expect((await page.evaluate(() => fetch('/api/v2/storefront/account').then((response) => response.status)))).toBe(403);
});

test('a shopper who signs in while a refresh is on its way keeps the new sign-in, and no pair but the new one is left live', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { preset: 'spree' });
  await refreshHeldUp(page, storefront, 2_000);
  await login(page, storefront.user);

  // The login revokes the pair it replaces, so the held refresh, which spends that pair's refresh
  // token, is refused when the server gets to it: no late pair is minted at all.
  await expect.poll(() => requestsTo(storefront, 'POST', TOKEN).map((request) => request.status).sort(), { message: 'both logins answered, the refresh refused' }).toEqual([200, 200, 400]);
  const [replaced, fresh, late] = pairsByAge(storefront);
  expect(late, 'no pair beyond the two logins').toBeUndefined();
  await expect.poll(() => replaced!.revoked, { message: 'the pair the login replaced is revoked', timeout: 10_000 }).toBe(true);
  expect(fresh!.revoked).toBe(false);
  await page.evaluate(() => (window as unknown as { account: Promise<number> }).account);
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ signedIn: true });
  expect(await page.evaluate(() => fetch('/api/v2/storefront/account').then((response) => response.status))).toBe(200);
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/account').at(-1)?.headers.authorization, 'the new sign-in stands').toBe(`Bearer ${fresh!.accessToken}`);
});
