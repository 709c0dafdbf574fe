// A shop on Spree 5's Store API with the official SDK. The drop-in (index.html) registers the worker
// with data-preset="spree-v3"; the SDK's client is made as usual. With sealed tokens (the default) the
// SDK reads placeholders where the tokens were (`sealed:access`, `sealed:refresh`, `sealed:cart`);
// passed back as `token`, `spreeToken` or `refresh_token`, the worker swaps them for the real ones.
import { createClient, SpreeError } from '@spree/sdk';
import type {} from 'storefront-auth-sw/storefront-auth.js'; // declares window.storefrontAuth

const spree = createClient({
  baseUrl: import.meta.env.VITE_STOREFRONT_URL,
  publishableKey: import.meta.env.VITE_SPREE_PUBLISHABLE_KEY,
});

let token: string | undefined;        // 'sealed:access' once signed in
let refreshToken: string | undefined; // 'sealed:refresh'

const $ = <T extends Element>(selector: string) => document.querySelector<T>(selector)!;
const show = (state: unknown) => ($('#state').textContent = JSON.stringify(state));
storefrontAuth.addEventListener('change', (event) => show(event.detail));
show(await storefrontAuth.getState());

$('#add').addEventListener('click', async () => {
  const [product] = (await spree.products.list()).data;
  // The cart the worker holds, also after a reload: its id is in the state, its token only in the
  // worker, which sends it for the placeholder. Only without one is a cart created; the worker keeps
  // the new cart's token and id (replacing any cart it held, so never create while one is held).
  const held = (await storefrontAuth.getState()).cart;
  const cart = held?.id ? { id: held.id, token: 'sealed:cart' } : await spree.carts.create({}, { token });
  const updated = await spree.carts.items.create(
    cart.id,
    { variant_id: product!.default_variant?.id ?? product!.default_variant_id, quantity: 1 },
    { token, spreeToken: cart.token }, // sent as the real JWT and x-spree-token
  );
  $('#output').textContent = `added to cart ${updated.number}`;
});

$<HTMLFormElement>('#sign-in').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.currentTarget as HTMLFormElement);
  try {
    // The SDK's login: the worker keeps the pair and assigns the guest cart to the shopper.
    ({ token, refresh_token: refreshToken } = await spree.auth.login({ email: String(form.get('username')), password: String(form.get('password')) }));
  } catch (error) {
    if (error instanceof SpreeError && error.code === 'authentication_failed') $('#output').textContent = 'Wrong email or password';
    else throw error;
  }
});

$('#account').addEventListener('click', async () => {
  const customer = await spree.customer.get({ token }); // sent with the real JWT
  $('#output').textContent = `account: ${customer.email}`;
});

$('#logout').addEventListener('click', async () => {
  // The SDK's logout with the placeholder is the worker's logout: every tab is told, and the real
  // refresh token is revoked at the server.
  // After a reload the page no longer holds the placeholder; the worker still holds the session.
  if (refreshToken !== undefined) await spree.auth.logout({ refresh_token: refreshToken });
  else await storefrontAuth.logout();
  token = refreshToken = undefined;
});
