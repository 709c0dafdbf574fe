// The one way out (docs/behaviour.md, "What the worker does to requests" and "Bounds on every
// wait"), with fake fetch functions that record the Request each call would send:
// - the worker's own requests never follow a redirect, send no cookies, skip the cache, carry the
//   8 s budget, and map every failure to network_error or bad_response without echoing a secret;
// - a page's request never carries the worker's credential through a redirect out of the base URL,
//   and a write is sent exactly once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { networkError, OWN_REQUEST_BUDGET_MS, RETRY_AFTER_MAX_MS, retryAfterMs, sendOwn, sendPage, type FetchFunction, type PageSend } from '../src/sw/outbound.js';
import type { WireRequest } from '../src/sw/dialect.js';
import { opaqueRedirect, redirectedTo, rejectsWith } from './fakes.js';
import { inTimeZone, ZONES } from './timeZone.js';

const BASE = 'https://shop.example/store';
const SECRET = 'hunter2-SECRET';

interface Call {
  request: Request;
  init: RequestInit | undefined;
  /** The body as sent, read at once (the Request's own body can be read only once). */
  body: string;
}

/** A fetch that records each call and answers with `answer(call, index)`. */
function recording(answer: (call: Call, index: number) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fetchFn: FetchFunction = async (input, init) => {
    const request = new Request(input, init);
    const call = { request, init, body: await request.clone().text() };
    calls.push(call);
    return answer(call, calls.length - 1);
  };
  return { fetch: fetchFn, calls };
}


