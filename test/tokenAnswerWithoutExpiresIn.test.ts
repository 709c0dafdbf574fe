// Doorkeeper with `access_token_expires_in nil` leaves `expires_in` out of its token response
// (lib/doorkeeper/oauth/token_response.rb: `.reject { |_, value| value.blank? }`). Spree configures a
// lifetime (docs/servers.md, "Spree's storefront endpoints"), and docs/behaviour.md ("Errors") names a token answer without a
// positive numeric `expires_in` a `bad_response`. This pins that documented behaviour: the login is
// refused, the message names the missing field, and the pair the server issued is not left live.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { isStorefrontAuthError } from '../src/shared/errors.js';
import { judgeTokenReply } from '../src/sw/dialects/storefrontV2.js';
import { BASE, routedWorker } from './workerHarness.js';

const answer = { access_token: 'nX/+e"v\\er', token_type: 'Bearer', refresh_token: 'r/+e"f\\4', created_at: 1_764_300_000 };

it('a v2 token answer without expires_in is bad_response naming expires_in', () => {
  assert.throws(
    () => judgeTokenReply({ status: 200, text: JSON.stringify(answer), receivedAt: Date.now() }, 'password'),
    (error: unknown) => isStorefrontAuthError(error) && error.code === 'bad_response' && /expires_in/.test(error.message),
  );
});

const channel = globalThis.BroadcastChannel;
before(() => {
  (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
});
after(() => {
  globalThis.BroadcastChannel = channel;
});

it("a page's own grant answered without expires_in: nothing kept, both tokens revoked", async () => {
  const { through, settled, calls, storage } = routedWorker({ preset: 'spree' }, { cart: null, session: null, backoff: null }, {
    'POST /spree_oauth/token': () => Response.json(answer),
    'POST /spree_oauth/revoke': () => Response.json({}),
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  const response = await through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: 'a', password: 'b' }) }));
  assert.ok(response !== null);
  await settled();
  const revoked = await Promise.all(calls.filter((call) => call.route === 'POST /spree_oauth/revoke').map(async (call) => new URLSearchParams(await call.body).get('token')));
  assert.deepEqual(revoked.sort(), [answer.access_token, answer.refresh_token].sort());
  assert.equal((await storage.read())?.session ?? null, null);
});
