// Judging the token endpoint's answer (docs/servers.md, "Tokens" and "Doorkeeper, the token
// endpoint"): what counts as a session, which error code each failure gets, and that no token value
// ever reaches an error message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorefrontAuthError, type StorefrontAuthErrorCode } from '../src/shared/errors.js';
import { judgeTokenReply, readTokenBody } from '../src/sw/dialects/storefrontV2.js';
import { parseJson, type TokenReply } from '../src/sw/tokenResponse.js';

const ACCESS = 'access-SECRET-a1b2c3';
const REFRESH = 'refresh-SECRET-d4e5f6';
const RECEIVED_AT = 1_700_000_000_000;

/** Doorkeeper's success body (docs/servers.md, "Tokens"). */
const VALID = { access_token: ACCESS, token_type: 'Bearer', expires_in: 7200, refresh_token: REFRESH, created_at: 1_700_000_000 };

function reply(status: number, body: unknown): TokenReply {
  return { status, text: typeof body === 'string' ? body : JSON.stringify(body), receivedAt: RECEIVED_AT };
}

/** Runs `judgeTokenReply` expecting a rejection, and checks its code, status and that it names no token. */
function rejects(tokenReply: TokenReply, grant: 'password' | 'refresh', code: StorefrontAuthErrorCode): Error {
  let caught: unknown;
  try {
    judgeTokenReply(tokenReply, grant);
  } catch (error) {
    caught = error;
  }
  assert.ok(isStorefrontAuthError(caught), `expected a StorefrontAuthError, got ${String(caught)}`);
  assert.equal(caught.code, code);
  assert.equal(caught.status, tokenReply.status);
  assert.ok(caught.message.length > 0);
  for (const secret of [ACCESS, REFRESH, 'SECRET']) {
    assert.ok(!caught.message.includes(secret), `the message names a token: ${caught.message}`);
    assert.ok(!String(caught.stack).includes(secret), 'the stack names a token');
  }
  return caught;
}

describe('readTokenBody', () => {
  it('reads a Doorkeeper success body; the expiry is the arrival time plus expires_in seconds', () => {
    assert.deepEqual(readTokenBody(VALID, RECEIVED_AT), {
      accessToken: ACCESS,
      refreshToken: REFRESH,
      expiresAt: RECEIVED_AT + 7_200_000,
      lifetimeMs: 7_200_000,
      confirmed: true,
    });
  });
  it('ignores created_at: the expiry counts from arrival, not from the server clock', () => {
    const session = readTokenBody({ ...VALID, created_at: 0 }, RECEIVED_AT);
    assert.equal(session?.expiresAt, RECEIVED_AT + 7_200_000);
  });
  it("accepts Spree's one-month lifetime and a scope", () => {
    assert.equal(readTokenBody({ ...VALID, expires_in: 2_629_746, scope: 'admin' }, RECEIVED_AT)?.lifetimeMs, 2_629_746_000);
  });
  it('accepts token_type in any case (RFC 6749 7.1)', () => {
    assert.notEqual(readTokenBody({ ...VALID, token_type: 'bearer' }, RECEIVED_AT), null);
    assert.notEqual(readTokenBody({ ...VALID, token_type: 'BEARER' }, RECEIVED_AT), null);
  });

  const without = (field: keyof typeof VALID): Record<string, unknown> => {
    const body: Record<string, unknown> = { ...VALID };
    delete body[field];
    return body;
  };
  const refused: [what: string, body: unknown][] = [
    ['no access_token', without('access_token')],
    ['an empty access_token', { ...VALID, access_token: '' }],
    ['a numeric access_token', { ...VALID, access_token: 12345 }],
    ['a null access_token', { ...VALID, access_token: null }],
    ['no refresh_token', without('refresh_token')],
    ['an empty refresh_token', { ...VALID, refresh_token: '' }],
    ['an object refresh_token', { ...VALID, refresh_token: { value: REFRESH } }],
    ['no expires_in', without('expires_in')],
    ['expires_in as a string', { ...VALID, expires_in: '7200' }],
    ['a zero expires_in', { ...VALID, expires_in: 0 }],
    ['a negative expires_in', { ...VALID, expires_in: -60 }],
    ['a null expires_in', { ...VALID, expires_in: null }],
    ['no token_type', without('token_type')],
    ['token_type mac', { ...VALID, token_type: 'mac' }],
    ['token_type DPoP', { ...VALID, token_type: 'DPoP' }],
    ['an error body', { error: 'invalid_grant', error_description: 'The provided authorization grant is invalid.' }],
    ['an array', [VALID]],
    ['null', null],
    ['a string', ACCESS],
    ['a number', 7200],
    ['nothing', undefined],
  ];
  for (const [what, body] of refused) {
    it(`refuses ${what}`, () => assert.equal(readTokenBody(body, RECEIVED_AT), null));
  }
  it('refuses an infinite expires_in', () => {
    assert.equal(readTokenBody({ ...VALID, expires_in: Number.POSITIVE_INFINITY }, RECEIVED_AT), null);
    assert.equal(readTokenBody({ ...VALID, expires_in: Number.NaN }, RECEIVED_AT), null);
  });
  it('refuses an expires_in that ends past the last time a Date holds (it would be kept as Infinity, or an invalid date)', () => {
    for (const expiresIn of [1e306, 1e13, (8.64e15 - RECEIVED_AT) / 1000 + 1]) assert.equal(readTokenBody({ ...VALID, expires_in: expiresIn }, RECEIVED_AT), null, String(expiresIn));
    const longest = readTokenBody({ ...VALID, expires_in: (8.64e15 - RECEIVED_AT) / 1000 }, RECEIVED_AT);
    assert.equal(longest?.expiresAt, 8.64e15, 'the last time a Date holds is kept');
    assert.ok(Number.isFinite(new Date(longest.expiresAt).getTime()));
  });
});

