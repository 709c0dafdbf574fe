// The spree-v3 flavour's data: seeded customers and products, carts and orders, and the Store API's
// flat JSON serializers with prefixed ids (`cus_…`, `cart_…`, `or_…`): docs/servers.md, "Signing
// in", "The guest cart" and "The signed-in cart". The routes that use them are in storeApiV3.mjs.
import { randomInt } from 'node:crypto';
import { base58Token } from './v3Tokens.mjs';

/**
 * @typedef {object} Customer
 * @property {number} id        the database id, the JWT's `user_id`
 * @property {string} email
 * @property {string} password
 * @property {string} first_name
 * @property {string} last_name
 * @property {string | null} phone
 * @property {boolean} accepts_email_marketing
 * @property {string} createdAt
 *
 * @typedef {{ id: number, variantId: number, name: string, quantity: number, priceCents: number }} LineItem
 *
 * @typedef {object} Order     a cart until completed; one record, as Spree::Order
 * @property {number} id
 * @property {string} number   'R' and 9 digits
 * @property {string} token    35 base58 characters
 * @property {number | null} userId
 * @property {string | null} email
 * @property {'cart' | 'complete'} state
 * @property {LineItem[]} lineItems
 * @property {string[]} couponCodes  the discount codes applied
 * @property {Record<string, unknown>} metadata
 * @property {string} createdAt
 * @property {string} updatedAt
 * @property {string | null} completedAt
 */

/** Sqids-like: a reversible, non-sequential-looking encoding of a database id. */
const ALPHABET = 'k3G7QAe51FCsPW92uEOyq4Bg6Sp8YzVTmnU0liwDdHXLajZrfxNcobtvhJRKIM';
const SPREAD = 7919;
/** 62 ** 8: every id encodes to 9 characters, and decoding stays within Number.MAX_SAFE_INTEGER. */
const OFFSET = 218340105584896;

/** `prefix_…` for a database id. @param {string} prefix @param {number} id */
export function prefixedId(prefix, id) {
  let value = id * SPREAD + OFFSET;
  let text = '';
  for (; value > 0; value = Math.floor(value / ALPHABET.length)) text = ALPHABET[value % ALPHABET.length] + text;
  return `${prefix}_${text}`;
}

/** The database id in a prefixed id, ignoring the prefix as Spree's decoder does, or null. @param {string} value */
export function decodeId(value) {
  const text = value.includes('_') ? value.slice(value.lastIndexOf('_') + 1) : value;
  let number = 0;
  for (const char of text) {
    const digit = ALPHABET.indexOf(char);
    if (digit < 0) return null;
    number = number * ALPHABET.length + digit;
  }
  const id = (number - OFFSET) / SPREAD;
  return Number.isInteger(id) && id > 0 ? id : null;
}

const PRODUCTS = [
  { id: 1, name: 'Spree Tote', slug: 'spree-tote', priceCents: 1599 },
  { id: 2, name: 'Spree Mug', slug: 'spree-mug', priceCents: 1299 },
  { id: 3, name: 'Spree T-Shirt', slug: 'spree-t-shirt', priceCents: 1999 },
  { id: 4, name: 'Spree Hoodie', slug: 'spree-hoodie', priceCents: 4999 },
];

const money = (/** @type {number} */ cents) => (cents / 100).toFixed(2);

/** The discount codes the shop knows, each with its discount in percent of the item total. */
const COUPONS = new Map([['SAVE10', 10]]);

/** @param {typeof PRODUCTS[number]} product */
export function productJson(product) {
  const variant = { id: prefixedId('variant', product.id), price: money(product.priceCents), display_price: `$${money(product.priceCents)}`, in_stock: true };
  return { id: prefixedId('prod', product.id), name: product.name, slug: product.slug, price: variant.price, display_price: variant.display_price, currency: 'USD', default_variant: variant };
}

/** @param {Customer} user */
export function customerJson(user) {
  return {
    id: prefixedId('cus', user.id),
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    full_name: `${user.first_name} ${user.last_name}`.trim(),
    phone: user.phone,
    accepts_email_marketing: user.accepts_email_marketing,
    addresses: [],
    default_billing_address: null,
    default_shipping_address: null,
    created_at: user.createdAt,
  };
}

