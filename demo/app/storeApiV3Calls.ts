/**
 * The demo's calls to Spree 5's Store API (`spree-v3` preset): flat JSON, and carts addressed by
 * their id (`/carts/{id}`), which the worker opens with `x-spree-token` (and the bearer, signed in).
 * AuthState names a cart by its number only, so this page creates the cart itself (the worker keeps
 * its token from the answer) and remembers the id, which is no credential, beside that number.
 */
import type { AuthState } from '../../src/page/index.js';
import { documentOf } from './shopApi.js';
import type { OrderSummary, ShopCalls } from './shopCalls.js';

interface CartJson {
  id: string;
  number: string;
  state: string;
  total_quantity: number;
  display_total: string;
}

/** Where the page remembers the held cart's id: localStorage, shared by the shop's tabs. */
const KEY = 'demo-v3-cart';

type HeldCart = NonNullable<AuthState['cart']>;

/** The id of the cart numbered `held.number`, if this browser's pages created it. */
function rememberedId(held: HeldCart): string | null {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? 'null') as { id?: unknown; number?: unknown } | null;
    return saved?.number === held.number && typeof saved.id === 'string' ? saved.id : null;
  } catch {
    return null;
  }
}

function remember(cart: CartJson): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ id: cart.id, number: cart.number }));
  } catch {
    // Not remembered: the page shows the cart's number without its contents.
  }
}

const summary = (cart: CartJson): OrderSummary => ({ number: cart.number, state: cart.state, itemCount: cart.total_quantity, total: cart.display_total });
const json = { 'Content-Type': 'application/json' };

export const storeApiV3Calls: ShopCalls = {
  async products(api) {
    const products = await documentOf<{ data: Array<{ name: string; display_price: string; default_variant: { id: string } }> }>(await api.call('/products'));
    return products?.data.map((product) => ({ name: product.name, price: product.display_price, variantId: product.default_variant.id })) ?? null;
  },

  async addToCart(api, auth, product) {
    const held = (await auth.getState()).cart;
    const id = held === null ? null : rememberedId(held);
    const item = { variant_id: product.variantId, quantity: 1 };
    if (id !== null) return api.call(`/carts/${encodeURIComponent(id)}/items`, { method: 'POST', headers: json, body: JSON.stringify(item) });
    // A new cart with the item in it: the worker keeps the token from the answer (the page reads `sealed:cart`).
    const response = await api.call('/carts', { method: 'POST', headers: json, body: JSON.stringify({ items: [item] }) });
    const cart = await documentOf<CartJson>(response?.clone() ?? null);
    if (cart !== null) remember(cart);
    return response;
  },

  async cart(api, held) {
    const id = rememberedId(held);
    if (id === null) return null;
    const response = await api.call(`/carts/${encodeURIComponent(id)}`);
    const cart = await documentOf<CartJson>(response);
    return { summary: cart === null ? null : summary(cart), response };
  },

  async customer(api) {
    const response = await api.call('/customers/me');
    const me = await documentOf<{ email: string; first_name: string; last_name: string }>(response);
    return { value: me === null ? null : { firstName: me.first_name, lastName: me.last_name, email: me.email }, response };
  },

  async orders(api) {
    const response = await api.call('/customers/me/orders');
    const orders = await documentOf<{ data: CartJson[] }>(response);
    return { value: orders?.data.map(summary) ?? null, response };
  },
};
