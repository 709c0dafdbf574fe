// The storefront side of the reference storefront: seeded users and products, carts, and the
// /api/v2/storefront endpoints with Spree's statuses and error bodies (docs/servers.md,
// "Spree's storefront endpoints").
import { randomInt } from 'node:crypto';
import { randomToken } from './tokens.mjs';

/**
 * @typedef {object} User
 * @property {string} id
 * @property {string} email
 * @property {string} password
 * @property {string} first_name
 * @property {string} last_name
 * @property {string | null} currentCartToken  the order token of the user's current cart
 *
 * @typedef {object} LineItem
 * @property {string} id
 * @property {string} variantId
 * @property {number} quantity
 * @property {number} priceCents
 *
 * @typedef {object} Cart
 * @property {string} id
 * @property {string} number     'R' and 9 digits
 * @property {string} token      the guest order token
 * @property {string | null} userId
 * @property {string | null} email
 * @property {string} state
 * @property {LineItem[]} lineItems
 * @property {string[]} couponCodes  the promotions applied, by code
 * @property {string} createdAt  ISO time
 * @property {string} updatedAt  ISO time
 *
 * @typedef {{ method: string, path: string, query: URLSearchParams, headers: Record<string, string | undefined>, body: string }} ApiRequest
 * @typedef {import('./tokens.mjs').Reply} Reply
 * @typedef {import('./tokens.mjs').TokenStore} TokenStore
 */

const NOT_FOUND = 'The resource you were looking for could not be found.';
const FORBIDDEN = 'You are not authorized to access this page.';

const PRODUCTS = [
  { id: '1', name: 'Spree Tote', slug: 'spree-tote', priceCents: 1599 },
  { id: '2', name: 'Spree Mug', slug: 'spree-mug', priceCents: 1299 },
  { id: '3', name: 'Spree T-Shirt', slug: 'spree-t-shirt', priceCents: 1999 },
  { id: '4', name: 'Spree Hoodie', slug: 'spree-hoodie', priceCents: 4999 },
].map((product) => ({ ...product, variantId: product.id }));

/** The coupon codes the shop knows, each with its discount in percent of the item total. */
const COUPONS = new Map([['SAVE10', 10]]);

const TAXONS = [
  { id: '1', name: 'Categories', permalink: 'categories' },
  { id: '2', name: 'Bags', permalink: 'categories/bags' },
  { id: '3', name: 'Clothing', permalink: 'categories/clothing' },
];

/** @param {number} cents */
const money = (cents) => (cents / 100).toFixed(2);

/** @param {number} status @param {unknown} body @returns {Reply} */
const reply = (status, body) => ({ status, body });
/** Spree's error shape: `{ error }`, plus `errors` for validation (docs/servers.md). */
const fail = (/** @type {number} */ status, /** @type {string} */ error, /** @type {object} */ errors) => reply(status, errors ? { error, errors } : { error });