describe('sendOwn', () => {
  const grant: WireRequest = {
    method: 'POST',
    path: '/store_oauth/token',
    label: `The token endpoint ${BASE}/store_oauth/token`,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'shopper@example.com', password: SECRET }),
  };
  /** A request whose query, header and body each hold a secret; its label holds none. */
  const withSecrets: WireRequest = {
    method: 'PATCH',
    path: `/api/v2/storefront/cart/associate?guest_order_token=order-${SECRET}`,
    label: `Assigning guest cart R100 at ${BASE}/api/v2/storefront/cart/associate`,
    headers: { Authorization: `Bearer access-${SECRET}` },
    body: new URLSearchParams({ token: `refresh-${SECRET}` }),
  };

  it("sends redirect 'manual', credentials 'omit', cache 'no-store' and the 8 s budget's signal", async (t) => {
    const timeout = t.mock.method(AbortSignal, 'timeout');
    const endpoint = recording(() => new Response('{"ok":1}', { status: 201 }));
    let clock = 41;
    const reply = await sendOwn(endpoint.fetch, BASE, grant, () => ++clock);

    assert.deepEqual(reply, { status: 201, text: '{"ok":1}', receivedAt: 42, retryAfterMs: null, serverDate: null });
    assert.equal(endpoint.calls.length, 1);
    const [call] = endpoint.calls;
    assert.ok(call !== undefined);
    assert.equal(call.request.url, BASE + grant.path);
    assert.equal(call.request.method, 'POST');
    assert.equal(call.request.redirect, 'manual');
    assert.equal(call.request.credentials, 'omit');
    assert.equal(call.request.cache, 'no-store');
    assert.equal(call.request.headers.get('Content-Type'), 'application/x-www-form-urlencoded');
    assert.equal(call.body, grant.body?.toString());
    assert.equal(OWN_REQUEST_BUDGET_MS, 8_000);
    assert.equal(timeout.mock.callCount(), 1);
    assert.deepEqual(timeout.mock.calls[0]?.arguments, [OWN_REQUEST_BUDGET_MS]);
    assert.ok(call.init?.signal instanceof AbortSignal, 'the request carries a signal');
    assert.equal(call.init?.signal, timeout.mock.calls[0]?.result, "the signal is the budget's");
  });

  it("a request that is part of a bridge action's budget carries that signal, and no budget of its own", async (t) => {
    const timeout = t.mock.method(AbortSignal, 'timeout');
    const budget = new AbortController().signal;
    const endpoint = recording(() => new Response('{}'));
    await sendOwn(endpoint.fetch, BASE, grant, Date.now, { budget });
    assert.equal(timeout.mock.callCount(), 0);
    assert.equal(endpoint.calls[0]?.init?.signal, budget);
  });

  it('sends a GET without a body', async () => {
    const endpoint = recording(() => new Response('{}'));
    await sendOwn(endpoint.fetch, BASE, { method: 'GET', path: '/api/v2/storefront/account', label: 'The account endpoint', headers: {} }, Date.now);
    assert.equal(endpoint.calls[0]?.request.method, 'GET');
    assert.equal(endpoint.calls[0]?.request.redirect, 'manual');
    assert.equal(endpoint.calls[0]?.body, '');
  });

  it('passes every status other than a redirect on to be judged, body included', async () => {
    for (const status of [200, 204, 400, 401, 404, 422, 500, 502]) {
      const body = status === 204 ? null : `{"status":${status}}`;
      const reply = await sendOwn(recording(() => new Response(body, { status })).fetch, BASE, grant, () => 7);
      assert.deepEqual(reply, { status, text: body ?? '', receivedAt: 7, retryAfterMs: null, serverDate: null });
    }
  });

  it('maps a fetch that throws to network_error, naming the label', async () => {
    const failing: FetchFunction = () => Promise.reject(new TypeError('Failed to fetch'));
    const error = await rejectsWith(sendOwn(failing, BASE, withSecrets, Date.now), 'network_error');
    assert.equal(error.status, undefined);
    assert.ok(error.message.includes(withSecrets.label), error.message);
    assert.match(error.message, /could not be reached/);
    assert.ok(!error.message.includes('SECRET'), error.message);
  });

  it('maps a timeout to network_error whose message names the 8 s', async () => {
    for (const name of ['TimeoutError', 'AbortError']) {
      const timedOut: FetchFunction = () => Promise.reject(new DOMException('signal timed out', name));
      const error = await rejectsWith(sendOwn(timedOut, BASE, grant, Date.now), 'network_error');
      assert.match(error.message, /within 8 s/, name);
      assert.ok(!error.message.includes('SECRET'));
    }
  });

  it('maps a body that breaks off while read to network_error', async () => {
    const broken = (): Response => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"data":'));
          controller.error(new TypeError('network error'));
        },
      });
      return new Response(body, { status: 200 });
    };
    await rejectsWith(sendOwn(recording(broken).fetch, BASE, grant, Date.now), 'network_error');
  });

  it('maps an opaqueredirect response to bad_response, never echoing the query, a password or a token', async () => {
    const endpoint = recording(opaqueRedirect);
    for (const request of [grant, withSecrets]) {
      const error = await rejectsWith(sendOwn(endpoint.fetch, BASE, request, Date.now), 'bad_response');
      assert.ok(error.message.includes(request.label), error.message);
      assert.match(error.message, /redirect/);
      assert.ok(!error.message.includes('SECRET'), error.message);
      assert.ok(!error.message.includes('guest_order_token'), error.message);
    }
    assert.equal(endpoint.calls.length, 2, 'each sent once, never followed');
  });

  it('maps a 3xx status to bad_response, never echoing where it pointed or a secret', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      const endpoint = recording(() => new Response(`moved to evil.example ${SECRET}`, { status, headers: { Location: `https://evil.example/?t=${SECRET}` } }));
      const error = await rejectsWith(sendOwn(endpoint.fetch, BASE, withSecrets, Date.now), 'bad_response');
      assert.ok(!error.message.includes('SECRET'), error.message);
      assert.ok(!error.message.includes('evil.example'), error.message);
      assert.ok(!error.message.includes('guest_order_token'), error.message);
      assert.equal(endpoint.calls.length, 1, `${status} is not followed`);
    }
  });

  it('maps an over-long body to bad_response with its status, without echoing it', async () => {
    const limited = { maxChars: 100 };
    const text = `${'x'.repeat(100)}${SECRET}`;
    for (const status of [200, 502]) {
      const error = await rejectsWith(sendOwn(recording(() => new Response(text, { status })).fetch, BASE, grant, Date.now, limited), 'bad_response');
      assert.equal(error.status, status);
      assert.ok(!error.message.includes('SECRET'), error.message);
    }
    const exact = await sendOwn(recording(() => new Response('y'.repeat(100))).fetch, BASE, grant, Date.now, limited);
    assert.equal(exact.text.length, 100, 'a body of exactly maxChars passes');
    const unlimited = await sendOwn(recording(() => new Response(text)).fetch, BASE, grant, Date.now);
    assert.equal(unlimited.text, text, 'no maxChars, no limit');
  });
});

