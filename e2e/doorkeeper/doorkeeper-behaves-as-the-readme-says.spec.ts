/**
 * What a real Doorkeeper 5.5 (on Rails 6.1, configured as Spree 4.x) does, asserted from Node with
 * no browser in between, so that docs/servers.md's claims about it are tested ("Doorkeeper 5.5 as
 * the bench runs it"): rotation, 304 answers, revocation after expiry, and the shapes of its
 * answers.
 */
import { expect, getAccount, postForm, refreshGrant, refreshed, revoke, send, signIn, test } from './support.js';

test.describe('with 2-second access tokens', () => {
  test.use({ doorkeeperOptions: { accessTokenLifetime: 2 } });

  test('revoking a pair whose access token has expired changes nothing; ending it takes refresh, use, revoke', async ({ doorkeeper }) => {
    const expired = await signIn(doorkeeper);
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    expect(await getAccount(doorkeeper, expired.access_token)).toMatchObject({ status: 401, json: { error: 'The access token expired' } });

    // RFC 7009 answers 200 {} whatever happened; Doorkeeper 5.5 revokes only `if token.accessible?`.
    for (const token of [expired.access_token, expired.refresh_token]) {
      expect(await revoke(doorkeeper, token)).toMatchObject({ status: 200, json: {} });
    }
    const fresh = await refreshed(doorkeeper, expired.refresh_token);

    // The recipe the worker follows on logout: use the new access token once (which revokes the
    // pair it replaced), then revoke the new pair.
    expect((await getAccount(doorkeeper, fresh.access_token)).status).toBe(200);
    expect(await revoke(doorkeeper, fresh.access_token)).toMatchObject({ status: 200, json: {} });
    for (const pair of [expired, fresh]) {
      expect(await refreshGrant(doorkeeper, pair.refresh_token)).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
      expect(await getAccount(doorkeeper, pair.access_token)).toMatchObject({ status: 401, json: { error: 'The access token was revoked' } });
    }
  });

  test('a refreshed token keeps the lifetime of the one it replaces, and expires_in counts seconds', async ({ doorkeeper }) => {
    const first = await signIn(doorkeeper);
    expect(first.expires_in).toBe(2);
    // A later password grant gets the lifetime configured then; a refresh keeps the old one (Doorkeeper 5.5).
    await doorkeeper.setAccessTokenLifetime(60);
    expect((await refreshed(doorkeeper, first.refresh_token)).expires_in).toBe(2);
    expect((await signIn(doorkeeper)).expires_in).toBe(60);
  });
});

test('a refresh leaves the old refresh token working until the new access token is first used', async ({ doorkeeper }) => {
  const first = await signIn(doorkeeper);
  const second = await refreshed(doorkeeper, first.refresh_token);
  // Not used yet: the old pair still works, so a second refresh with the old token succeeds too.
  const third = await refreshed(doorkeeper, first.refresh_token);
  expect((await getAccount(doorkeeper, first.access_token)).status).toBe(200);

  // The first use of a new access token revokes the pair it replaced, and only that pair.
  expect((await getAccount(doorkeeper, third.access_token)).status).toBe(200);
  expect(await refreshGrant(doorkeeper, first.refresh_token)).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
  expect(await getAccount(doorkeeper, first.access_token)).toMatchObject({ status: 401, json: { error: 'The access token was revoked' } });
  // A sibling pair made from the same old refresh token, never used, stays alive.
  expect((await refreshGrant(doorkeeper, second.refresh_token)).status).toBe(200);
});

test('revoking a live pair by either token ends both tokens', async ({ doorkeeper }) => {
  for (const which of ['access_token', 'refresh_token'] as const) {
    const pair = await signIn(doorkeeper);
    expect(await revoke(doorkeeper, pair[which])).toMatchObject({ status: 200, json: {} });
    expect(await refreshGrant(doorkeeper, pair.refresh_token), which).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    expect(await getAccount(doorkeeper, pair.access_token), which).toMatchObject({ status: 401, json: { error: 'The access token was revoked' } });
  }
});

test("repeated GETs that send Rails' ETag back are answered 304", async ({ doorkeeper }) => {
  const pair = await signIn(doorkeeper);
  const first = await getAccount(doorkeeper, pair.access_token);
  expect(first.status).toBe(200);
  const etag = first.headers.get('etag');
  expect(etag).toMatch(/^W\/".+"$/);
  expect(first.headers.get('cache-control')).toBe('max-age=0, private, must-revalidate');

  const again = await getAccount(doorkeeper, pair.access_token, { 'If-None-Match': etag ?? '' });
  expect(again).toMatchObject({ status: 304, text: '' });
  // The ETag is of the body only: another bearer of the same user revalidates it as well; no bearer is a 403.
  const other = await signIn(doorkeeper);
  expect((await getAccount(doorkeeper, other.access_token, { 'If-None-Match': etag ?? '' })).status).toBe(304);
  expect((await getAccount(doorkeeper, undefined, { 'If-None-Match': etag ?? '' })).status).toBe(403);
  expect((await doorkeeper.stats()).notModified).toBe(2);
});