/** @param {string} body @returns {Record<string, any> | undefined} a JSON object, or undefined */
function jsonObject(body) {
  try {
    const value = JSON.parse(body);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** @param {string} type @param {Record<string, unknown>} values @param {URLSearchParams} query sparse fieldsets: `fields[type]=a,b` */
function sparse(type, values, query) {
  const fields = query.get(`fields[${type}]`);
  if (fields === null) return values;
  const wanted = new Set(fields.split(',').map((field) => field.trim()));
  return Object.fromEntries(Object.entries(values).filter(([name]) => wanted.has(name)));
}

/** @param {typeof PRODUCTS[number]} product */
function productResource(product) {
  return {
    id: product.id,
    type: 'product',
    attributes: { name: product.name, slug: product.slug, price: money(product.priceCents), display_price: `$${money(product.priceCents)}`, currency: 'USD' },
    relationships: { default_variant: { data: { id: product.variantId, type: 'variant' } } },
  };
}

/** @param {unknown[]} data */
const list = (data) => ({ data, meta: { count: data.length, total_count: data.length, total_pages: 1 } });

/** @param {Cart} cart @param {URLSearchParams} query */
function cartResource(cart, query) {
  const itemCents = cart.lineItems.reduce((sum, item) => sum + item.quantity * item.priceCents, 0);
  const promoCents = -Math.round(cart.couponCodes.reduce((sum, code) => sum + (itemCents * (COUPONS.get(code) ?? 0)) / 100, 0));
  const attributes = {
    number: cart.number,
    token: cart.token,
    email: cart.email,
    state: cart.state,
    currency: 'USD',
    item_count: cart.lineItems.reduce((sum, item) => sum + item.quantity, 0),
    item_total: money(itemCents),
    promo_total: money(promoCents),
    total: money(itemCents + promoCents),
    display_total: `$${money(itemCents + promoCents)}`,
    created_at: cart.createdAt,
    updated_at: cart.updatedAt,
  };
  // A new empty cart has `relationships: {}` (docs/servers.md, "Creating a cart").
  const relationships = cart.lineItems.length ? { line_items: { data: cart.lineItems.map((item) => ({ id: item.id, type: 'line_item' })) } } : {};
  return { id: cart.id, type: 'cart', attributes: sparse('cart', attributes, query), relationships: sparse('cart', relationships, query) };
}

/** @param {User} user */
function userDocument(user) {
  return { data: { id: user.id, type: 'user', attributes: { email: user.email, first_name: user.first_name, last_name: user.last_name } } };
}

/**
 * @param {{ tokens: TokenStore, orderTokenHeader: string }} options
 */
export function createShop({ tokens, orderTokenHeader }) {
  /** Users by id. @type {Map<string, User>} */
  const users = new Map();
  /** Carts by order token. @type {Map<string, Cart>} */
  const carts = new Map();
  let lastCartId = 0;
  let lastLineItemId = 0;

  for (const [email, password, first_name, last_name] of [
    ['demo@example.com', 'spree123', 'Demo', 'Shopper'],
    ['shopper2@example.com', 'secret456', 'Second', 'Shopper'],
  ]) {
    const id = String(users.size + 1);
    users.set(id, { id, email, password, first_name, last_name, currentCartToken: null });
  }

  /** Devise looks logins up case-insensitively. @param {string} username @param {string} password */
  function checkPassword(username, password) {
    const login = username.trim().toLowerCase();
    const user = [...users.values()].find((candidate) => candidate.email.toLowerCase() === login);
    return user && user.password === password ? user : undefined;
  }

  /** @param {User | null} user */
  function newCart(user) {
    const now = new Date().toISOString();
    /** @type {Cart} */
    const cart = {
      id: String(++lastCartId),
      number: `R${String(randomInt(1e9)).padStart(9, '0')}`,
      token: randomToken(16),
      userId: user ? user.id : null,
      email: user ? user.email : null,
      state: 'cart',
      lineItems: [],
      couponCodes: [],
      createdAt: now,
      updatedAt: now,
    };
    carts.set(cart.token, cart);
    if (user) user.currentCartToken = cart.token;
    return cart;
  }

  /** @param {string} slugOrId */
  const findProduct = (slugOrId) => PRODUCTS.find((product) => product.slug === slugOrId || product.id === slugOrId);

  // ---- Endpoints. Each gets the request and, for non-public ones, the signed-in user or null.

  /** @type {Record<string, (request: ApiRequest, user: User | null, match: RegExpExecArray) => Reply>} */
  const publicEndpoints = {
    'GET /api/v2/storefront/products': () => reply(200, list(PRODUCTS.map(productResource))),
    'GET /api/v2/storefront/products/([^/]+)': (_request, _user, match) => {
      const product = findProduct(decodeURIComponent(match[1] ?? ''));
      return product ? reply(200, { data: productResource(product) }) : fail(404, NOT_FOUND);
    },
    'GET /api/v2/storefront/taxons': () => reply(200, list(TAXONS.map(({ id, ...attributes }) => ({ id, type: 'taxon', attributes })))),
    'GET /api/v2/storefront/store': () =>
      reply(200, { data: { id: '1', type: 'store', attributes: { name: 'Reference Storefront', default_currency: 'USD', supported_currencies: 'USD' } } }),
  };

  /** Cart and checkout: the bearer's user decides, else the order token (docs/servers.md). */
  const cartEndpoint = (/** @type {(cart: Cart, request: ApiRequest, user: User | null) => Reply} */ handler) =>
    /** @type {(request: ApiRequest, user: User | null) => Reply} */ (request, user) => {
      const token = user ? user.currentCartToken : request.headers[orderTokenHeader];
      const cart = token ? carts.get(token) : undefined;
      return cart ? handler(cart, request, user) : fail(404, NOT_FOUND);
    };
  /** Account: a bearer is required; without one, 403 (docs/servers.md). */
  const accountEndpoint = (/** @type {(user: User, request: ApiRequest) => Reply} */ handler) =>
    /** @type {(request: ApiRequest, user: User | null) => Reply} */ (request, user) => (user ? handler(user, request) : fail(403, FORBIDDEN));
  const cartReply = (/** @type {number} */ status, /** @type {Cart} */ cart, /** @type {URLSearchParams} */ query) => reply(status, { data: cartResource(cart, query) });
  const touch = (/** @type {Cart} */ cart) => (cart.updatedAt = new Date().toISOString());

  /** @type {Record<string, (request: ApiRequest, user: User | null, match: RegExpExecArray) => Reply>} */
  const privateEndpoints = {
    'POST /api/v2/storefront/cart': (request, user) => cartReply(201, newCart(user), request.query),
    'GET /api/v2/storefront/cart': cartEndpoint((cart, request) => cartReply(200, cart, request.query)),
    'POST /api/v2/storefront/cart/add_item': cartEndpoint((cart, request) => {
      const input = jsonObject(request.body);
      if (!input) return fail(422, 'Invalid request body', { base: ['must be a JSON object with variant_id and quantity'] });
      const quantity = input['quantity'] === undefined ? 1 : Number(input['quantity']);
      if (!Number.isInteger(quantity) || quantity < 1) return fail(422, 'Quantity must be greater than 0', { quantity: ['must be greater than 0'] });
      const product = PRODUCTS.find((candidate) => candidate.variantId === String(input['variant_id']));
      if (!product) return fail(404, NOT_FOUND);
      const item = cart.lineItems.find((line) => line.variantId === product.variantId);
      if (item) item.quantity += quantity;
      else cart.lineItems.push({ id: String(++lastLineItemId), variantId: product.variantId, quantity, priceCents: product.priceCents });
      touch(cart);
      return cartReply(200, cart, request.query);
    }),
    // Spree's v2 cart writes, applied to the cart for real: each answers the cart document.
    'PATCH /api/v2/storefront/cart/set_quantity': cartEndpoint((cart, request) => {
      const input = jsonObject(request.body);
      const item = cart.lineItems.find((line) => line.id === String(input?.['line_item_id']));
      if (!item) return fail(404, NOT_FOUND);
      const quantity = Number(input?.['quantity']);
      if (!Number.isInteger(quantity) || quantity < 1) return fail(422, 'Quantity must be greater than 0', { quantity: ['must be greater than 0'] });
      item.quantity = quantity;
      touch(cart);
      return cartReply(200, cart, request.query);
    }),
    'DELETE /api/v2/storefront/cart/remove_line_item/([^/]+)': cartEndpoint((cart, request) => {
      const id = /remove_line_item\/([^/]+)/.exec(request.path)?.[1];
      const before = cart.lineItems.length;
      cart.lineItems = cart.lineItems.filter((line) => line.id !== id);
      if (cart.lineItems.length === before) return fail(404, NOT_FOUND);
      touch(cart);
      return cartReply(200, cart, request.query);
    }),
    'PATCH /api/v2/storefront/cart/apply_coupon_code': cartEndpoint((cart, request) => {
      const code = String(jsonObject(request.body)?.['coupon_code'] ?? '').toUpperCase();
      if (!COUPONS.has(code)) return fail(422, "The coupon code you entered doesn't exist. Please try again.");
      if (!cart.couponCodes.includes(code)) cart.couponCodes.push(code);
      touch(cart);
      return cartReply(200, cart, request.query);
    }),
    'DELETE /api/v2/storefront/cart/remove_coupon_code(?:/([^/]+))?': cartEndpoint((cart, request) => {
      // Without a code in the path, every code goes (Spree: `remove_coupon_code` with no code).
      const code = /remove_coupon_code\/([^/]+)/.exec(request.path)?.[1];
      if (code !== undefined && !cart.couponCodes.includes(decodeURIComponent(code).toUpperCase())) return fail(422, 'The coupon code could not be removed.');
      cart.couponCodes = code === undefined ? [] : cart.couponCodes.filter((applied) => applied !== decodeURIComponent(code).toUpperCase());
      touch(cart);
      return cartReply(200, cart, request.query);
    }),
    'PATCH /api/v2/storefront/cart/associate': accountEndpoint((user, request) => {
      const token = request.query.get('guest_order_token');
      const cart = token ? carts.get(token) : undefined;
      if (!cart) return fail(404, NOT_FOUND);
      if (cart.userId) return fail(422, 'Cart is already associated to a user');
      Object.assign(cart, { userId: user.id, email: cart.email ?? user.email });
      user.currentCartToken = cart.token;
      touch(cart);
      return cartReply(200, cart, request.query);
    }),
    'GET /api/v2/storefront/checkout': cartEndpoint((cart, request) => cartReply(200, cart, request.query)),
    'PATCH /api/v2/storefront/checkout': cartEndpoint((cart, request) => {
      const input = jsonObject(request.body) ?? {};
      const order = input['order'] && typeof input['order'] === 'object' ? input['order'] : input; // Spree nests under `order`
      if (typeof order.email === 'string') cart.email = order.email;
      if (typeof order.state === 'string') cart.state = order.state;
      touch(cart);
      return cartReply(200, cart, request.query);
    }),
    'GET /api/v2/storefront/account': accountEndpoint((user) => reply(200, userDocument(user))),
    'PATCH /api/v2/storefront/account': accountEndpoint((user, request) => {
      const input = jsonObject(request.body) ?? {};
      const changes = input['user'] && typeof input['user'] === 'object' ? input['user'] : input; // Spree nests under `user`
      for (const name of /** @type {const} */ (['email', 'first_name', 'last_name'])) {
        if (typeof changes[name] === 'string') user[name] = changes[name];
      }
      return reply(200, userDocument(user));
    }),
    'GET /api/v2/storefront/account/orders': accountEndpoint((user, request) =>
      reply(200, list([...carts.values()].filter((cart) => cart.userId === user.id).map((cart) => cartResource(cart, request.query)))),
    ),
  };

  const routes = [
    ...Object.entries(publicEndpoints).map(([route, handler]) => ({ route, handler, public: true })),
    ...Object.entries(privateEndpoints).map(([route, handler]) => ({ route, handler, public: false })),
  ].map(({ route, handler, public: isPublic }) => ({ pattern: new RegExp(`^${route}/?$`), handler, isPublic }));

  /**
   * Whether a request goes to an existing endpoint that authenticates its bearer (not a public one,
   * not an unknown path, which stays a 404 whatever the credentials). The server's
   * `refuseEveryBearer` control refuses bearers only there, as Spree would refuse a revoked token.
   * @param {string} method @param {string} path
   */
  function authenticates(method, path) {
    const key = `${method === 'HEAD' ? 'GET' : method} ${path}`;
    const found = routes.find(({ pattern }) => pattern.test(key));
    return found !== undefined && !found.isPublic;
  }

  /**
   * Answers a request under /api/. Authentication runs only on non-public endpoints, so an expired
   * bearer never causes a 401 on products, taxons or store.
   * @param {ApiRequest} request
   * @returns {Reply}
   */
  function handle(request) {
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    for (const { pattern, handler, isPublic } of routes) {
      const match = pattern.exec(`${method} ${request.path}`);
      if (!match) continue;
      if (isPublic) return handler(request, null, match);
      // Expired or revoked: 401 with no WWW-Authenticate (docs/servers.md); unknown: a guest.
      const auth = tokens.authenticate(request.headers['authorization']);
      if (auth.kind === 'expired') return fail(401, 'The access token expired');
      if (auth.kind === 'revoked') return fail(401, 'The access token was revoked');
      const user = auth.kind === 'user' ? (users.get(auth.userId) ?? null) : null;
      return handler(request, user, match);
    }
    return fail(404, NOT_FOUND);
  }

  return { users, carts, checkPassword, authenticates, handle };
}
