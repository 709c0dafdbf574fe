// A page request that joins a refresh another request started (docs/behaviour.md, "Bounds on every
// wait"): it waits for storage no longer than any page request does, 2 s for its reads and 2 s for
// its writes, however many of them it sits through inside that refresh and after it. Through the
// worker over storage that stops answering once the credentials are loaded (an open blocked by
// another connection), with the real 2 s bound:
// - the refresh's re-read and write, which the joiner sat through, leave it nothing more to wait for
//   the write of the cart its answer brought;
// - nor for the re-read and write of a refresh of its own after its replay met a 401;
// - a refresh a bridge action started (no page request's allowance) is joined on the same terms;
// - a request whose allowance such a refresh spent, joining another refresh after its replay met a
//   401, waits through that one's storage steps no longer than it has left, and goes on from the
//   memory copy; that refresh goes on for the request that started it, and lands;
// - the shared refresh itself is not cut short: it completes, everyone uses its bearer, and what it
//   brought lands in storage with the cart once storage answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { startActionBudget } from '../src/sw/actionBudget.js';
import { stuckStorage } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const HOUR = 3_600_000;
/** A page request's storage waits in all: 2 s for its reads, 2 s for its writes, and some slack. */
const LONGEST_MS = 4_300;

/** Signed in, the bearer due for refresh (it expires within 30 s). */
function dueCredentials(): Credentials {
  return { cart: null, session: { accessToken: 'access-0', refreshToken: 'refresh-0', expiresAt: Date.now() + 10_000, lifetimeMs: HOUR, confirmed: true }, backoff: null };
}

/** The bearer `call` went out with. */
const bearer = (call: Call | undefined): string | null | undefined => call?.request.headers.get('Authorization');

/**
 * A worker over storage that answers the first load, then nothing until `release`; its server
 * rotates the pair on each grant (`access-1`, `access-2`, …), answers a new cart by `cart`, and the
 * account by `account` (accepted, unless told otherwise).
 */
