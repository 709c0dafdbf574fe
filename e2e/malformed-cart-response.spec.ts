import { realCartToken, expect, openShop, pageFetch, requestsTo, test } from './support.js';

test('a malformed cart response rejects createCart with bad_response and keeps the previous cart', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const before = await page.evaluate(() => window.storefrontAuth.createCart());
  const token = realCartToken(storefront, JSON.parse((await pageFetch(page, '/api/v2/storefront/cart')).body).data.attributes.number as string);

  const attempt = () =>
    page.evaluate(() =>
      window.storefrontAuth.createCart().then(
        () => null,
        (error: { name: string; code: string; status?: number; message: string }) => ({ name: error.name, code: error.code, status: error.status, message: error.message, recognised: window.isStorefrontAuthError(error) }),
      ),
    );

  storefront.override('POST', '/api/v2/storefront/cart', { status: 502, headers: { 'Content-Type': 'text/html' }, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' });
  const gateway = await attempt();
  expect(gateway).toMatchObject({ name: 'StorefrontAuthError', code: 'bad_response', status: 502, recognised: true });
  expect(gateway?.message).toContain('502');

  storefront.override('POST', '/api/v2/storefront/cart', { status: 201, body: { data: { id: '9', type: 'cart', attributes: { number: 'R000000009' }, relationships: {} } } });
  expect(await attempt()).toMatchObject({ code: 'bad_response', status: 201 });

  storefront.override('POST', '/api/v2/storefront/cart', { status: 201, headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"data": {"attributes": {"tok' });
  expect(await attempt()).toMatchObject({ code: 'bad_response', status: 201 });

  // The previous cart stands, in the state and on the wire.
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(before);
  expect(await page.evaluate(() => (window as unknown as { events: unknown[] }).events.length)).toBe(1);
  await pageFetch(page, '/api/v2/storefront/cart');
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken).toBe(token);
});