/** The fields Cart and Order share (CartSerializer: `total_quantity`, and the line items under `items`). @param {Order} order */
function orderFields(order) {
  const cents = order.lineItems.reduce((sum, item) => sum + item.quantity * item.priceCents, 0);
  const promo = -Math.round(order.couponCodes.reduce((sum, code) => sum + (cents * (COUPONS.get(code) ?? 0)) / 100, 0));
  return {
    number: order.number,
    state: order.state,
    email: order.email,
    customer_id: order.userId === null ? null : prefixedId('cus', order.userId),
    currency: 'USD',
    total_quantity: order.lineItems.reduce((sum, item) => sum + item.quantity, 0),
    item_total: money(cents),
    promo_total: money(promo),
    total: money(cents + promo),
    display_total: `$${money(cents + promo)}`,
    items: order.lineItems.map((item) => ({
      id: prefixedId('li', item.id),
      variant_id: prefixedId('variant', item.variantId),
      name: item.name,
      quantity: item.quantity,
      price: money(item.priceCents),
      total: money(item.priceCents * item.quantity),
    })),
    bill_address: null,
    ship_address: null,
    metadata: order.metadata,
    created_at: order.createdAt,
    updated_at: order.updatedAt,
  };
}

/** CartSerializer: the only one with `token`. @param {Order} order */
export const cartJson = (order) => ({ id: prefixedId('cart', order.id), token: order.token, ...orderFields(order) });

/** OrderSerializer: no `token` field. @param {Order} order */
export const orderJson = (order) => ({ id: prefixedId('or', order.id), ...orderFields(order), completed_at: order.completedAt });

/** A page of a list, as the Store API's `{ data, meta }`. @param {unknown[]} data */
export const page = (data) => ({ data, meta: { page: 1, limit: 25, count: data.length, pages: 1 } });

/** Creates the in-memory shop: customers by id, orders by id, products. */
export function createV3Shop() {
  /** @type {Map<number, Customer>} */
  const users = new Map();
  /** @type {Map<number, Order>} */
  const orders = new Map();
  let lastLineItemId = 0;

  /** @param {Omit<Customer, 'id' | 'createdAt'>} fields */
  function addUser(fields) {
    const user = { ...fields, id: users.size + 1, createdAt: new Date().toISOString() };
    users.set(user.id, user);
    return user;
  }
  for (const [email, password, first_name, last_name] of [
    ['demo@example.com', 'spree123', 'Demo', 'Shopper'],
    ['shopper2@example.com', 'secret456', 'Second', 'Shopper'],
  ]) {
    addUser({ email, password, first_name: String(first_name), last_name: String(last_name), phone: null, accepts_email_marketing: false });
  }

  /** Devise finds logins case-insensitively. @param {string} email */
  const findUser = (email) => [...users.values()].find((user) => user.email.toLowerCase() === email.trim().toLowerCase());

  /** @param {Customer | null} user @returns {Order} */
  function newCart(user) {
    const now = new Date().toISOString();
    const order = {
      id: orders.size + 1,
      number: `R${String(randomInt(1e9)).padStart(9, '0')}`,
      token: base58Token(35),
      userId: user ? user.id : null,
      email: user ? user.email : null,
      state: /** @type {const} */ ('cart'),
      lineItems: [],
      couponCodes: [],
      metadata: {},
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    orders.set(order.id, order);
    return order;
  }

  /** A product by prefixed id, bare id or slug. @param {string} value */
  const findProduct = (value) => PRODUCTS.find((product) => product.slug === value || product.id === decodeId(value) || String(product.id) === value);

  /** The product whose default variant this is (prefixed or bare id), or undefined. @param {unknown} variantId */
  function findVariant(variantId) {
    const id = typeof variantId === 'string' ? (decodeId(variantId) ?? Number(variantId)) : variantId;
    return PRODUCTS.find((candidate) => candidate.id === id);
  }

  /**
   * Adds a variant to an order; false when the variant is unknown.
   * @param {Order} order @param {unknown} variantId @param {number} quantity
   */
  function addItem(order, variantId, quantity) {
    const product = findVariant(variantId);
    if (!product) return false;
    const item = order.lineItems.find((line) => line.variantId === product.id);
    if (item) item.quantity += quantity;
    else order.lineItems.push({ id: ++lastLineItemId, variantId: product.id, name: product.name, quantity, priceCents: product.priceCents });
    order.updatedAt = new Date().toISOString();
    return true;
  }

  return { users, orders, products: PRODUCTS, coupons: COUPONS, addUser, findUser, newCart, findProduct, findVariant, addItem };
}

/** @typedef {ReturnType<typeof createV3Shop>} V3Shop */