test("answers have Doorkeeper's and Spree's shapes", async ({ doorkeeper }) => {
  const granted = await postForm(doorkeeper, '/spree_oauth/token', { grant_type: 'password', username: doorkeeper.user.username, password: doorkeeper.user.password });
  expect(granted.status).toBe(200);
  expect(Object.keys(granted.json as object).sort()).toEqual(['access_token', 'created_at', 'expires_in', 'refresh_token', 'token_type']);
  expect(granted.json).toMatchObject({ token_type: 'Bearer', expires_in: 7200 });
  expect(Math.abs((granted.json as { created_at: number }).created_at - Date.now() / 1000)).toBeLessThan(5);
  expect(granted.headers.get('cache-control')).toBe('no-store');
  expect(granted.headers.get('pragma')).toBe('no-cache');

  // A JSON body (the Spree SDK's) is a grant like a form.
  const json = await send(doorkeeper, '/spree_oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username: doorkeeper.user.username, password: doorkeeper.user.password }),
  });
  expect(json.status).toBe(200);

  const wrong = await postForm(doorkeeper, '/spree_oauth/token', { grant_type: 'password', username: doorkeeper.user.username, password: 'wrong' });
  expect(wrong).toMatchObject({ status: 400, json: { error: 'invalid_grant', error_description: expect.any(String) } });
  expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer realm="Doorkeeper", error="invalid_grant"/);
  expect(await postForm(doorkeeper, '/spree_oauth/token', { grant_type: 'refresh_token' })).toMatchObject({ status: 400, json: { error: 'invalid_request' } });
  expect(await refreshGrant(doorkeeper, 'never-issued')).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });

  // Storefront: 403 without a bearer; a bearer Doorkeeper never issued is a guest's; 404 without a cart.
  const forbidden = { status: 403, json: { error: 'You are not authorized to access this page.' } };
  expect(await getAccount(doorkeeper)).toMatchObject(forbidden);
  expect(await getAccount(doorkeeper, 'never-issued')).toMatchObject(forbidden);
  expect((await getAccount(doorkeeper)).headers.get('content-type')).toContain('application/vnd.api+json');
  expect(await send(doorkeeper, '/api/v2/storefront/cart')).toMatchObject({ status: 404, json: { error: 'The resource you were looking for could not be found.' } });

  // A revoked bearer: 401 with Spree's body and no WWW-Authenticate (Spree renders Doorkeeper's error itself).
  const pair = granted.json as { access_token: string };
  await revoke(doorkeeper, pair.access_token);
  const revoked = await getAccount(doorkeeper, pair.access_token);
  expect(revoked).toMatchObject({ status: 401, json: { error: 'The access token was revoked' } });
  expect(revoked.headers.get('www-authenticate')).toBeNull();

  // A cart: 201 with its token and number, `fields[cart]` honoured; found by its token, its user decides with a bearer.
  const created = await send(doorkeeper, `/api/v2/storefront/cart?${new URLSearchParams({ 'fields[cart]': 'number,token' })}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/vnd.api+json' },
  });
  expect(created.status).toBe(201);
  expect(created.json).toEqual({ data: { id: expect.any(String), type: 'cart', attributes: { number: expect.stringMatching(/^R\d{9}$/), token: expect.any(String) }, relationships: {} } });
  const { token, number } = (created.json as { data: { attributes: { token: string; number: string } } }).data.attributes;
  expect(await send(doorkeeper, '/api/v2/storefront/cart', { headers: { 'X-Spree-Order-Token': token } })).toMatchObject({ status: 200, json: { data: { attributes: { number } } } });

  const associate = `/api/v2/storefront/cart/associate?${new URLSearchParams({ guest_order_token: token })}`;
  expect((await send(doorkeeper, associate, { method: 'PATCH' })).status).toBe(403);
  const owner = await signIn(doorkeeper);
  const bearer = { Authorization: `Bearer ${owner.access_token}` };
  expect(await send(doorkeeper, associate, { method: 'PATCH', headers: bearer })).toMatchObject({ status: 200, json: { data: { attributes: { number } } } });
  expect(await send(doorkeeper, associate, { method: 'PATCH', headers: bearer })).toMatchObject({ status: 422, json: { error: expect.any(String) } });
  expect(await send(doorkeeper, '/api/v2/storefront/cart', { headers: bearer })).toMatchObject({ status: 200, json: { data: { attributes: { number } } } });
});