describe('judgeTokenReply', () => {
  it('returns the session of a 200 token response', () => {
    assert.deepEqual(judgeTokenReply(reply(200, VALID), 'password'), {
      accessToken: ACCESS,
      refreshToken: REFRESH,
      expiresAt: RECEIVED_AT + 7_200_000,
      lifetimeMs: 7_200_000,
      confirmed: true,
    });
    assert.equal(judgeTokenReply(reply(200, VALID), 'refresh').refreshToken, REFRESH);
  });

  describe('a 2xx that is not a token response is bad_response', () => {
    const bodies: [what: string, text: string][] = [
      ['an HTML page', '<!doctype html><html><body><h1>Welcome to our shop</h1></body></html>'],
      ['an empty body', ''],
      ['truncated JSON', JSON.stringify(VALID).slice(0, 40)],
      ['JSON without the tokens', '{"created_at":1700000000}'],
      ['expires_in as a string', JSON.stringify({ ...VALID, expires_in: '7200' })],
      ['a negative expires_in', JSON.stringify({ ...VALID, expires_in: -1 })],
      ['token_type mac', JSON.stringify({ ...VALID, token_type: 'mac' })],
      ['an OAuth error body', JSON.stringify({ error: 'invalid_grant', error_description: 'The provided authorization grant is invalid.' })],
      ['a JSON string', JSON.stringify(ACCESS)],
      ['JSON null', 'null'],
    ];
    for (const [what, text] of bodies) {
      for (const grant of ['password', 'refresh'] as const) {
        it(`${what} (${grant} grant)`, () => {
          rejects(reply(200, text), grant, 'bad_response');
        });
      }
    }
  });

  it('400 invalid_grant is invalid_grant, with a message for each grant', () => {
    const body = { error: 'invalid_grant', error_description: 'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.' };
    const password = rejects(reply(400, body), 'password', 'invalid_grant');
    const refresh = rejects(reply(400, body), 'refresh', 'invalid_grant');
    assert.match(password.message, /password/i);
    assert.match(refresh.message, /sign in again/i);
  });
  it('400 invalid_request and unsupported_grant_type are invalid_request', () => {
    rejects(reply(400, { error: 'invalid_request', error_description: 'Missing required parameter: password.' }), 'password', 'invalid_request');
    rejects(reply(400, { error: 'unsupported_grant_type' }), 'refresh', 'invalid_request');
  });
  it('401 invalid_client is bad_response, naming the error', () => {
    assert.match(rejects(reply(401, { error: 'invalid_client' }), 'password', 'bad_response').message, /invalid_client/);
  });
  it('invalid_grant with a status other than 400 is bad_response', () => {
    rejects(reply(401, { error: 'invalid_grant' }), 'refresh', 'bad_response');
    rejects(reply(500, { error: 'invalid_grant' }), 'refresh', 'bad_response');
  });
  it('400 with an HTML body is bad_response', () => {
    rejects(reply(400, '<html><body>Bad Request</body></html>'), 'password', 'bad_response');
  });
  for (const status of [500, 502, 503, 504]) {
    it(`${status} is bad_response with status ${status}`, () => {
      rejects(reply(status, '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>'), 'refresh', 'bad_response');
      rejects(reply(status, ''), 'password', 'bad_response');
      rejects(reply(status, { error: 'server_error' }), 'refresh', 'bad_response');
    });
  }
  it('3xx and 404 are bad_response', () => {
    rejects(reply(302, ''), 'password', 'bad_response');
    rejects(reply(404, { error: 'The resource you were looking for could not be found.' }), 'password', 'bad_response');
  });

  it('never names a token from the body in its message', () => {
    // Bodies that carry the tokens beside something wrong, so the pair is in the text being judged.
    const carrying: TokenReply[] = [
      reply(200, { ...VALID, token_type: 'mac' }),
      reply(200, { ...VALID, expires_in: '7200' }),
      reply(200, JSON.stringify(VALID).slice(0, -2)),
      reply(200, `<html>${ACCESS} ${REFRESH}</html>`),
      reply(400, { ...VALID, error: 'invalid_grant' }),
      reply(400, { ...VALID, error: 'invalid_request' }),
      reply(401, { ...VALID, error: 'invalid_client' }),
      reply(500, { ...VALID, error: 'server_error' }),
      reply(502, `<pre>${REFRESH}</pre>`),
    ];
    for (const tokenReply of carrying) {
      for (const grant of ['password', 'refresh'] as const) {
        try {
          judgeTokenReply(tokenReply, grant);
          assert.fail(`${tokenReply.status} ${tokenReply.text} was accepted`);
        } catch (error) {
          assert.ok(isStorefrontAuthError(error), String(error));
          assert.ok(!error.message.includes('SECRET'), `${tokenReply.status}: ${error.message}`);
        }
      }
    }
  });

  it('a very large body is judged without echoing it', () => {
    // sendOwn (outbound.ts) refuses bodies over 1 MiB before they get here; this checks
    // that judging one anyway stays bad_response and keeps the message short.
    const html = `<html>${'<p>shop</p>'.repeat(200_000)}${ACCESS}</html>`;
    const error = rejects(reply(200, html), 'password', 'bad_response');
    assert.ok(error.message.length < 500, `message of ${error.message.length} characters`);
    const json = JSON.stringify({ ...VALID, padding: 'x'.repeat(1_000_000), token_type: 'mac' });
    assert.ok(rejects(reply(200, json), 'refresh', 'bad_response').message.length < 500);
  });
});

describe('parseJson', () => {
  it('parses JSON and returns undefined for anything else', () => {
    assert.deepEqual(parseJson('{"a":[1,null]}'), { a: [1, null] });
    assert.equal(parseJson('null'), null);
    assert.equal(parseJson(''), undefined);
    assert.equal(parseJson('<html>'), undefined);
    assert.equal(parseJson('{"a":'), undefined);
  });
});
