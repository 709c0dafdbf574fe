// A page's own refresh grant carrying `sealed:refresh` (docs/security.md, "How sealing works":
// "answered from the worker's single refresh (the same lock, the same result, sealed): it never
// causes a second refresh"), through RequestPath, with spree (v2) and spree-v3: a due pair costs
// one grant at the server, shared with the worker's own refresh for a concurrent request; a refused
// pair gets the server's own refusal; a pair that is not due is answered from the worker's pair
// with no grant. The page's answers carry placeholders only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import type { StorefrontAuthOptions } from '../src/sw/options.js';
import { deferred, installFakeLocks, removeFakeLocks, storeApiJwt } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

interface Flavour {
  name: string;
  options: StorefrontAuthOptions;
  /** The page's sealed refresh grant. */
  pageRefresh: () => Request;
  /** A page request that needs the bearer. */
  account: () => Request;
  tokenRoute: string;
  /** The access token of the pair named `name`, living `leftMs` after NOW. */
  access: (name: string, leftMs: number) => string;
  /** The server's answer to a refresh: the pair named `name`. */
  issued: (name: string) => Response;
  refused: () => Response;
  /** The refresh token a grant body carries. */
  grantToken: (body: string) => string | null;
  /** What the page gets for a refused pair. */
  refusal: { status: number; body: unknown };
  /** The page's answer for a pair with `leftMs` left. */
  sealed: (leftMs: number) => unknown;
}

const USER = { id: 'cus_1', email: 'shopper@example.com' };

