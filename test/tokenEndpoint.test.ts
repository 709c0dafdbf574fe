// Sending a grant to the token endpoint (SPEC.md 4.2, 4.3) with a fake fetch: the form it sends,
// when the answer counts as arrived, and the failures judged before the body is (a network failure,
// a body too large to be a token response). No token or password reaches a message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorefrontAuthError } from '../src/shared/errors.js';
import { GRANT_TIMEOUT_MS, networkError, passwordGrant, postForm, refreshGrant } from '../src/sw/tokenEndpoint.js';

const URL_ = 'https://shop.example/store_oauth/token';

function answering(response: () => Response): { fetch: typeof fetch; calls: { input: string; init: RequestInit | undefined }[] } {
  const calls: { input: string; init: RequestInit | undefined }[] = [];
  return {
    calls,
    fetch: async (input, init) => {
      calls.push({ input: String(input), init });
      return response();
    },
  };
}

describe('grants', () => {
  it('the password grant carries grant_type, username and password', () => {
    assert.equal(passwordGrant('a+b@shop.example', 'p&ss=word').toString(), 'grant_type=password&username=a%2Bb%40shop.example&password=p%26ss%3Dword');
  });
  it('the refresh grant carries grant_type and the refresh token', () => {
    assert.equal(refreshGrant('r/1+2').toString(), 'grant_type=refresh_token&refresh_token=r%2F1%2B2');
  });
});

describe('postForm', () => {
  it('POSTs the form without cookies or cache, and reads the answer as text', async () => {
    const endpoint = answering(() => new Response('{"ok":1}', { status: 200 }));
    let clock = 1000;
    const reply = await postForm(endpoint.fetch, URL_, refreshGrant('refresh-SECRET'), () => ++clock);

    assert.deepEqual(reply, { status: 200, text: '{"ok":1}', receivedAt: 1001 });
    const [call] = endpoint.calls;
    assert.ok(call !== undefined);
    assert.equal(call.input, URL_);
    assert.equal(call.init?.method, 'POST');
    assert.equal(call.init?.credentials, 'omit');
    assert.equal(call.init?.cache, 'no-store');
    assert.ok(call.init?.signal instanceof AbortSignal, 'the grant has a time limit');
    assert.equal(new Headers(call.init?.headers).get('Content-Type'), 'application/x-www-form-urlencoded');
    assert.equal(String(call.init?.body), 'grant_type=refresh_token&refresh_token=refresh-SECRET');
  });

  it('passes error statuses on to be judged', async () => {
    const endpoint = answering(() => Response.json({ error: 'invalid_grant' }, { status: 400 }));
    const reply = await postForm(endpoint.fetch, URL_, passwordGrant('u', 'p'), () => 5);
    assert.deepEqual(reply, { status: 400, text: '{"error":"invalid_grant"}', receivedAt: 5 });
  });

  it('a fetch that fails is network_error, naming the URL but not the grant', async () => {
    const failing: typeof fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    await assert.rejects(postForm(failing, URL_, passwordGrant('shopper@example.com', 'hunter2-SECRET'), Date.now), (error: unknown) => {
      assert.ok(isStorefrontAuthError(error));
      assert.equal(error.code, 'network_error');
      assert.equal(error.status, undefined);
      assert.ok(error.message.includes(URL_));
      assert.ok(!error.message.includes('SECRET'));
      return true;
    });
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
    await assert.rejects(postForm(answering(broken).fetch, URL_, refreshGrant('r'), Date.now), (error: unknown) => {
      assert.ok(isStorefrontAuthError(error));
      assert.equal(error.code, 'network_error');
      return true;
    });
  });

  it('a very large body is bad_response with its status, and is not echoed', async () => {
    const huge = `<html>${'x'.repeat(70 * 1024)}access-SECRET</html>`;
    for (const status of [200, 502]) {
      await assert.rejects(postForm(answering(() => new Response(huge, { status })).fetch, URL_, refreshGrant('r'), Date.now), (error: unknown) => {
        assert.ok(isStorefrontAuthError(error));
        assert.equal(error.code, 'bad_response');
        assert.equal(error.status, status);
        assert.ok(!error.message.includes('SECRET'));
        assert.ok(error.message.length < 500);
        return true;
      });
    }
  });

  it('a body of exactly 64 KiB is still passed on', async () => {
    const text = 'x'.repeat(64 * 1024);
    const reply = await postForm(answering(() => new Response(text)).fetch, URL_, refreshGrant('r'), () => 0);
    assert.equal(reply.text.length, 64 * 1024);
  });
});

describe('networkError', () => {
  it('says the server did not answer in time for a timeout', () => {
    const error = networkError(URL_, new DOMException('signal timed out', 'TimeoutError'));
    assert.equal(error.code, 'network_error');
    assert.match(error.message, new RegExp(`within ${GRANT_TIMEOUT_MS / 1000} s`));
  });
  it('says the server could not be reached otherwise, and keeps the cause', () => {
    const cause = new TypeError('Failed to fetch');
    const error = networkError(URL_, cause);
    assert.match(error.message, /could not be reached/);
    assert.equal(error.cause, cause);
  });
});
