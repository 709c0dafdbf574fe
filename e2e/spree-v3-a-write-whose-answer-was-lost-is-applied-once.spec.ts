/**
 * On Spree 5's Store API, the server applies an add to the cart and the answer is lost. The worker
 * had sent it with an Idempotency-Key of its own (a random UUID v4) and queues it with that key; the
 * replay carries the same key, so Spree replays its first answer instead of adding the item again.
 */
import { expect, openShop, test } from './support.js';
import { V3, v3Requests } from './spreeV3Sdk.js';

const KEY = 'pk_test_storefront_auth';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// A fresh connection per request: Chromium sends a request again by itself when a reused connection
// closes before any answer, which would hide the dropped answer from the worker.
test.use({ storefrontOptions: { flavour: 'spree-v3', keepAlive: false } });

test('a v3 write whose answer was lost after the server applied it is replayed with the same key and applied once', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { preset: 'spree-v3', publishableKey: KEY, offlineWrites: '' });
  const { cart, variant } = await page.evaluate(async ({ V3, KEY }) => {
    const headers = { 'Content-Type': 'application/json', 'X-Spree-Api-Key': KEY };
    const products = (await (await fetch(`${V3}/products`, { headers })).json()) as { data: Array<{ default_variant: { id: string } }> };
    const response = await fetch(`${V3}/carts`, { method: 'POST', headers, body: '{}' });
    return { cart: (await response.json()) as { id: string; number: string }, variant: products.data[0]!.default_variant.id };
  }, { V3, KEY });
  const items = `/carts/${cart.id}/items`;

  storefront.override('POST', `${V3}${items}`, { drop: true, passThrough: true });
  const answer = await page.evaluate(async ({ path, KEY, variant }) => {
    const response = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Spree-Api-Key': KEY, 'x-spree-token': 'sealed:cart' }, body: JSON.stringify({ variant_id: variant, quantity: 2 }) });
    return { status: response.status, body: await response.json() };
  }, { path: `${V3}${items}`, KEY, variant });
  expect(answer).toEqual({ status: 202, body: { queued: true, id: expect.any(String) } });

  // No answer while the browser reported itself online: the replay waits its 5 s back-off.
  await expect.poll(() => page.evaluate(() => (window as unknown as { events: Array<{ type: string; detail: unknown }> }).events.filter((event) => event.type === 'writesettled').map((event) => event.detail)), { timeout: 15_000 }).toEqual([
    { id: answer.body.id, outcome: 'applied', status: 201 },
  ]);
  const sent = v3Requests(storefront, 'POST', items);
  expect(sent.map((request) => [request.dropped === true, request.replayed === true])).toEqual([
    [true, false],
    [false, true],
  ]);
  const [first, replay] = sent;
  expect(first?.headers.idempotencyKey).toMatch(UUID_V4);
  expect(replay?.headers.idempotencyKey).toBe(first?.headers.idempotencyKey);
  expect(replay?.body).toBe(first?.body);
  const order = [...(storefront.carts as unknown as ReadonlyMap<number, { number: string; lineItems: Array<{ quantity: number }> }>).values()].find((candidate) => candidate.number === cart.number);
  expect(order?.lineItems.map((line) => line.quantity), 'applied once').toEqual([2]);
});
