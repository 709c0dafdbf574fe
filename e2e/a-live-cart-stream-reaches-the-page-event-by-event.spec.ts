/**
 * A cart path that answers with an event stream that never ends (live cart updates, each event
 * holding the order token, which the server writes in two parts): the page reads each event as it
 * comes, sealed, and can stop whenever it likes; the worker holds back no more than the part of an
 * event that may still hold the token.
 * On 3ffce34, the worker read every answer whole before the page got any of it: an endless stream
 * never reached the page (the check of four events within 3 s fails), and the worker's memory grew.
 */
import { leakedSecrets } from './leaks.js';
import { expect, openShop, realCartToken, requestsTo, test } from './support.js';

const EVENTS = '/api/v2/storefront/cart/events';

test('a shopper’s page reads a live cart stream event by event, each sealed, and stops it', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  const real = realCartToken(storefront, cart?.number);
  // Each event in two writes 100 ms apart, cut inside the token; a new event every 200 ms, forever.
  storefront.override('GET', EVENTS, {
    headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' },
    chunks: [`event: cart\ndata: {"number":"${cart?.number}","token":"${real.slice(0, 6)}`, `${real.slice(6)}","note":"order ${real} changed"}\n\n`],
    everyMs: 100,
    forever: true,
  });
  const read = await page.evaluate(async (url) => {
    const started = performance.now();
    const controller = new AbortController();
    const events: { at: number; data: string }[] = [];
    let text = '';
    let buffered = '';
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 3000));
    const response = await Promise.race([fetch(url, { headers: { Accept: 'text/event-stream' }, signal: controller.signal }), timeout]);
    if (response === 'timeout') {
      controller.abort();
      return { events, text };
    }
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    while (events.length < 4) {
      const chunk = await Promise.race([reader.read(), timeout]);
      if (chunk === 'timeout' || chunk.done) break;
      text += chunk.value;
      buffered += chunk.value;
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        events.push({ at: performance.now() - started, data: buffered.slice(0, end).split('\n').find((line) => line.startsWith('data: '))!.slice(6) });
        buffered = buffered.slice(end + 2);
      }
    }
    controller.abort();
    return { events, text };
  }, EVENTS);
  expect(read.events.length, 'four events within 3 s').toBe(4);
  expect(read.events[0]!.at, 'the first event within 1 s').toBeLessThan(1000);
  for (const event of read.events) expect(JSON.parse(event.data)).toEqual({ number: cart?.number, token: 'sealed:cart', note: 'order sealed:cart changed' });
  expect(leakedSecrets([real], [read.text])).toEqual([]);
  expect(requestsTo(storefront, 'GET', EVENTS).at(-1)?.headers.orderToken, 'the worker sent the real token').toBe(real);
});