const FLAVOURS: Flavour[] = [
  {
    name: 'spree (v2)',
    options: { preset: 'spree' },
    pageRefresh: () => new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=sealed%3Arefresh' }),
    account: () => new Request(`${BASE}/api/v2/storefront/account`),
    tokenRoute: 'POST /spree_oauth/token',
    access: (name) => `access-${name}`,
    issued: (name) => Response.json({ access_token: `access-${name}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `refresh-${name}`, created_at: NOW / 1000 }),
    refused: () => Response.json({ error: 'invalid_grant', error_description: 'The provided authorization grant is invalid.' }, { status: 400 }),
    grantToken: (body) => new URLSearchParams(body).get('refresh_token'),
    refusal: { status: 400, body: { error: 'invalid_grant', error_description: 'The provided authorization grant is invalid.' } },
    sealed: (leftMs) => ({ access_token: 'sealed:access', token_type: 'Bearer', expires_in: leftMs / 1000, refresh_token: 'sealed:refresh', created_at: NOW / 1000 }),
  },
  {
    name: 'spree-v3',
    options: { preset: 'spree-v3', publishableKey: 'pk_test' },
    pageRefresh: () => new Request(`${BASE}/api/v3/store/auth/refresh`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Spree-Api-Key': 'pk_test' }, body: '{"refresh_token":"sealed:refresh"}' }),
    account: () => new Request(`${BASE}/api/v3/store/customers/me`, { headers: { 'X-Spree-Api-Key': 'pk_test' } }),
    tokenRoute: 'POST /api/v3/store/auth/refresh',
    access: (_name, leftMs) => storeApiJwt((NOW + leftMs) / 1000),
    issued: (name) => Response.json({ token: storeApiJwt(NOW / 1000 + 3600), refresh_token: `refresh-${name}`, user: USER }),
    refused: () => Response.json({ error: { code: 'invalid_refresh_token', message: 'Invalid or expired refresh token' } }, { status: 401 }),
    grantToken: (body) => (JSON.parse(body) as { refresh_token?: string }).refresh_token ?? null,
    refusal: { status: 401, body: { error: { code: 'invalid_refresh_token', message: 'Invalid or expired refresh token' } } },
    sealed: () => ({ token: 'sealed:access', refresh_token: 'sealed:refresh', user: USER }),
  },
];

/** What the worker holds: the pair named `1`, whose access token has `leftMs` left. */
function holding(flavour: Flavour, leftMs: number): Credentials {
  const session = { accessToken: flavour.access('1', leftMs), refreshToken: 'refresh-1', expiresAt: NOW + leftMs, lifetimeMs: HOUR, confirmed: true, user: USER };
  return { cart: null, session, backoff: null };
}

/** Asserts the page's answer holds no real token (a new or old pair's). */
async function onlyPlaceholders(response: Response, ...secrets: string[]): Promise<unknown> {
  const text = await response.text();
  for (const secret of ['access-', 'refresh-1', 'refresh-2', ...secrets]) assert.ok(!text.includes(secret), `${text} holds ${secret}`);
  return JSON.parse(text);
}

describe('a page’s own sealed refresh grant', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    installFakeLocks();
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
    removeFakeLocks();
  });

  for (const flavour of FLAVOURS) {
    describe(flavour.name, () => {
      it('a due pair: exactly one grant at the server, shared with the worker’s own refresh for a concurrent request', async () => {
        const answer = deferred<Response>();
        const grants: Call[] = [];
        const { calls, settled, storage, through } = routedWorker(flavour.options, holding(flavour, 10_000), {
          [flavour.tokenRoute]: (call) => {
            grants.push(call);
            return answer.promise;
          },
          'GET /api/v2/storefront/account': () => Response.json({ data: {} }),
          'GET /api/v3/store/customers/me': () => Response.json(USER),
        }, () => NOW);
        await settle();
        const page = through(flavour.pageRefresh());
        const account = through(flavour.account());
        await settle();
        assert.equal(grants.length, 1, 'one grant, however many wait for it');
        answer.resolve(flavour.issued('2'));
        const [pageAnswer, accountAnswer] = await Promise.all([page, account]);
        await settled();

        assert.equal(grants.length, 1);
        assert.equal(flavour.grantToken(await grants[0]!.body), 'refresh-1', 'the grant spends the real refresh token');
        assert.ok(pageAnswer !== null && accountAnswer !== null);
        assert.equal(pageAnswer.status, 200);
        assert.equal(pageAnswer.headers.get('Cache-Control'), 'no-store');
        const newAccess = (await storage.read()).session?.accessToken ?? '';
        assert.deepEqual(await onlyPlaceholders(pageAnswer, newAccess), flavour.sealed(HOUR));
        const sentAccount = calls.find((call) => call.route !== flavour.tokenRoute);
        assert.equal(sentAccount?.request.headers.get('Authorization'), `Bearer ${newAccess}`, 'the concurrent request went out with the new bearer');
        assert.equal((await storage.read()).session?.refreshToken, 'refresh-2');
      });

      it(`a refused pair: the page gets the server’s refusal (${flavour.refusal.status}), and the session ends`, async () => {
        const { announced, settled, storage, through, calls } = routedWorker(flavour.options, holding(flavour, 10_000), { [flavour.tokenRoute]: flavour.refused }, () => NOW);
        await settle();
        const response = await through(flavour.pageRefresh());
        await settled();
        assert.ok(response !== null);
        assert.equal(response.status, flavour.refusal.status);
        assert.deepEqual(await onlyPlaceholders(response, flavour.access('1', 10_000)), flavour.refusal.body);
        assert.equal(calls.length, 1);
        assert.equal((await storage.read()).session, null);
        assert.deepEqual(announced.map((a) => a.type), ['sessionexpired']);
      });

      it('a pair that is not due: answered from the current pair, without any grant', async () => {
        const { calls, announced, settled, storage, through } = routedWorker(flavour.options, holding(flavour, HOUR - 60_000), {}, () => NOW);
        await settle();
        const response = await through(flavour.pageRefresh());
        await settled();
        assert.ok(response !== null);
        assert.equal(response.status, 200);
        assert.deepEqual(await onlyPlaceholders(response, flavour.access('1', HOUR - 60_000)), flavour.sealed(HOUR - 60_000));
        assert.deepEqual(calls, [], 'no grant');
        assert.deepEqual(announced, []);
        assert.equal((await storage.read()).session?.refreshToken, 'refresh-1');
      });

      it('signed out: the page gets the server’s refusal, with no grant', async () => {
        const { calls, through } = routedWorker(flavour.options, { cart: null, session: null, backoff: null }, {}, () => NOW);
        await settle();
        const response = await through(flavour.pageRefresh());
        assert.equal(response?.status, flavour.refusal.status);
        assert.deepEqual(calls, []);
      });
    });
  }
});
