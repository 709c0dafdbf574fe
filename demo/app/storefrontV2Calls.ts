/**
 * The demo's calls to the Storefront API v2 (`store` preset): JSON:API documents, one current cart
 * at `/cart`, which the bridge creates and the worker opens with the order-token header or the bearer.
 */
import { documentOf } from './shopApi.js';
import type { Customer, OrderSummary, Product, ShopCalls } from './shopCalls.js';

interface Resource<A> {
  id: string;
  attributes: A;
  relationships?: { default_variant?: { data?: { id: string } } };
}
type ProductDocument = Resource<{ name: string; display_price: string }>;
type CartDocument = Resource<{ number: string; state: string; item_count: number; display_total: string }>;
type UserDocument = Resource<{ email: string; first_name: string; last_name: string }>;

const summary = ({ attributes: a }: CartDocument): OrderSummary => ({ number: a.number, state: a.state, itemCount: a.item_count, total: a.display_total });

export const storefrontV2Calls: ShopCalls = {
  async products(api) {
    const products = await documentOf<{ data: ProductDocument[] }>(await api.call('/products'));
    return (
      products?.data.map((product): Product => ({
        name: product.attributes.name,
        price: product.attributes.display_price,
        variantId: product.relationships?.default_variant?.data?.id ?? product.id,
      })) ?? null
    );
  },

  async addToCart(api, auth, product) {
    // The bridge creates the cart and the worker keeps its token; this page never sees it.
    if ((await auth.getState()).cart === null) await auth.createCart();
    return api.call('/cart/add_item', {
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.api+json' },
      body: JSON.stringify({ variant_id: product.variantId, quantity: 1 }),
    });
  },

  async cart(api) {
    const response = await api.call('/cart');
    const cart = await documentOf<{ data: CartDocument }>(response);
    return { summary: cart === null ? null : summary(cart.data), response };
  },

  async customer(api) {
    const response = await api.call('/account');
    const user = await documentOf<{ data: UserDocument }>(response);
    return { value: user === null ? null : ({ firstName: user.data.attributes.first_name, lastName: user.data.attributes.last_name, email: user.data.attributes.email } satisfies Customer), response };
  },

  async orders(api) {
    const response = await api.call('/account/orders');
    const orders = await documentOf<{ data: CartDocument[] }>(response);
    return { value: orders?.data.map(summary) ?? null, response };
  },
};
