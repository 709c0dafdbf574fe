/**
 * Spree 5's Store API rotates strictly: a refresh token works once. The server ends the JWT early,
 * so the worker's call meets a 401 and the worker refreshes (a JWT of a minute, so that the one the
 * rotation brings is still good when a retry gets it replayed); the server commits the rotation and
 * answers 6.5 s later; the engine stops the worker while that answer is on its way, each its own
 * way (`Session.stopServiceWorkers`; Firefox also stops a worker whose event outlasts its idle and
 * extended timeouts, 2 s + 3 s here). The key went to storage with the refresh token before the
 * grant did, so the next worker retries the rotation with the same `Idempotency-Key`, Spree replays
 * it, and the shopper stays signed in: no refusal, no `sessionexpired`. (WebKit stops only a worker
 * no page uses, about 10 s after the last one left, so its worker may live to receive the answer:
 * then there is no retry to make.)
 */
import { v3 } from '../storeApiV3.js';
import { sleep } from './driver.js';
import { expect, inEveryEngine, spreeV3Storefront, test } from './fixtures.js';
import { getState, login, recordedEvents, V3, v3Fetch, v3Headers } from './shop.js';

const ANSWER_DELAY_MS = 6_500;

test.use({ storefrontOptions: spreeV3Storefront({ accessTokenLifetime: 60 }) });

inEveryEngine(() =>
  test('a worker stopped while the refresh answer is on its way leaves its key: the retry is replayed and the session kept', async ({ shop, session, storefront }) => {
    test.setTimeout(90_000);
    const tab = await shop.openV3();
    const signedIn = await login(tab, storefront.user);
    storefront.expireAllAccessTokens();
    storefront.clearLog();
    v3(storefront).delayRefreshAnswers({ ms: ANSWER_DELAY_MS });

    // The call that makes the worker refresh, left in flight (a WebDriver tab runs one script at a time).
    const started = Date.now();
    await tab.evaluate(({ url, headers }) => void fetch(url, { headers }).catch(() => {}), { url: `${V3}/customers/me`, headers: v3Headers(storefront) });
    await expect.poll(() => storefront.stats().rotations, { message: 'the server has rotated' }).toBe(1);
    await session.stopServiceWorkers();
    // Past the answer's time: a worker still running has had it.
    await sleep(Math.max(0, started + ANSWER_DELAY_MS + 1_000 - Date.now()));

    const later = await shop.openV3();
    expect((await v3Fetch(later, storefront, '/customers/me')).status).toBe(200);
    // The refreshes that spent the first refresh token: the lost one, and any retry of it.
    const refreshes = storefront.requests.filter((request) => request.method === 'POST' && request.path === `${V3}/auth/refresh`);
    const [first] = refreshes;
    const retries = refreshes.slice(1).filter((request) => request.refreshToken === first?.refreshToken);
    console.log(`${retries.length === 0 ? 'the worker lived to get the answer' : 'the next worker retried the rotation'} (${session.workerStop})`);
    for (const retry of retries) {
      expect({ key: retry.headers.idempotencyKey, token: retry.refreshToken, replayed: retry.replayed }, 'a retry carries the same key and token, and is replayed').toEqual({
        key: first?.headers.idempotencyKey,
        token: first?.refreshToken,
        replayed: true,
      });
    }
    expect(storefront.stats().refusedRefreshes, 'no refresh was refused').toBe(0);
    const calls = storefront.requests.filter((request) => request.method === 'GET' && request.path === `${V3}/customers/me`);
    expect(calls.at(-1)?.headers.authorization, 'the last call carried the rotated JWT').not.toBe(calls[0]?.headers.authorization);
    const state = await getState(later);
    expect(state.signedIn).toBe(true);
    expect(state.accessTokenExpiresAt).toBeGreaterThanOrEqual(signedIn.accessTokenExpiresAt ?? 0);
    expect((await recordedEvents(later)).map((event) => event.type)).not.toContain('sessionexpired');
  }),
);