describe('retryAfterMs', () => {
  // A whole second, as HTTP dates are.
  const NOW = 1_700_000_000_000;
  /** The wait an answer with this `Retry-After` (and no `Date`) asks for, arriving at NOW. */
  const waitFor = (value: string | null): number | null => retryAfterMs(new Headers(value === null ? {} : { 'Retry-After': value }), NOW);

  it('reads delay-seconds (RFC 9110 10.2.3) as ms', () => {
    assert.equal(waitFor('60'), 60_000);
    assert.equal(waitFor(' 30 '), 30_000);
    assert.equal(waitFor('0'), 0);
  });

  it('reads an HTTP date as the ms from now, in any of its three formats, and a past one as 0', () => {
    assert.equal(waitFor(new Date(NOW + 90_000).toUTCString()), 90_000);
    assert.equal(waitFor('Tue, 14 Nov 2023 22:13:40 GMT'), 20_000);
    assert.equal(waitFor('Tuesday, 14-Nov-23 22:13:40 GMT'), 20_000);
    assert.equal(waitFor('Tue Nov 14 22:13:40 2023'), 20_000);
    assert.equal(waitFor(new Date(NOW - 5_000).toUTCString()), 0);
  });

  it("counts an HTTP date from the answer's Date, the server's clock, and from the arrival without a readable one", () => {
    const answer = (date: string | null): Headers => new Headers({ 'Retry-After': 'Tue, 14 Nov 2023 22:14:20 GMT', ...(date === null ? {} : { Date: date }) });
    const server = 'Tue, 14 Nov 2023 22:13:20 GMT';
    for (const skew of [0, 10 * 60_000, -10 * 60_000]) assert.equal(retryAfterMs(answer(server), NOW + skew), 60_000, `device clock ${skew / 60_000} min off`);
    assert.equal(retryAfterMs(answer('Tue Nov 14 22:13:20 2023'), NOW + 10 * 60_000), 60_000, 'a Date in asctime form');
    assert.equal(retryAfterMs(answer(null), NOW + 30_000), 30_000);
    assert.equal(retryAfterMs(answer('yesterday'), NOW + 30_000), 30_000);
    // Delay-seconds need no clock.
    assert.equal(retryAfterMs(new Headers({ 'Retry-After': '60', Date: 'Tue, 14 Nov 2023 20:00:00 GMT' }), NOW), 60_000);
  });

  it('gives null when absent or unreadable, rather than whatever a lenient date parser makes of it', () => {
    for (const value of [null, '', '  ', 'soon', '1.5', '-5', '5s', '1e3', '0x10', '12/31/2099', '2099-01-01', 'Tomorrow 12:00']) {
      assert.equal(waitFor(value), null, String(value));
    }
    // Digits alone are delay-seconds, never a year.
    assert.equal(waitFor('299'), 299_000);
  });

  it('honours up to 5 minutes: a longer wait, in seconds or as a date, counts as 5 minutes', () => {
    assert.equal(RETRY_AFTER_MAX_MS, 300_000);
    assert.equal(waitFor('300'), 300_000);
    for (const value of ['301', '2099', '86400', '99999999999999', '9'.repeat(400), new Date(NOW + 300_001).toUTCString(), new Date(NOW + 86_400_000).toUTCString(), 'Fri, 31 Dec 9999 23:59:59 GMT']) {
      assert.equal(waitFor(value), 300_000, value.slice(0, 40));
    }
  });
});

