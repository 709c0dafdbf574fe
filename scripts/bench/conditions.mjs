// The bench's conditions: what each context runs (no worker, a reference worker, storefront-auth)
// and the calls it times. Every condition of one API sends the same call to the same server, with
// the same credential, so that only the browser side differs: where no storefront-auth worker adds
// the credential, the page sends its own.
import { evaluate } from './browser.mjs';

/** The Store API's publishable key in the reference storefront's spree-v3 flavour. */
export const V3_KEY = 'pk_test_storefront_auth';

/**
 * Each condition: `api` (v2: the `store` preset on the storefront's v2 flavour; v3: the `spree-v3`
 * preset on the Store API), `worker` (one of bench/site's reference workers) or `dropIn`
 * (storefront-auth's attributes: signed in or not, sealing on or off), and `calls` (cart, and
 * account where a row needs it).
 */
export const CONDITIONS = {
  a: { label: 'no worker', api: 'v2', worker: null, calls: ['cart'] },
  b: { label: 'pass-through worker', api: 'v2', worker: '/passthrough-sw.js', calls: ['cart'] },
  aPipe: { label: 'floor (a): body through an identity TransformStream', api: 'v2', worker: '/floor-pipe-sw.js', calls: ['cart', 'account'] },
  aRead: { label: 'floor (a): body read, answered as one chunk', api: 'v2', worker: '/floor-read-sw.js', calls: ['cart', 'account'] },
  bFloor: { label: 'floor (b): request copied, one header set', api: 'v2', worker: '/floor-header-sw.js', calls: ['cart', 'account'] },
  c: { label: 'storefront-auth, guest', api: 'v2', dropIn: {}, calls: ['cart'] },
  d: { label: 'storefront-auth, signed in', api: 'v2', dropIn: {}, signIn: true, calls: ['cart', 'account'] },
  c0: { label: 'storefront-auth, guest, sealing off', api: 'v2', dropIn: { sealTokens: 'false' }, calls: ['cart'] },
  d0: { label: 'storefront-auth, signed in, sealing off', api: 'v2', dropIn: { sealTokens: 'false' }, signIn: true, calls: ['cart', 'account'] },
  // The offline writes on, nothing queued: whether writes wait is a number in the worker's memory.
  cw: { label: 'storefront-auth, guest, offline writes on', api: 'v2', dropIn: { offlineWrites: '' }, calls: ['cart'] },
  dw: { label: 'storefront-auth, signed in, offline writes on', api: 'v2', dropIn: { offlineWrites: '' }, signIn: true, calls: ['cart', 'account'] },
  v3aPipe: { label: 'spree-v3: floor (a), identity TransformStream', api: 'v3', worker: '/floor-pipe-sw.js', calls: ['cart'] },
  v3aRead: { label: 'spree-v3: floor (a), read, one chunk', api: 'v3', worker: '/floor-read-sw.js', calls: ['cart'] },
  v3bFloor: { label: 'spree-v3: floor (b), copy, one header', api: 'v3', worker: '/floor-header-sw.js', calls: ['cart'] },
  v3c: { label: 'spree-v3: storefront-auth, guest', api: 'v3', dropIn: { preset: 'spree-v3', publishableKey: V3_KEY }, calls: ['cart'] },
  v3d: { label: 'spree-v3: storefront-auth, signed in', api: 'v3', dropIn: { preset: 'spree-v3', publishableKey: V3_KEY }, signIn: true, calls: ['cart'] },
};

/** The v2 calls: the cart, and the signed-in account (both documents are sealed). */
const V2_CART = '/api/v2/storefront/cart';
const V2_ACCOUNT = '/api/v2/storefront/account';

/** A 200 KB cart document on a cart path, the same canned answer for every condition (main.mjs sets it up). */
export const LARGE_CART = '/api/v2/storefront/cart/large';

/**
 * Readies `tab` (a context's page on the bench page of the condition's server) for `condition` (one
 * of CONDITIONS): registers its worker or loads the drop-in, signs in or takes a cart, and returns
 * each call's `{ url, init }` as the page sends it; v2 conditions also get `large`, the 200 KB cart
 * document, timed apart (first and last byte).
 */
export async function prepare(tab, condition, user) {
  if (condition.worker !== undefined && condition.worker !== null) await evaluate(tab, (url) => window.bench.registerWorker(url), condition.worker);
  const calls = {};
  if (condition.dropIn === undefined) {
    // The page holds its own credentials, as a site without storefront-auth does.
    if (condition.api === 'v3') {
      calls.cart = await evaluate(tab, (key) => window.bench.ownV3Cart(key), V3_KEY);
    } else {
      calls.cart = { url: V2_CART, init: { headers: { 'X-Store-Order-Token': await evaluate(tab, () => window.bench.ownCart()) } } };
      calls.large = { url: LARGE_CART, init: calls.cart.init };
      if (condition.calls.includes('account')) {
        const pair = await evaluate(tab, (user) => window.bench.ownPasswordGrant(user.username, user.password), user);
        calls.account = { url: V2_ACCOUNT, init: { headers: { Authorization: `Bearer ${pair.access_token}` } } };
      }
    }
    return calls;
  }
  await evaluate(tab, (attributes) => window.bench.loadDropIn(attributes), condition.dropIn);
  if (condition.signIn) await evaluate(tab, (user) => window.storefrontAuth.login(user), user);
  const state = await evaluate(tab, () => window.storefrontAuth.createCart());
  if (condition.api === 'v3') {
    // The page sends its key, as the official SDK does; the worker adds x-spree-token (and the bearer).
    calls.cart = { url: `/api/v3/store/carts/${state.cart.id}`, init: { headers: { 'X-Spree-Api-Key': V3_KEY } } };
  } else {
    calls.cart = { url: V2_CART, init: {} };
    calls.large = { url: LARGE_CART, init: {} };
    if (condition.calls.includes('account')) calls.account = { url: V2_ACCOUNT, init: {} };
  }
  return calls;
}
