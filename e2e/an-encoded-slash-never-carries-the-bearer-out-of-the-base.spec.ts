/**
 * One origin, two applications behind a front that routes as nginx does (decodingFront.ts): `/store/`
 * is the Storefront API (baseUrl `…/store`), `/other/` another application that records what it gets.
 * A signed-in page builds a URL from an order number it got elsewhere:
 * `'/store/api/v2/storefront/account/orders/' + encodeURIComponent('../../../../../../other/collect')`.
 * The browser keeps `..%2F` as it is, so the path looks like an account path under the base; the
 * front decodes it, resolves the dot segments and routes the request to `/other/collect`. The worker
 * adds nothing to such a path and swaps no placeholder in it: it goes out as the page wrote it.
 * On 3ffce34 the collector received `Authorization: Bearer <the real access token>`, and the real
 * cart token for the page's `sealed:cart`.
 */
import { startDecodingFront, type DecodingFront } from './decodingFront.js';
import { expect, issuedTokens, lastBearer, login, openShop, pageFetch, realCartToken, test } from './support.js';

test.use({ storefrontOptions: { basePath: '/store' } });

test('a path under the base that the front decodes into another application gets neither the bearer nor a real token', async ({ context, storefront }) => {
  const front: DecodingFront = await startDecodingFront(storefront.url);
  try {
    const page = await openShop(context, front, { baseUrl: `${front.url}/store` });
    const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
    await login(page, storefront.user);

    // Through the front, a plain account call under the base carries the bearer.
    expect((await pageFetch(page, '/store/api/v2/storefront/account')).status).toBe(200);
    expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account'), 'the worker adds the bearer through the front').toMatch(/^Bearer \S/);

    const outOfBase = encodeURIComponent(`${'../'.repeat(6)}other/collect`);
    const orders = await pageFetch(page, `/store/api/v2/storefront/account/orders/${outOfBase}`);
    expect(orders, 'the front routed the request to the other application').toEqual({ status: 200, body: '{"collected":true}' });
    expect(front.collected).toHaveLength(1);
    expect(front.collected[0]?.authorization, 'the bearer never reaches /other/').toBeUndefined();

    // A cart call with the placeholders the page was given, five levels up and out: they go out unswapped.
    const cartOut = encodeURIComponent(`${'../'.repeat(5)}other/collect`);
    const answer = await pageFetch(page, `/store/api/v2/storefront/cart/${cartOut}?guest_order_token=sealed:cart`, { headers: { 'X-Store-Order-Token': 'sealed:cart' } });
    expect(answer.status).toBe(200);
    expect(front.collected).toHaveLength(2);
    expect(front.collected[1]).toMatchObject({ authorization: undefined, orderToken: 'sealed:cart' });
    expect(front.collected[1]?.url).toContain('guest_order_token=sealed:cart');

    const seen = JSON.stringify(front.collected);
    expect(issuedTokens(storefront).filter((token) => seen.includes(token)), 'no real token reached /other/').toEqual([]);
    expect(seen).not.toContain(realCartToken(storefront, cart?.number));
  } finally {
    await front.close();
  }
});