describe('sendOwn: Retry-After', () => {
  const request: WireRequest = { method: 'POST', path: '/api/v3/store/auth/refresh', label: '/api/v3/store/auth/refresh', headers: {} };

  it('hands on the Retry-After of the answer, counted from its arrival', async () => {
    const limited = recording(() => Response.json({ error: { code: 'rate_limit_exceeded' } }, { status: 429, headers: { 'Retry-After': '60' } }));
    assert.deepEqual(await sendOwn(limited.fetch, BASE, request, () => 5), { status: 429, text: '{"error":{"code":"rate_limit_exceeded"}}', receivedAt: 5, retryAfterMs: 60_000, serverDate: null });
    const at = 1_700_000_000_000;
    const dated = recording(() => new Response('', { status: 503, headers: { 'Retry-After': new Date(at + 15_000).toUTCString() } }));
    assert.equal((await sendOwn(dated.fetch, BASE, request, () => at)).retryAfterMs, 15_000);
  });

  it("hands on the answer's Date as the server's clock, null without one or with one it cannot read", async () => {
    const date = 'Tue, 14 Nov 2023 22:13:20 GMT';
    const dated = recording(() => Response.json({}, { headers: { Date: date } }));
    assert.equal((await sendOwn(dated.fetch, BASE, request, () => 5)).serverDate, Date.parse(date));
    const junk = recording(() => Response.json({}, { headers: { Date: 'yesterday' } }));
    assert.equal((await sendOwn(junk.fetch, BASE, request, () => 5)).serverDate, null);
  });

  it('gives null without the header, or with one it cannot read', async () => {
    const junk = recording(() => new Response('', { status: 429, headers: { 'Retry-After': 'later' } }));
    assert.equal((await sendOwn(junk.fetch, BASE, request, () => 5)).retryAfterMs, null);
    const none = recording(() => new Response('', { status: 429 }));
    assert.equal((await sendOwn(none.fetch, BASE, request, () => 5)).retryAfterMs, null);
  });
});

for (const zone of ZONES) {
  describe(`sendOwn on a device in ${zone}: the asctime form is GMT`, () => {
    inTimeZone(zone);
    const request: WireRequest = { method: 'POST', path: '/api/v3/store/auth/login', label: '/api/v3/store/auth/login', headers: {} };

    it("hands on an asctime Date as the server's clock, and counts an asctime Retry-After from the arrival", async () => {
      const at = Date.parse('Tue, 14 Nov 2023 22:13:20 GMT');
      const dated = recording(() => Response.json({}, { headers: { Date: 'Tue Nov 14 22:13:20 2023' } }));
      assert.equal((await sendOwn(dated.fetch, BASE, request, () => at)).serverDate, at);
      const limited = recording(() => new Response('', { status: 429, headers: { 'Retry-After': 'Tue Nov 14 22:13:40 2023' } }));
      assert.equal((await sendOwn(limited.fetch, BASE, request, () => at)).retryAfterMs, 20_000);
    });
  });
}

describe('networkError', () => {
  it('says the server did not answer within the budget for a timeout or an abort', () => {
    for (const name of ['TimeoutError', 'AbortError']) {
      const error = networkError('The token endpoint', new DOMException('signal timed out', name));
      assert.equal(error.code, 'network_error');
      assert.match(error.message, new RegExp(`within ${OWN_REQUEST_BUDGET_MS / 1000} s`));
    }
  });
  it('says the server could not be reached otherwise, and keeps the cause', () => {
    const cause = new TypeError('Failed to fetch');
    const error = networkError('The token endpoint', cause);
    assert.match(error.message, /could not be reached/);
    assert.doesNotMatch(error.message, /within/);
    assert.equal(error.cause, cause);
  });
});

