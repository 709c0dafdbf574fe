/**
 * A front that routes as nginx does (../decodingFront.ts): `/store/` is the Storefront API, `/other/`
 * another application of the same origin. Every engine's URL parser keeps `..%2F` as the page wrote
 * it, so a signed-in page's account call with an encoded `../` path looks like an account path under
 * the base; the front decodes it and routes it to `/other/`, which must receive no credential.
 */
import { startDecodingFront } from '../decodingFront.js';
import { lastBearer } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { createCart, login, pageFetch, Shop } from './shop.js';

test.use({ storefrontOptions: { basePath: '/store' } });

inEveryEngine(() =>
  test('an account call whose encoded ../ lands in another application carries no bearer there', async ({ session, storefront }) => {
    const front = await startDecodingFront(storefront.url);
    try {
      // The shop's pages, the worker and the API all live on the front's origin.
      const shop = new Shop(session, { ...storefront, url: front.url });
      const tab = await shop.open({ baseUrl: `${front.url}/store` });
      await createCart(tab);
      await login(tab, storefront.user);
      expect((await pageFetch(tab, '/store/api/v2/storefront/account')).status).toBe(200);
      expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account'), 'the bearer is added through the front').toMatch(/^Bearer \S/);

      const answer = await pageFetch(tab, `/store/api/v2/storefront/account/orders/${encodeURIComponent(`${'../'.repeat(6)}other/collect`)}`);
      expect(answer.body, 'the front routed it to the other application').toBe('{"collected":true}');
      expect(front.collected.map(({ authorization, orderToken }) => ({ authorization, orderToken }))).toEqual([{ authorization: undefined, orderToken: undefined }]);
      expect(await shop.pageErrors(), 'errors in the pages').toEqual([]);
    } finally {
      await front.close();
    }
  }),
);
