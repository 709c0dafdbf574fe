// Sending a grant to the token endpoint (docs/servers.md, "Tokens") with a fake fetch: the form it
// sends, through the one way out (outbound.ts), when the answer counts as arrived, and the failures
// judged before the body is (a network failure, a redirect, a body too large to be a token
// response). No token or password reaches a message. The one way out's own rules are in
// outbound.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorefrontAuthError } from '../src/shared/errors.js';
import { MAX_TOKEN_BODY_CHARS, type WireRequest } from '../src/sw/dialect.js';
import { store } from '../src/sw/dialects/store.js';
import { sendOwn, type FetchFunction, type OwnReply } from '../src/sw/outbound.js';
import { opaqueRedirect } from './fakes.js';

const BASE = 'https://shop.example';
const URL_ = `${BASE}/store_oauth/token`;
const passwordGrant = (username: string, password: string): WireRequest => store.passwordGrant(username, password);
const refreshGrant = (refreshToken: string): WireRequest => store.refreshGrant(refreshToken, 'key-1');

/** A grant sent as the worker sends its own: the dialect's request through the one way out. */
function postGrant(fetchFn: FetchFunction, _url: string, wire: WireRequest, now: () => number): Promise<OwnReply> {
  return sendOwn(fetchFn, BASE, wire, now, { maxChars: MAX_TOKEN_BODY_CHARS });
}

/** A fetch that records each request as the browser would build it, and answers `response()`. */
function answering(response: () => Response): { fetch: FetchFunction; calls: { request: Request; init: RequestInit | undefined }[] } {
  const calls: { request: Request; init: RequestInit | undefined }[] = [];
  return {
    calls,
    fetch: async (input, init) => {
      calls.push({ request: new Request(input, init), init });
      return response();
    },
  };
}

describe('grants', () => {
  it('the password grant carries grant_type, username and password', () => {
    assert.equal(passwordGrant('a+b@shop.example', 'p&ss=word').body?.toString(), 'grant_type=password&username=a%2Bb%40shop.example&password=p%26ss%3Dword');
  });
  it('the refresh grant carries grant_type and the refresh token', () => {
    assert.equal(refreshGrant('r/1+2').body?.toString(), 'grant_type=refresh_token&refresh_token=r%2F1%2B2');
  });
});

describe('a grant through the one way out', () => {
  it('POSTs the form without following redirects, cookies or cache, and reads the answer as text', async () => {
    const endpoint = answering(() => new Response('{"ok":1}', { status: 200 }));
    let clock = 1000;
    const reply = await postGrant(endpoint.fetch, URL_, refreshGrant('refresh-SECRET'), () => ++clock);

    assert.deepEqual(reply, { status: 200, text: '{"ok":1}', receivedAt: 1001, retryAfterMs: null, serverDate: null });
    assert.equal(endpoint.calls.length, 1);
    const [call] = endpoint.calls;
    assert.ok(call !== undefined);
    const { request } = call;
    assert.equal(request.url, URL_);
    assert.equal(request.method, 'POST');
    assert.equal(request.redirect, 'manual');
    assert.equal(request.credentials, 'omit');
    assert.equal(request.cache, 'no-store');
    assert.ok(call.init?.signal instanceof AbortSignal, 'the grant has a time limit');
    assert.equal(request.headers.get('Content-Type'), 'application/x-www-form-urlencoded');
    assert.equal(request.headers.get('Accept'), 'application/json');
    assert.equal(await request.text(), 'grant_type=refresh_token&refresh_token=refresh-SECRET');
  });

  it('passes error statuses on to be judged', async () => {
    const endpoint = answering(() => Response.json({ error: 'invalid_grant' }, { status: 400 }));
    const reply = await postGrant(endpoint.fetch, URL_, passwordGrant('u', 'p'), () => 5);
    assert.deepEqual(reply, { status: 400, text: '{"error":"invalid_grant"}', receivedAt: 5, retryAfterMs: null, serverDate: null });
  });

  it('a fetch that fails is network_error, naming the URL but not the grant', async () => {
    const failing: FetchFunction = () => Promise.reject(new TypeError('Failed to fetch'));
    await assert.rejects(postGrant(failing, URL_, passwordGrant('shopper@example.com', 'hunter2-SECRET'), Date.now), (error: unknown) => {
      assert.ok(isStorefrontAuthError(error));
      assert.equal(error.code, 'network_error');
      assert.equal(error.status, undefined);
      assert.ok(error.message.includes('/store_oauth/token'));
      assert.ok(!error.message.includes('SECRET'));
      return true;
    });
  });

  it('a grant answered with a redirect is bad_response, sent once, and never echoes the password', async () => {
    for (const response of [opaqueRedirect, () => new Response(null, { status: 307, headers: { Location: 'https://evil.example/steal' } })]) {
      const endpoint = answering(response);
      await assert.rejects(postGrant(endpoint.fetch, URL_, passwordGrant('shopper@example.com', 'hunter2-SECRET'), Date.now), (error: unknown) => {
        assert.ok(isStorefrontAuthError(error));
        assert.equal(error.code, 'bad_response');
        assert.ok(!error.message.includes('SECRET'), error.message);
        assert.ok(!error.message.includes('evil.example'), error.message);
        return true;
      });
      assert.equal(endpoint.calls.length, 1);
    }
  });

  it('a body that breaks off while read is network_error', async () => {
    const broken = (): Response => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"access_token":"'));
          controller.error(new TypeError('network error'));
        },
      });
      return new Response(body, { status: 200 });
    };
    await assert.rejects(postGrant(answering(broken).fetch, URL_, refreshGrant('r'), Date.now), (error: unknown) => {
      assert.ok(isStorefrontAuthError(error));
      assert.equal(error.code, 'network_error');
      return true;
    });
  });

  it('a very large body is bad_response with its status, and is not echoed', async () => {
    const huge = `<html>${'x'.repeat(1024 * 1024)}access-SECRET</html>`;
    for (const status of [200, 502]) {
      await assert.rejects(postGrant(answering(() => new Response(huge, { status })).fetch, URL_, refreshGrant('r'), Date.now), (error: unknown) => {
        assert.ok(isStorefrontAuthError(error));
        assert.equal(error.code, 'bad_response');
        assert.equal(error.status, status);
        assert.ok(!error.message.includes('SECRET'));
        assert.ok(error.message.length < 500);
        return true;
      });
    }
  });

  it('a body of exactly 1 MiB (a Store API customer with thousands of addresses) is still passed on', async () => {
    assert.equal(MAX_TOKEN_BODY_CHARS, 1024 * 1024);
    const text = 'x'.repeat(1024 * 1024);
    const reply = await postGrant(answering(() => new Response(text)).fetch, URL_, refreshGrant('r'), () => 0);
    assert.equal(reply.text.length, 1024 * 1024);
  });
});
