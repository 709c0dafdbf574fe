/**
 * A kept v2 `add_item` goes only once the server answers a probe (a `HEAD` of the base URL's root,
 * `no-cors`, no credential), since a browser reports the network's return before it carries requests
 * and an add_item whose answer is lost is never sent again. With the API on another origin than the
 * page, that probe must be one a browser sends at all: Chromium refuses, unsent, a no-cors request
 * that does not follow redirects. Here the page is on 127.0.0.1 and the API on localhost.
 */
import { ADD_ITEM, BACK_ONLINE, cartLines, eventDetails, pageWrite, queuedId } from './offlineWrites.js';
import { expect, openShop, realCartToken, requestsTo, test } from './support.js';

test('a v2 add_item made offline reaches an API on another origin once when back online, after a probe a browser sends', async ({ context, storefront }) => {
  const api = `http://localhost:${new URL(storefront.url).port}`;
  const page = await openShop(context, storefront, { offlineWrites: '', baseUrl: api });
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());

  await context.setOffline(true);
  const id = queuedId(await pageWrite(page, `${api}${ADD_ITEM}`, { variant_id: '2', quantity: 1 }));
  storefront.clearLog();
  await context.setOffline(false);

  await expect.poll(() => eventDetails(page, 'writesettled'), BACK_ONLINE).toEqual([{ id, outcome: 'applied', status: 200 }]);
  const sent = requestsTo(storefront, 'POST', ADD_ITEM);
  expect(sent, 'sent once').toHaveLength(1);
  expect(sent[0]?.headers.orderToken).toBe(realCartToken(storefront, cart?.number));
  expect(cartLines(storefront, cart?.number)).toEqual(['2 × 1']);
  const probes = requestsTo(storefront, 'HEAD', '/');
  expect(probes.length, 'the probe reached the server').toBeGreaterThan(0);
  expect(probes.every((probe) => probe.headers.orderToken === undefined && probe.headers.authorization === undefined), 'no credential on a probe').toBe(true);
});