async function stuckWorker(cart: (call: Call) => Response | Promise<Response>, account: (call: Call) => Response = () => Response.json({ data: {} })) {
  const stuck = stuckStorage(dueCredentials());
  let grants = 0;
  const made = routedWorker(
    { preset: 'spree' },
    dueCredentials(),
    {
      'POST /spree_oauth/token': () => (grants++, Response.json({ access_token: `access-${grants}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `refresh-${grants}`, created_at: Date.now() / 1000 })),
      'GET /api/v2/storefront/account': account,
      'POST /api/v2/storefront/cart': cart,
    },
    Date.now,
    { storage: stuck.storage },
  );
  stuck.release();
  assert.equal((await made.worker.actions.getState()).state.signedIn, true, 'loaded into memory');
  /** Lets storage answer everything queued, including what its answers queue in turn. */
  const unstick = async (): Promise<Credentials> => {
    for (let round = 0; round < 5; round++) {
      stuck.release();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await made.settled();
    return stuck.stored();
  };
  return { ...made, unstick };
}

/** Sends `first`, then `joiner` 100 ms later, while `first`'s refresh waits for storage; `joiner`'s answer and how long it took, ms. */
async function joining(through: (request: Request) => Promise<Response | null>, first: Request, joiner: Request) {
  const answered = through(first);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const started = performance.now();
  const response = await through(joiner);
  const ms = performance.now() - started;
  return { first: await answered, response, ms };
}

const createdCart = { data: { attributes: { token: 'cart-token', number: 'R1' } } };

// Each case has its own worker and storage, and spends most of its time waiting: run them side by side.
describe('a page request that joins a refresh in flight, over storage that stopped answering', { concurrency: true }, () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('waits for storage no longer than 4 s in all: the refresh’s waits it sat through are its own', { timeout: 20_000 }, async () => {
    const { through, calls, unstick } = await stuckWorker(() => Response.json(createdCart, { status: 201 }));
    const { first, response, ms } = await joining(through, new Request(`${BASE}/api/v2/storefront/account`), new Request(`${BASE}/api/v2/storefront/cart`, { method: 'POST' }));
    assert.equal(response?.status, 201);
    // Without the charge: the refresh's re-read and write (1.9 s + 2 s), then 2 s more for the cart.
    assert.ok(ms < LONGEST_MS, `the joiner waited ${Math.round(ms)} ms for storage`);
    assert.equal(first?.status, 200);
    // One refresh, whole, for both: its bearer went out with each, and it lands with the cart.
    assert.deepEqual(
      calls.map((call) => [call.route, bearer(call)]),
      [
        ['POST /spree_oauth/token', null],
        ['GET /api/v2/storefront/account', 'Bearer access-1'],
        ['POST /api/v2/storefront/cart', 'Bearer access-1'],
      ],
    );
    const stored = await unstick();
    assert.equal(stored.session?.refreshToken, 'refresh-1');
    assert.deepEqual(stored.cart, { token: 'cart-token', number: 'R1' });
  });

  it('and after its replay meets a 401, its own refresh’s re-read and write wait no more either', { timeout: 20_000 }, async () => {
    // The shared refresh's bearer is refused for the cart: the joiner refreshes once more and replays.
    const { through, calls, unstick } = await stuckWorker((call) => (bearer(call) === 'Bearer access-2' ? Response.json(createdCart, { status: 201 }) : new Response(null, { status: 401 })));
    const { first, response, ms } = await joining(through, new Request(`${BASE}/api/v2/storefront/account`), new Request(`${BASE}/api/v2/storefront/cart`, { method: 'POST' }));
    assert.equal(response?.status, 201);
    // Without the charge: 1.9 s + 2 s in the shared refresh, 2 s + 2 s in its own, and none left for the cart.
    assert.ok(ms < LONGEST_MS, `the joiner waited ${Math.round(ms)} ms for storage`);
    assert.equal(first?.status, 200);
    assert.deepEqual(
      calls.map((call) => [call.route, bearer(call)]),
      [
        ['POST /spree_oauth/token', null],
        ['GET /api/v2/storefront/account', 'Bearer access-1'],
        ['POST /api/v2/storefront/cart', 'Bearer access-1'],
        ['POST /spree_oauth/token', null],
        ['POST /api/v2/storefront/cart', 'Bearer access-2'],
      ],
    );
    const stored = await unstick();
    assert.equal(stored.session?.refreshToken, 'refresh-2');
    assert.deepEqual(stored.cart, { token: 'cart-token', number: 'R1' });
  });

  it('joining the refresh of a bridge action (createCart), it waits no longer either', { timeout: 20_000 }, async () => {
    const { worker, through, calls, unstick } = await stuckWorker(() => Response.json(createdCart, { status: 201 }));
    const creating = worker.actions.createCart(startActionBudget());
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const response = await through(new Request(`${BASE}/api/v2/storefront/cart`, { method: 'POST' }));
    const ms = performance.now() - started;
    assert.equal(response?.status, 201);
    assert.ok(ms < LONGEST_MS, `the joiner waited ${Math.round(ms)} ms for storage`);
    await creating;
    assert.deepEqual(
      calls.map((call) => [call.route, bearer(call)]),
      [
        ['POST /spree_oauth/token', null],
        ['POST /api/v2/storefront/cart', 'Bearer access-1'],
        ['POST /api/v2/storefront/cart', 'Bearer access-1'],
      ],
    );
    assert.equal((await unstick()).session?.refreshToken, 'refresh-1');
  });

  it('its allowance spent in one refresh, it waits through another’s storage steps no longer than it has left', { timeout: 20_000 }, async () => {
    // access-1 is revoked early at the server: the account accepts it once, the cart refuses it a
    // little later (300 ms), once a second page request has started a refresh of its own after a 401.
    let accounts = 0;
    const refused = (call: Call) => bearer(call) === 'Bearer access-1';
    const { through, calls, unstick } = await stuckWorker(
      async (call) => (refused(call) ? (await new Promise((resolve) => setTimeout(resolve, 300)), new Response(null, { status: 401 })) : Response.json(createdCart, { status: 201 })),
      (call) => (++accounts === 2 && refused(call) ? new Response(null, { status: 401 }) : Response.json({ data: {} })),
    );
    const first = through(new Request(`${BASE}/api/v2/storefront/account`));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    // It joins the first refresh, whose re-read and write spend its allowance (1.9 s + 2 s).
    const joiner = through(new Request(`${BASE}/api/v2/storefront/cart`, { method: 'POST' }));
    assert.equal((await first)?.status, 200);
    // Answered 401, this one starts a second refresh, with an allowance of its own, before the joiner's 401 comes.
    const second = through(new Request(`${BASE}/api/v2/storefront/account`));
    const response = await joiner;
    const ms = performance.now() - started;
    // Without the bound: that refresh's re-read and write (2 s + 2 s) as well; 300 ms of it is the server's.
    assert.ok(ms < LONGEST_MS + 300, `the joiner waited ${Math.round(ms)} ms, storage waits included`);
    // The memory copy holds only the refused bearer while that refresh re-reads storage: the page gets the server's 401.
    assert.equal(response?.status, 401);
    // The second refresh is not cut short: it rotates, its request is replayed with what it brought, and that lands.
    assert.equal((await second)?.status, 200);
    assert.deepEqual(
      calls.map((call) => [call.route, bearer(call)]),
      [
        ['POST /spree_oauth/token', null],
        ['GET /api/v2/storefront/account', 'Bearer access-1'],
        ['POST /api/v2/storefront/cart', 'Bearer access-1'],
        ['GET /api/v2/storefront/account', 'Bearer access-1'],
        ['POST /spree_oauth/token', null],
        ['GET /api/v2/storefront/account', 'Bearer access-2'],
      ],
    );
    assert.equal((await unstick()).session?.refreshToken, 'refresh-2');
  });
});
