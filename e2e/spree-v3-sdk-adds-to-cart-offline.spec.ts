/**
 * A shop on Spree 5's Store API through the official SDK, @spree/sdk 1.2.1, unchanged and with its
 * defaults: offline, `carts.items.create` resolves with the worker's 202 answer (`{ queued, id }`,
 * which the SDK returns as the data of a 202 JSON answer) instead of failing; once the network is
 * back, the worker sends the write with the SDK's own Idempotency-Key and the real cart token, and
 * Spree applies it once.
 */
import { BACK_ONLINE, eventDetails } from './offlineWrites.js';
import { expect, openShop, test } from './support.js';
import { realV3CartToken, v3Requests, v3sdk, type V3Outcome } from './spreeV3Sdk.js';

const KEY = 'pk_test_storefront_auth';
/** The SDK's own keys on every write (sdk-core's `generateIdempotencyKey`). */
const SDK_KEY = /^spree-sdk-retry-[0-9a-f-]{36}$/;

test.use({ storefrontOptions: { flavour: 'spree-v3' } });

function dataOf<T>(outcome: V3Outcome): T {
  expect(outcome, 'the SDK call succeeded').toMatchObject({ ok: true });
  return (outcome as { data: T }).data;
}

test('the SDK adds an item offline, and the worker applies it once with the SDK’s key when back online', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { preset: 'spree-v3', publishableKey: KEY, offlineWrites: '' }, '/site/spree-v3.html');
  const cart = dataOf<{ id: string; number: string }>(await v3sdk(page, 'carts.create'));
  const variant = dataOf<{ data: Array<{ default_variant: { id: string } }> }>(await v3sdk(page, 'products.list')).data[0]!.default_variant.id;

  await context.setOffline(true);
  const queued = dataOf<{ queued: boolean; id: string }>(await v3sdk(page, 'carts.items.create', cart.id, { variant_id: variant, quantity: 2 }, { spreeToken: 'sealed:cart' }));
  expect(queued).toEqual({ queued: true, id: expect.any(String) });
  await expect.poll(() => eventDetails(page, 'writequeued')).toEqual([{ id: queued.id, method: 'POST', path: `/api/v3/store/carts/${cart.id}/items` }]);
  expect(v3Requests(storefront, 'POST', `/carts/${cart.id}/items`)).toEqual([]);

  await context.setOffline(false);
  await expect.poll(() => eventDetails(page, 'writesettled'), BACK_ONLINE).toEqual([{ id: queued.id, outcome: 'applied', status: 201 }]);
  const sent = v3Requests(storefront, 'POST', `/carts/${cart.id}/items`);
  expect(sent, 'sent once').toHaveLength(1);
  expect(sent[0]?.headers).toMatchObject({ apiKey: KEY, orderToken: realV3CartToken(storefront, cart.number), idempotencyKey: expect.stringMatching(SDK_KEY) });
  expect(sent[0]?.headers.authorization).toBeUndefined();
  expect(dataOf(await v3sdk(page, 'carts.get', cart.id, { spreeToken: 'sealed:cart' }))).toMatchObject({ id: cart.id, token: 'sealed:cart', total_quantity: 2 });
});
