// A signed-in page's GET that meets a redirect under the base URL; while the
// browser follows it (without credentials), the shopper logs out and another logs in (another tab).
// The worker's own final ask of the location (outbound.ts `sendPage`, `addedFor`) must not carry
// the new shopper's bearer: the request was the first shopper's, and a request is never sent as
// another (as `#send` refuses to replay a 401 under another sign-in, requestPath.ts `currentSignIn`).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { opaqueRedirect, redirectedTo } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const HOUR = 3_600_000;
const FIRST: Credentials = { cart: null, session: { accessToken: 'Fi/rs+t"ac\\c1', refreshToken: 'fI+r/st"re\\f', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true }, backoff: null };
const SECOND = { access_token: 'Se+co/nd"ac\\c2', refresh_token: 'sE/co+nd\\re"f' };

describe('a GET redirect followed while another shopper signs in', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('never asks the final location with the new shopper\'s bearer', async () => {
    const harness: { switchShopper?: () => Promise<unknown> } = {};
    const finalAuth: (string | null)[] = [];
    const { worker, through, keepAlive, settled } = routedWorker({ preset: 'spree' }, FIRST, {
      'GET /api/v2/storefront/account': async (call: Call) => {
        if (call.request.redirect === 'manual') return opaqueRedirect();
        // While the browser follows: a logout, then another shopper's login.
        await harness.switchShopper?.();
        return redirectedTo(`${BASE}/api/v2/storefront/account/orders`, '{}');
      },
      'GET /api/v2/storefront/account/orders': (call: Call) => {
        finalAuth.push(call.request.headers.get('Authorization'));
        return Response.json({ data: [] });
      },
      'POST /spree_oauth/revoke': () => Response.json({}),
      'POST /spree_oauth/token': () => Response.json({ ...SECOND, token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) }),
    });
    harness.switchShopper = async () => {
      await worker.actions.logout(keepAlive);
      await worker.actions.login('second@example.com', 'p+w/"2\\', keepAlive, AbortSignal.timeout(8_000));
    };
    const response = await through(new Request(`${BASE}/api/v2/storefront/account`));
    assert.ok(response !== null, 'handled');
    await response.text();
    await settled();
    assert.ok(!finalAuth.includes(`Bearer ${SECOND.access_token}`), `the first shopper's request asked again as the second: ${JSON.stringify(finalAuth)}`);
  });
});
