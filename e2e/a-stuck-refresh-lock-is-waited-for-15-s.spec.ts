/**
 * The refresh lock is a Web Lock that every context of the origin shares, so any script of the
 * origin can hold it for ever. The worker waits for it at most 15 s (docs/behaviour.md, "Bounds on
 * every wait"), then re-reads storage; nobody rotated the pair, so the refresh counts as failed.
 * With an expired bearer there is nothing to send: the page's fetch fails rather than hang.
 *
 * Only the expired case is testable here: a due bearer that stays valid for the 15 s wait needs a
 * margin over 15 s, so a lifetime of at least 150 s, waited out almost in full.
 */
import { expect, expiredWithRefreshLockHeld, pageFetch, releaseRefreshLock, test } from './support.js';

test.use({ storefrontOptions: { accessTokenLifetime: 2 } });

test('with the refresh lock held for ever by a page, an expired session fails the call after 15 s, and refreshes once the lock is free', async ({ context, storefront }) => {
  test.setTimeout(60_000);
  // A script of the page takes the worker's lock and never lets go (until the test lets it).
  const { page, signedIn } = await expiredWithRefreshLockHeld(context, storefront);

  const stuck = await page.evaluate(async () => {
    const started = performance.now();
    const outcome = await fetch('/api/v2/storefront/account').then(
      (response) => `status ${response.status}`,
      (error: Error) => error.name,
    );
    return { outcome, elapsed: performance.now() - started };
  });
  console.log(`stuck lock: the call ended after ${Math.round(stuck.elapsed)} ms with ${stuck.outcome}`);
  expect(stuck.outcome, 'an expired bearer and no refresh: the fetch fails').toBe('TypeError');
  expect(stuck.elapsed).toBeGreaterThanOrEqual(14_500);
  expect(stuck.elapsed).toBeLessThan(20_000);
  expect(storefront.stats().refreshGrants, 'no refresh without the lock').toBe(0);
  expect((await page.evaluate(() => window.storefrontAuth.getState())).signedIn, 'the pair is kept').toBe(true);

  // The holder lets go; once the back-off after a failure (5 s) has passed, the next call refreshes.
  await releaseRefreshLock(page);
  await page.waitForTimeout(5_100);
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  expect(storefront.stats().refreshGrants).toBe(1);
  const state = await page.evaluate(() => window.storefrontAuth.getState());
  expect(state.signedIn).toBe(true);
  expect(state.accessTokenExpiresAt).toBeGreaterThan(signedIn.accessTokenExpiresAt ?? 0);
});
