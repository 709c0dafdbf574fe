/**
 * The queue's bounds: 50 writes per base URL, each body at most 64 KiB, and only the cart writes the
 * preset names. Beyond them the page gets the network error, as without the option: the 51st write,
 * a 70 KB body, a checkout update, cart creation, an account update.
 */
import { ADD_ITEM, addItem, cartLines, eventDetails, pageWrite, queuedId } from './offlineWrites.js';
import { expect, login, openShop, requestsTo, test } from './support.js';

test('fifty writes are queued and sent once each; the 51st, a 70 KB body and non-cart writes are not queued', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { offlineWrites: '' });
  await page.evaluate(() => window.storefrontAuth.createCart());
  const { cart } = await login(page, storefront.user);
  storefront.clearLog();

  await context.setOffline(true);
  for (let n = 0; n < 50; n++) queuedId(await addItem(page, '1'));
  expect(await addItem(page, '2'), 'the 51st').toBe('network error');
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ pendingWrites: 50 });

  const never = [
    ['a 70 KB body', ADD_ITEM, 'POST', JSON.stringify({ variant_id: '1', quantity: 1, note: 'x'.repeat(70_000) })],
    ['checkout', '/api/v2/storefront/checkout', 'PATCH', JSON.stringify({ order: { email: 'a@b.example' } })],
    ['cart creation', '/api/v2/storefront/cart', 'POST', '{}'],
    ['the account', '/api/v2/storefront/account', 'PATCH', JSON.stringify({ user: { first_name: 'A' } })],
  ] as const;
  for (const [what, path, method, body] of never) expect(await pageWrite(page, path, body, method), what).toBe('network error');
  expect(await eventDetails(page, 'writequeued')).toHaveLength(50);

  await context.setOffline(false);
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState()), { timeout: 20_000 }).toMatchObject({ pendingWrites: 0 });
  expect((await eventDetails(page, 'writesettled')).every((detail) => (detail as { outcome: string }).outcome === 'applied')).toBe(true);
  expect(requestsTo(storefront, 'POST', ADD_ITEM).filter((request) => request.body?.includes('note')), 'the large body never left').toEqual([]);
  expect(requestsTo(storefront, 'POST', ADD_ITEM)).toHaveLength(50);
  expect(cartLines(storefront, cart?.number)).toEqual(['1 × 50']);
  for (const [what, path, method] of never.slice(1)) expect(requestsTo(storefront, method, path), what).toEqual([]);
});
