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

// A guest's GET of its cart redirected under the base URL while the same shopper logs in and the
// login takes the guest cart along: the request is that sign-in's (writeIdentity.ts `belongsTo`), not
// another shopper's, and the final location gets a credential again (docs/behaviour.md: "a redirect
// that stays under baseUrl gets them again").
const GUEST_CART = { token: 'gu/e+st"ca\\rt7', number: 'R5150' };
const GUEST_HELD: Credentials = { cart: GUEST_CART, session: null, backoff: null };
const JOINED = { access_token: 'Jo+in/ed"ac\\c', refresh_token: 'jO/in+ed\\re"f' };
const GUEST_DOC = { data: { id: '9', type: 'cart', attributes: { number: GUEST_CART.number, token: GUEST_CART.token } } };

describe('a guest\'s GET redirect followed while the same shopper signs in', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  for (const sealTokens of [true, false]) {
    it(`sealTokens ${sealTokens}: the final location under the base gets a credential again, not the bare followed answer`, async () => {
      const harness: { signIn?: () => Promise<unknown> } = {};
      const finalAsks: Array<{ auth: string | null; order: string | null }> = [];
      const { worker, through, keepAlive, settled } = routedWorker({ preset: 'spree', sealTokens }, GUEST_HELD, {
        'GET /api/v2/storefront/cart': async (call: Call) => {
          if (call.request.redirect === 'manual') return opaqueRedirect();
          // The browser follows without the worker's credentials; the shopper signs in meanwhile.
          await harness.signIn?.();
          return redirectedTo(`${BASE}/api/v2/storefront/cart/estimate_shipping_rates`, JSON.stringify({ error: 'The resource you were looking for could not be found.' }));
        },
        'GET /api/v2/storefront/cart/estimate_shipping_rates': (call: Call) => {
          finalAsks.push({ auth: call.request.headers.get('Authorization'), order: call.request.headers.get('X-Spree-Order-Token') });
          return Response.json(GUEST_DOC);
        },
        'POST /spree_oauth/token': () => Response.json({ ...JOINED, token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) }),
        'PATCH /api/v2/storefront/cart/associate': () => Response.json(GUEST_DOC),
      });
      harness.signIn = () => worker.actions.login('shopper@example.com', 'p/w+"\\', keepAlive, AbortSignal.timeout(8_000));
      const response = await through(new Request(`${BASE}/api/v2/storefront/cart`));
      assert.ok(response !== null, 'handled');
      const body = await response.text();
      await settled();
      assert.equal(finalAsks.length, 1, `the final location under the base was asked again with a credential; the page got: ${body}`);
    });
  }
});