describe('sendPage', () => {
  const CART_URL = `${BASE}/api/v2/storefront/cart?include=line_items`;
  const TOKEN_HEADER = [['X-Store-Order-Token', 'order-SECRET']] as const;
  const BEARER = [['Authorization', 'Bearer access-SECRET']] as const;

  function page(answer: (call: Call, index: number) => Response | Promise<Response>) {
    const endpoint = recording(answer);
    const logs: string[] = [];
    const to: PageSend = {
      fetch: endpoint.fetch,
      // The credential table, reduced: under the base, cart paths get the order token, others nothing.
      addedFor: (url) => [url, url === BASE || url.startsWith(`${BASE}/`) || url.startsWith(`${BASE}?`) ? (url.includes('/cart') ? TOKEN_HEADER : []) : []],
      log: (message) => logs.push(message),
    };
    return { to, calls: endpoint.calls, logs };
  }

  it('sends a request with the header added and the page its answer', async () => {
    const { to, calls } = page(() => new Response('cart', { status: 200 }));
    const request = new Request(CART_URL, { headers: { Accept: 'application/vnd.api+json' } });
    const response = await sendPage(to, request, undefined, TOKEN_HEADER);
    assert.equal(await response.text(), 'cart');
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.request.url, CART_URL);
    assert.equal(calls[0]?.request.headers.get('X-Store-Order-Token'), 'order-SECRET');
    assert.equal(calls[0]?.request.headers.get('Accept'), 'application/vnd.api+json', "the page's headers stay");
    assert.equal(calls[0]?.request.redirect, 'manual');
    assert.equal(request.headers.get('X-Store-Order-Token'), null, "the page's request is not changed");
  });

  it("sends a same-origin no-cors request's copies in same-origin mode, whose headers keep the credential", async () => {
    // A no-cors Request drops every header that is not CORS-safelisted (Fetch: guard "request-no-cors"),
    // which a browser enforces and Node does not: the mode is what the browser goes by.
    const landed = `${BASE}/api/v2/storefront/cart?page=2`;
    const { to, calls } = page((_, index) => (index === 0 ? new Response('first') : index === 1 ? opaqueRedirect() : index === 2 ? redirectedTo(landed, 'without') : new Response('with')));
    const form = new TextEncoder().encode('a=1').buffer;
    await sendPage(to, new Request(CART_URL, { method: 'POST', mode: 'no-cors', body: 'a=1' }), form, BEARER);
    await sendPage(to, new Request(CART_URL, { mode: 'no-cors' }), undefined, TOKEN_HEADER);
    // The credential-free follow-up of a redirect goes in the page's own mode, which follows a redirect to any origin.
    assert.deepEqual(calls.map((call) => call.request.mode), ['same-origin', 'same-origin', 'no-cors', 'same-origin']);
    assert.equal(calls[0]?.request.headers.get('Authorization'), 'Bearer access-SECRET');
    assert.equal(calls[0]?.body, 'a=1');
    assert.equal(calls[3]?.request.headers.get('X-Store-Order-Token'), 'order-SECRET');
  });

  it('sends a GET that needs no header exactly as the page made it', async () => {
    const { to, calls } = page(() => new Response('ok'));
    const request = new Request(CART_URL);
    await sendPage(to, request, undefined, []);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.request.redirect, 'follow');
  });

  it("sends every request of a sealed answer with cache 'no-store', a GET without a header and each redirect step included", async () => {
    const landed = `${BASE}/api/v2/storefront/cart?page=2`;
    const { to, calls } = page((_, index) => (index === 0 ? new Response('plain') : index === 1 ? opaqueRedirect() : index === 2 ? redirectedTo(landed, 'without') : new Response('with')));
    await sendPage(to, new Request(CART_URL, { cache: 'force-cache' }), undefined, [], true);
    await sendPage(to, new Request(CART_URL, { cache: 'force-cache' }), undefined, TOKEN_HEADER, true);
    assert.equal(calls.length, 4);
    assert.deepEqual(
      calls.map((call) => call.request.cache),
      ['no-store', 'no-store', 'no-store', 'no-store'],
    );
    await sendPage(to, new Request(CART_URL, { cache: 'force-cache' }), undefined, TOKEN_HEADER);
    assert.equal(calls[4]?.request.cache, 'force-cache', "an answer that is not sealed keeps the page's cache mode");
  });

  it('sends every request of a sealed answer without Range and If-Range, each redirect step included; an answer not sealed keeps them', async () => {
    const landed = `${BASE}/api/v2/storefront/cart?page=2`;
    const { to, calls } = page((_, index) => (index === 0 ? opaqueRedirect() : index === 1 ? redirectedTo(landed, 'without') : new Response('with')));
    const ranged = () => new Request(CART_URL, { headers: { Range: 'bytes=0-9', 'If-Range': '"v1"', Accept: 'application/json' } });
    await sendPage(to, ranged(), undefined, TOKEN_HEADER, true);
    assert.equal(calls.length, 3);
    for (const call of calls) {
      assert.deepEqual([call.request.headers.get('Range'), call.request.headers.get('If-Range'), call.request.headers.get('Accept')], [null, null, 'application/json']);
    }
    await sendPage(to, ranged(), undefined, TOKEN_HEADER);
    assert.equal(calls[3]?.request.headers.get('Range'), 'bytes=0-9');
    assert.equal(calls[3]?.request.headers.get('If-Range'), '"v1"');
  });

  for (const method of ['GET', 'HEAD'] as const) {
    describe(`a ${method} with a header that meets a redirect`, () => {
      it('is asked again without the header and followed; ended outside the base, that answer is the page’s', async () => {
        const { to, calls } = page((_, index) => (index === 0 ? opaqueRedirect() : redirectedTo('https://cdn.example/cart.json', 'elsewhere')));
        const response = await sendPage(to, new Request(CART_URL, { method, headers: { 'X-Trace': 't1' } }), undefined, BEARER);
        assert.equal(calls.length, 2, 'no third request: the credential never goes outside the base');
        assert.equal(calls[0]?.request.headers.get('Authorization'), 'Bearer access-SECRET');
        assert.equal(calls[0]?.request.redirect, 'manual');
        assert.equal(calls[1]?.request.url, CART_URL);
        assert.equal(calls[1]?.request.method, method);
        assert.equal(calls[1]?.request.headers.get('Authorization'), null, 'followed without the credential');
        assert.equal(calls[1]?.request.headers.get('X-Trace'), 't1', "the page's own headers follow as they would");
        assert.equal(calls[1]?.request.redirect, 'follow');
        assert.equal(response.url, 'https://cdn.example/cart.json');
        if (method === 'GET') assert.equal(await response.text(), 'elsewhere');
      });

      it('ended under the base, is asked once more there with the header, without following', async () => {
        const landed = `${BASE}/api/v2/storefront/cart?include=line_items&page=2`;
        const { to, calls } = page((_, index) => (index === 0 ? opaqueRedirect() : index === 1 ? redirectedTo(landed, 'without') : new Response('with')));
        const response = await sendPage(to, new Request(CART_URL, { method }), undefined, TOKEN_HEADER);
        assert.equal(calls.length, 3);
        assert.equal(calls[1]?.request.headers.get('X-Store-Order-Token'), null);
        assert.equal(calls[2]?.request.url, landed);
        assert.equal(calls[2]?.request.method, method);
        assert.equal(calls[2]?.request.headers.get('X-Store-Order-Token'), 'order-SECRET');
        assert.equal(calls[2]?.request.redirect, 'manual');
        if (method === 'GET') assert.equal(await response.text(), 'with');
      });

      it('ended under the base but redirected again from there, the page gets the answer without the header', async () => {
        const landed = `${BASE}/api/v2/storefront/cart/1`;
        const { to, calls } = page((_, index) => (index === 0 ? opaqueRedirect() : index === 1 ? redirectedTo(landed, 'without') : opaqueRedirect()));
        const response = await sendPage(to, new Request(CART_URL, { method }), undefined, TOKEN_HEADER);
        assert.equal(calls.length, 3, 'the third is never followed');
        assert.equal(calls[2]?.request.redirect, 'manual');
        assert.equal(response.type, 'default');
        assert.equal(response.url, landed);
      });
    });
  }

  it('a redirect under the base gets what the table gives its target path, nothing more', async () => {
    const landed = `${BASE}/api/v2/storefront/products?page=2`;
    const { to, calls } = page((_, index) => (index === 0 ? opaqueRedirect() : redirectedTo(landed, 'products')));
    const response = await sendPage(to, new Request(CART_URL), undefined, BEARER);
    assert.equal(calls.length, 2, 'a products path gets no credential, so it is not asked again');
    assert.equal(await response.text(), 'products');
  });

  it('a request whose query the worker swapped is followed from the URL the page wrote, never with the real value', async () => {
    const written = `${BASE}/api/v2/storefront/cart/associate?guest_order_token=sealed:cart`;
    const swapped = `${BASE}/api/v2/storefront/cart/associate?guest_order_token=T-SECRET`;
    const { to, calls } = page((_, index) => (index === 0 ? opaqueRedirect() : redirectedTo('https://elsewhere.example/log', 'elsewhere')));
    await sendPage(to, new Request(swapped), undefined, BEARER, true, written);
    assert.equal(calls[0]?.request.url, swapped);
    assert.equal(calls[1]?.request.url, written, 'the redirect is followed from the placeholder URL');
    assert.equal(calls.length, 2);
  });

  it('a redirect that leads out of a base with a path is outside, though the origin is the same', async () => {
    const { to, calls } = page((_, index) => (index === 0 ? opaqueRedirect() : redirectedTo('https://shop.example/storefront/api/v2/storefront/cart')));
    await sendPage(to, new Request(CART_URL), undefined, BEARER);
    assert.equal(calls.length, 2);
  });

  for (const method of ['POST', 'PATCH', 'PUT', 'DELETE']) {
    it(`a ${method} that meets a redirect is sent exactly once, rejects with TypeError, and logs why`, async () => {
      const { to, calls, logs } = page(opaqueRedirect);
      const body = new TextEncoder().encode('{"variant_id":"1","quantity":1}').buffer as ArrayBuffer;
      const url = `${BASE}/api/v2/storefront/cart/add_item?x=order-SECRET`;
      const request = new Request(url, { method, body, headers: { 'Content-Type': 'application/json' } });
      await assert.rejects(sendPage(to, request, body, TOKEN_HEADER), (error: unknown) => {
        assert.ok(error instanceof TypeError, String(error));
        // The worker's console shows it as an uncaught rejection, and the query may hold the real cart token.
        assert.ok(!error.message.includes('SECRET'), error.message);
        return true;
      });
      assert.equal(calls.length, 1, 'a write is never re-sent');
      assert.equal(calls[0]?.request.method, method);
      assert.equal(calls[0]?.request.redirect, 'manual');
      assert.equal(calls[0]?.request.headers.get('X-Store-Order-Token'), 'order-SECRET');
      assert.equal(calls[0]?.body, '{"variant_id":"1","quantity":1}');
      assert.equal(logs.length, 1);
      assert.match(logs[0] ?? '', new RegExp(`^${method} /store/api/v2/storefront/cart/add_item: .*redirect`));
      assert.ok(!logs[0]?.includes('SECRET'), 'the log names the path, not the query');
    });
  }

  it("a write with redirect 'error' that meets a redirect goes manual and rejects as one that reached the server", async () => {
    const { to, calls } = page(opaqueRedirect);
    const body = new ArrayBuffer(0);
    await assert.rejects(sendPage(to, new Request(CART_URL, { method: 'PATCH', body, redirect: 'error' }), body, TOKEN_HEADER), (error: unknown) => error instanceof TypeError && error.name === 'RedirectedWriteError');
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.request.redirect, 'manual');
  });

  it('a write that meets a redirect still rejects when no log is given', async () => {
    const { to, calls } = page(opaqueRedirect);
    const body = new ArrayBuffer(0);
    await assert.rejects(sendPage({ ...to, log: undefined }, new Request(CART_URL, { method: 'POST', body }), body, BEARER), TypeError);
    assert.equal(calls.length, 1);
  });

  it("a write with no added header still goes out with redirect 'manual', once", async () => {
    const tokenUrl = `${BASE}/store_oauth/token`;
    const body = new TextEncoder().encode(`grant_type=password&username=u&password=${SECRET}`).buffer as ArrayBuffer;
    const grant = (): Request => new Request(tokenUrl, { method: 'POST', body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });

    const answered = page(() => Response.json({ access_token: 'a' }));
    const response = await sendPage(answered.to, grant(), body, []);
    assert.equal(response.status, 200);
    assert.equal(answered.calls.length, 1);
    assert.equal(answered.calls[0]?.request.redirect, 'manual');
    assert.equal(answered.calls[0]?.body, `grant_type=password&username=u&password=${SECRET}`);

    const redirected = page(opaqueRedirect);
    await assert.rejects(sendPage(redirected.to, grant(), body, []), TypeError);
    assert.equal(redirected.calls.length, 1, 'the password is never sent after a redirect');
  });

  for (const mode of ['manual', 'error'] as const) {
    it(`a request whose page asked redirect '${mode}' is sent once, and answered as the page asked`, async () => {
      const { to, calls } = page(() => (mode === 'manual' ? opaqueRedirect() : new Response('ok')));
      for (const method of ['GET', 'POST']) {
        calls.length = 0;
        const body = method === 'GET' ? undefined : new ArrayBuffer(0);
        const request = new Request(CART_URL, { method, redirect: mode, ...(body === undefined ? {} : { body }) });
        const response = await sendPage(to, request, body, BEARER);
        assert.equal(calls.length, 1, method);
        // A write under `error` goes manual, and a redirect rejects it as one that reached the server.
        assert.equal(calls[0]?.request.redirect, mode === 'error' && method === 'POST' ? 'manual' : mode, method);
        assert.equal(calls[0]?.request.headers.get('Authorization'), 'Bearer access-SECRET', method);
        assert.equal(response.type, mode === 'manual' ? 'opaqueredirect' : 'default', 'the page receives what it asked for');
      }
    });
  }
});
