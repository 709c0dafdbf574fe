// What a 404 or a 401 on one of the worker's own requests says about the settings: the message names
// the URL the worker requested (base URL and path, never the query) and the option to check, for
// the bridge's createCart and login and a login's cart association, through the worker with a fetch
// routed under BASE (a base URL with a path, so the URL named is visibly the whole one).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isStorefrontAuthError } from '../src/shared/errors.js';
import { startActionBudget } from '../src/sw/actionBudget.js';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { settingToCheck, wrongSetting } from '../src/sw/wrongSetting.js';
import { rejectsWith, storeApiJwt } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const CART = { method: 'POST', label: '/api/v2/storefront/cart' } as const;

describe('settingToCheck', () => {
  it('points a 404 at baseUrl and preset, whatever the preset', () => {
    for (const preset of ['store', 'spree', 'spree-v3'] as const) assert.match(settingToCheck(404, preset) ?? '', /^baseUrl .*and preset$/);
  });
  it("points a Store API's 401 at publishableKey, a v2 server's at baseUrl and preset", () => {
    assert.equal(settingToCheck(401, 'spree-v3'), 'publishableKey');
    assert.equal(settingToCheck(401, 'store'), 'baseUrl and preset');
    assert.equal(settingToCheck(401, 'spree'), 'baseUrl and preset');
  });
  it('says nothing of the settings for other statuses', () => {
    for (const status of [200, 201, 400, 403, 405, 422, 429, 500, 502]) assert.equal(settingToCheck(status, 'store'), null, String(status));
  });
});

describe('wrongSetting', () => {
  it('names the method, the whole URL requested and the option, with the status', () => {
    const error = wrongSetting(CART, 'https://shop.example/api/v2/storefront', 404, 'store');
    assert.ok(isStorefrontAuthError(error));
    assert.equal(error.code, 'bad_response');
    assert.equal(error.status, 404);
    assert.equal(
      error.message,
      "POST https://shop.example/api/v2/storefront/api/v2/storefront/cart answered 404; check baseUrl (the server's root, without the API path) and preset.",
    );
  });
  it('names publishableKey for a 401 from the Store API', () => {
    const error = wrongSetting({ method: 'POST', label: '/api/v3/store/carts' }, 'http://127.0.0.1:8790', 401, 'spree-v3');
    assert.equal(error?.message, 'POST http://127.0.0.1:8790/api/v3/store/carts answered 401; check publishableKey.');
  });
  it('gives no error for a status that says nothing of the settings', () => {
    assert.equal(wrongSetting(CART, 'https://shop.example', 422, 'store'), null);
  });
});

describe("the bridge's actions meeting a 404 or a 401", () => {
  // The real announcer opens a BroadcastChannel, which would keep Node's event loop alive; pages
  // hear announcements through `toPages`, which is what these tests record.
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });
  const GUEST: Credentials = { cart: null, session: null, backoff: null };
  const PASSWORD = 'hunter2-SECRET';
  const HELD = { token: 'order-token-7Zq', number: 'R100' };
  const notFound = (): Response => new Response('<h1>Not Found</h1>', { status: 404, headers: { 'Content-Type': 'text/html' } });

  it('createCart names the URL it sent and baseUrl, and keeps the cart held', async () => {
    const { worker, announced, storage } = routedWorker({ preset: 'store' }, { ...GUEST, cart: HELD }, { 'POST /api/v2/storefront/cart': notFound });
    const error = await rejectsWith(worker.actions.createCart(startActionBudget()), 'bad_response');
    assert.equal(error.status, 404);
    assert.equal(error.message, `POST ${BASE}/api/v2/storefront/cart answered 404; check baseUrl (the server's root, without the API path) and preset.`);
    assert.deepEqual((await storage.read()).cart, HELD);
    assert.deepEqual(announced, []);
  });

  it("login names the token path's URL and baseUrl, never the password", async () => {
    const { worker, storage } = routedWorker({ preset: 'spree' }, GUEST, { 'POST /spree_oauth/token': notFound });
    const error = await rejectsWith(worker.actions.login('shopper@example.com', PASSWORD, () => {}, startActionBudget()), 'bad_response');
    assert.equal(error.message, `POST ${BASE}/spree_oauth/token answered 404; check baseUrl (the server's root, without the API path) and preset.`);
    assert.deepEqual(await storage.read(), GUEST);
  });

  it("the Store API's 401 for a refused key names publishableKey, for createCart and login; a wrong password stays invalid_grant", async () => {
    const refusedKey = (): Response => Response.json({ error: { code: 'invalid_token', message: 'Valid API key required' } }, { status: 401 });
    const { worker } = routedWorker({ preset: 'spree-v3', publishableKey: 'pk_not_this_store' }, GUEST, {
      'POST /api/v3/store/carts': refusedKey,
      'POST /api/v3/store/auth/login': refusedKey,
    });
    const cart = await rejectsWith(worker.actions.createCart(startActionBudget()), 'bad_response');
    assert.equal(cart.message, `POST ${BASE}/api/v3/store/carts answered 401; check publishableKey.`);
    const login = await rejectsWith(worker.actions.login('shopper@example.com', PASSWORD, () => {}, startActionBudget()), 'bad_response');
    assert.equal(login.message, `POST ${BASE}/api/v3/store/auth/login answered 401; check publishableKey.`);

    const wrongPassword = routedWorker({ preset: 'spree-v3', publishableKey: 'pk_test' }, GUEST, {
      'POST /api/v3/store/auth/login': () => Response.json({ error: { code: 'authentication_failed', message: 'Invalid email or password' } }, { status: 401 }),
    });
    await rejectsWith(wrongPassword.worker.actions.login('shopper@example.com', PASSWORD, () => {}, startActionBudget()), 'invalid_grant');
  });

  it("a login's cart association answered 404 is told in a second change naming its URL, never the guest token", async () => {
    const access = storeApiJwt(Date.now() / 1000 + 3600);
    const { worker, announced, keepAlive, settled } = routedWorker({ preset: 'store' }, { ...GUEST, cart: HELD }, {
      'POST /store_oauth/token': () => Response.json({ access_token: access, token_type: 'Bearer', expires_in: 3600, refresh_token: 'refresh-9x', created_at: 1 }),
      'PATCH /api/v2/storefront/cart/associate': notFound,
    });
    await worker.actions.login('shopper@example.com', PASSWORD, keepAlive, startActionBudget());
    await settled();
    const warning = announced[1]?.warning;
    assert.equal(warning?.code, 'bad_response');
    assert.equal(warning?.status, 404);
    assert.ok(warning?.message.includes(`PATCH ${BASE}/api/v2/storefront/cart/associate answered 404; check baseUrl`), warning?.message);
    assert.ok(!warning?.message.includes(HELD.token), 'the guest token in the query is never echoed');
  });
});
