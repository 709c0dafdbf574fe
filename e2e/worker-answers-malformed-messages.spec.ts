import { expect, openShop, pageFetch, test } from './support.js';

test('malformed messages get an error reply or none, and the worker keeps serving', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const before = await page.evaluate(() => window.storefrontAuth.createCart());
  const baseUrl = storefront.url;

  const replies = await page.evaluate(async (baseUrl) => {
    const ask = (message: unknown) =>
      new Promise<unknown>((resolve) => {
        const channel = new MessageChannel();
        const timer = setTimeout(() => resolve('no reply'), 1_000);
        channel.port1.onmessage = (event) => {
          clearTimeout(timer);
          resolve(event.data);
        };
        navigator.serviceWorker.controller!.postMessage(message, [channel.port2]);
      });
    const envelope = { tag: 'storefront-auth', v: 1, baseUrl };
    return {
      version: await ask({ ...envelope, v: 99, type: 'getState' }),
      unknownType: await ask({ ...envelope, type: 'stealTokens' }),
      // A BigInt has no JSON form: naming it in the error once threw inside the worker, and no reply came.
      bigIntType: await ask({ ...envelope, type: 10n }),
      bigIntVersion: await ask({ ...envelope, v: 2n, type: 'getState' }),
      objectType: await ask({ ...envelope, type: { toString: 'x' } }),
      noPassword: await ask({ ...envelope, type: 'login', username: 'demo@example.com' }),
      numberPassword: await ask({ ...envelope, type: 'login', username: 'demo@example.com', password: 12345 }),
      noBase: await ask({ tag: 'storefront-auth', v: 1, type: 'getState' }),
      otherBase: await ask({ ...envelope, baseUrl: 'https://elsewhere.example', type: 'getState' }),
      notOurs: await ask({ type: 'SKIP_WAITING' }),
      garbage: await ask('hello'),
      nothing: await ask(null),
    };
  }, baseUrl);

  const error = (code: string) => ({ tag: 'storefront-auth', v: 1, ok: false, error: expect.objectContaining({ code }) });
  expect(replies.version).toEqual(error('invalid_request'));
  expect(JSON.stringify(replies.version)).toContain('99');
  expect(replies.unknownType).toEqual(error('invalid_request'));
  expect(replies.bigIntType).toEqual(error('invalid_request'));
  expect(replies.bigIntVersion).toEqual(error('invalid_request'));
  expect(replies.objectType).toEqual(error('invalid_request'));
  expect(replies.noPassword).toEqual(error('invalid_request'));
  expect(replies.numberPassword).toEqual(error('invalid_request'));
  expect(replies.noBase).toEqual(error('invalid_request'));
  // Not ours to answer: another base's worker, or an app's own messages, may share this worker.
  expect(replies.otherBase).toBe('no reply');
  expect(replies.notOurs).toBe('no reply');
  expect(replies.garbage).toBe('no reply');
  expect(replies.nothing).toBe('no reply');
  expect(storefront.stats().tokenRequests).toBe(0);

  // Still serving: the state, the bridge and the header.
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(before);
  expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(200);
});
