/**
 * The page's calls that depend on the API's paths and shapes, behind one interface, so app.ts reads
 * the same for both flavours: `storefrontV2Calls.ts` (Storefront API v2, JSON:API documents) and
 * `storeApiV3Calls.ts` (Spree 5's Store API, flat JSON). None of them handles a token: the worker
 * adds the credentials.
 */
import type { AuthState, StorefrontAuth } from '../../src/page/index.js';
import { flavour } from './flavour.js';
import type { ShopApi } from './shopApi.js';
import { storeApiV3Calls } from './storeApiV3Calls.js';
import { storefrontV2Calls } from './storefrontV2Calls.js';

/** A product as the page lists it. */
export interface Product {
  name: string;
  price: string;
  /** What the cart's add call names. */
  variantId: string;
}

/** A cart or an order as the page shows it. */
export interface OrderSummary {
  number: string;
  state: string;
  itemCount: number;
  total: string;
}

/** The signed-in shopper as the account page shows them. */
export interface Customer {
  firstName: string;
  lastName: string;
  email: string;
}

/** What a cart read found: the summary, or `null` with the response (`null` when the API could not be reached). */
export interface CartRead {
  summary: OrderSummary | null;
  response: Response | null;
}

/** What a read found: the value, or `null` with the response that did not hold one (`null` when the API could not be reached). */
export interface Read<T> {
  value: T | null;
  response: Response | null;
}

/** The page's API calls for one flavour. */
export interface ShopCalls {
  products(api: ShopApi): Promise<Product[] | null>;
  /** Adds one of `product` to the held cart, starting one first when none is held. */
  addToCart(api: ShopApi, auth: StorefrontAuth, product: Product): Promise<Response | null>;
  /** Reads the held cart; `null` when this page cannot tell which cart to read. */
  cart(api: ShopApi, held: NonNullable<AuthState['cart']>): Promise<CartRead | null>;
  customer(api: ShopApi): Promise<Read<Customer>>;
  orders(api: ShopApi): Promise<Read<OrderSummary[]>>;
}

/** The calls of the flavour this build is for. */
export const shopCalls: ShopCalls = flavour.name === 'spree-v3' ? storeApiV3Calls : storefrontV2Calls;
