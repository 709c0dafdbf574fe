/**
 * An `EventSource` on a cart path whose server sends one event a second for four seconds: the page
 * gets the first event as soon as it is sent, not when the stream ends, sealed.
 * On 3ffce34, the worker read the answer whole first: the first event came after 4 s (the timing
 * check fails).
 */
import { expect, openShop, realCartToken, test } from './support.js';

const UPDATES = '/api/v2/storefront/cart/updates';

test('a streamed cart answer’s first event reaches the page within 1 s, sealed', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  const real = realCartToken(storefront, cart?.number);
  storefront.override('GET', UPDATES, {
    headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' },
    chunks: [0, 1, 2, 3, 4].map((n) => `id: ${n}\ndata: {"n":${n},"token":"${real}"}\n\n`),
    everyMs: 1000,
  });
  const first = await page.evaluate(
    (url) =>
      new Promise<{ ms: number; data: string }>((resolve, reject) => {
        const started = performance.now();
        const source = new EventSource(url);
        source.onmessage = (event) => {
          source.close();
          resolve({ ms: performance.now() - started, data: event.data as string });
        };
        setTimeout(() => (source.close(), reject(new Error('no event within 8 s'))), 8000);
      }),
    UPDATES,
  );
  expect(first.ms, 'the first event within 1 s').toBeLessThan(1000);
  expect(JSON.parse(first.data)).toEqual({ n: 0, token: 'sealed:cart' });
});
