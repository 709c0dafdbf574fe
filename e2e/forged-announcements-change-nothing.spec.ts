/**
 * Any script of the origin can post on the announcements' BroadcastChannel. Pages take their events
 * from the worker alone (Client.postMessage), and workers only re-read storage, coalesced, when the
 * channel speaks. So a forged "session expired" changes nothing a shopper sees, and a flood of them
 * does not stall the shopper's requests.
 */
import type { Page } from '@playwright/test';
import { expect, login, openShop, pageFetch, recordedEvents, test } from './support.js';

/** Posts `count` well-formed announcements (shape of src/shared/protocol.ts `Announcement`) on the channel, yielding every 50. */
function forge(page: Page, count: number): Promise<void> {
  return page.evaluate(async (count) => {
    const baseUrl = window.storefrontAuth.baseUrl;
    const channel = new BroadcastChannel(`storefront-auth:${baseUrl}`);
    for (let i = 0; i < count; i++) {
      const signedOut = { signedIn: false, accessTokenExpiresAt: null, cart: null };
      channel.postMessage({ tag: 'storefront-auth', v: 1, type: i % 2 === 0 ? 'sessionexpired' : 'change', baseUrl, id: `forged-${i}`, state: signedOut });
      if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    channel.close();
  }, count);
}

/** Runs `count` cart GETs one after another in the page; their statuses and the time taken. */
function sequentialCartCalls(page: Page, count: number): Promise<{ statuses: number[]; ms: number }> {
  return page.evaluate(async (count) => {
    const started = performance.now();
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await fetch('/api/v2/storefront/cart')).status);
    return { statuses, ms: performance.now() - started };
  }, count);
}

test('a forged session-expired announcement fires no event and signs nobody out', async ({ context, storefront }) => {
  const tabA = await openShop(context, storefront);
  const tabB = await openShop(context, storefront);
  const signedIn = await login(tabA, storefront.user);
  // The sign-in reaches tab B from the worker a moment later; count from after it arrived.
  await expect.poll(async () => (await recordedEvents(tabB)).length).toBe(1);
  const eventsBefore = [(await recordedEvents(tabA)).length, (await recordedEvents(tabB)).length];

  await forge(tabB, 2);
  await tabA.waitForTimeout(1_000);

  expect([(await recordedEvents(tabA)).length, (await recordedEvents(tabB)).length], 'no change, no sessionexpired').toEqual(eventsBefore);
  for (const tab of [tabA, tabB]) expect(await tab.evaluate(() => window.storefrontAuth.getState())).toEqual(signedIn);
  expect((await pageFetch(tabB, '/api/v2/storefront/account')).status).toBe(200);
});

test('a flood of 2,000 forged announcements does not stop 200 cart calls nor change the state', async ({ context, storefront }) => {
  const tabA = await openShop(context, storefront);
  const tabB = await openShop(context, storefront);
  await login(tabA, storefront.user);
  const withCart = await tabA.evaluate(() => window.storefrontAuth.createCart());
  await expect.poll(async () => (await recordedEvents(tabB)).length).toBe(2);
  const eventsBefore = [(await recordedEvents(tabA)).length, (await recordedEvents(tabB)).length];

  // Without the flood first, for comparison.
  const quiet = await sequentialCartCalls(tabA, 200);
  expect(quiet.statuses).toEqual(Array(200).fill(200));

  // Tab A's calls run while tab B floods the channel.
  await tabA.evaluate(() => {
    const started = performance.now();
    const run = (async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 200; i++) statuses.push((await fetch('/api/v2/storefront/cart')).status);
      return { statuses, ms: performance.now() - started };
    })();
    Object.assign(window, { flooded: run });
  });
  const floodStarted = Date.now();
  await forge(tabB, 2_000);
  const floodMs = Date.now() - floodStarted;
  const flooded = await tabA.evaluate(() => (window as unknown as { flooded: Promise<{ statuses: number[]; ms: number }> }).flooded);

  expect(flooded.statuses).toEqual(Array(200).fill(200));
  // And without it again, as the first run also warmed up the worker and the server.
  const quietAgain = await sequentialCartCalls(tabA, 200);
  expect(quietAgain.statuses).toEqual(Array(200).fill(200));

  // A benchmark prints; it does not assert timings.
  console.log(
    `200 sequential cart GETs: ${Math.round(quiet.ms)} ms and ${Math.round(quietAgain.ms)} ms without a flood, ` +
      `${Math.round(flooded.ms)} ms with 2,000 forged announcements (posted in ${floodMs} ms)`,
  );

  await tabA.waitForTimeout(1_000);
  expect([(await recordedEvents(tabA)).length, (await recordedEvents(tabB)).length], 'no change, no sessionexpired').toEqual(eventsBefore);
  for (const tab of [tabA, tabB]) expect(await tab.evaluate(() => window.storefrontAuth.getState())).toEqual(withCart);
  expect((await pageFetch(tabA, '/api/v2/storefront/account')).status).toBe(200);
});
