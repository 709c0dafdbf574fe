import { issuedTokens, lastBearer, lastIssuedAccessToken, realCartToken } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { createCart, logout, pageFetch } from './shop.js';

inEveryEngine(() =>
  test('the page reads placeholders for the cart and token responses, and a placeholder sent back becomes the real token', async ({ shop, storefront }) => {
    const tab = await shop.open();
    const { cart } = await createCart(tab);
    const cartBody = (await pageFetch(tab, '/api/v2/storefront/cart')).body;
    expect(JSON.parse(cartBody).data.attributes.token).toBe('sealed:cart');
    expect(cartBody).not.toContain(realCartToken(storefront, cart?.number));

    await logout(tab);
    const form = new URLSearchParams({ grant_type: 'password', ...storefront.user }).toString();
    const grant = await pageFetch(tab, '/store_oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form });
    expect(grant.status).toBe(200);
    expect(JSON.parse(grant.body)).toMatchObject({ access_token: 'sealed:access', refresh_token: 'sealed:refresh', token_type: 'Bearer' });

    const account = await pageFetch(tab, '/api/v2/storefront/account', { headers: { Authorization: 'Bearer sealed:access' } });
    expect(account.status).toBe(200);
    expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBe(`Bearer ${lastIssuedAccessToken(storefront)}`);

    const leaked = issuedTokens(storefront).filter((token) => [cartBody, grant.body, account.body].some((body) => body.includes(token)));
    expect(leaked).toEqual([]);
  }),
);
