/**
 * A shopper signed in to the demo (`npm run demo`, `npm run demo:v3`) while its server restarts: the
 * reference storefront keeps its tokens in memory, so the restarted one has forgotten the pair the
 * worker still holds. The Storefront API v2 (as Doorkeeper does) takes a bearer it never issued for a
 * guest's: the account answers 403, no 401 comes, so the worker keeps the pair (a 403 is no reason to
 * refresh) and the page says the shop refused the sign-in, not that it cannot be reached. The Store
 * API refuses the JWT signed with the old secret with a 401: the worker refreshes once, the server
 * refuses the forgotten refresh token, and the sign-in ends with `sessionexpired`.
 */
import { existsSync } from 'node:fs';
// @ts-expect-error: the reference storefront is plain JavaScript without declarations.
import { startStorefront as startUntyped } from '../demo/storefront/server.mjs';
import { expect, requestsTo, root, test, type Storefront } from './support.js';

const startStorefront = startUntyped as (options: object) => Promise<Storefront>;

for (const { build, flavour, api } of [
  { build: 'build', flavour: 'store', api: '/api/v2/storefront' },
  { build: 'build-v3', flavour: 'spree-v3', api: '/api/v3/store' },
] as const) {
  const options = { static: [{ prefix: '/', dir: `${root}demo/${build}` }], flavour };

  test(`${flavour}: a sign-in the restarted server forgot is told as the shop's answer, never as "can't be reached"`, async ({ page }) => {
    test.skip(!existsSync(`${root}demo/${build}/sw.js`), `demo/${build}/ is missing: run \`npm run build\` first.`);
    const first = await startStorefront({ port: 0, ...options });
    const port = Number(new URL(first.url).port);
    await page.goto(`${first.url}/#account`);
    await expect(page.locator('#state')).toContainText('"signedIn": false');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('#profile-name')).toContainText('demo@example.com');
    await first.close();

    const restarted = await startStorefront({ port, ...options });
    try {
      await page.reload();
      if (flavour === 'store') {
        // 403 to the forgotten bearer: the worker keeps the pair, the page names the refusal.
        await expect(page.locator('#profile-name')).toHaveText('Your account details cannot be loaded: the shop did not accept your sign-in (it answered 403). Please sign out and sign in again.');
        await expect(page.locator('#orders')).toHaveText('Your orders cannot be loaded: the shop did not accept your sign-in (it answered 403). Please sign out and sign in again.');
        await expect(page.locator('#who')).toHaveText('Signed in');
        expect(requestsTo(restarted, 'GET', `${api}/account`).map((request) => request.status)).toEqual([403]);
        expect(requestsTo(restarted, 'POST', '/store_oauth/token'), 'a 403 causes no refresh').toEqual([]);
        // Signing out and in again, as the page says, works against the restarted server.
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect(page.locator('#profile-name')).toContainText('demo@example.com');
      } else {
        // 401: one refresh, refused, ends the sign-in with the documented event.
        await expect(page.locator('#message')).toHaveText('Your session has ended; please sign in again.');
        await expect(page.locator('#who')).toHaveText('Guest');
        expect(requestsTo(restarted, 'POST', `${api}/auth/refresh`).map((request) => request.status)).toEqual([401]);
        await expect(page.locator('#profile-name')).not.toContainText("can't be reached");
      }
      await expect(page.locator('#api-status')).toBeHidden();
      await expect(page.locator('body')).not.toContainText("can't be reached");
    } finally {
      await restarted.close();
    }
  });
}
