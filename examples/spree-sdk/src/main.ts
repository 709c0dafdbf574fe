// A shop on the Spree SDK: the bridge registers the prebuilt worker, and the SDK's client is handed
// no token of its own. With sealed tokens (the default) the SDK reads placeholders (`sealed:cart`,
// `sealed:access`) where the tokens were; passed back as `order_token` or `bearer_token`, the worker
// swaps them for the real ones on the way to the API.
import { makeClient, type CreateFetcher } from '@spree/storefront-api-v2-sdk';
// The path its types are published for (the package's main file).
import axiosFetcher from '@spree/axios-fetcher/dist/server/index';
import { StorefrontAuth, type AuthState } from 'storefront-auth-sw';

const baseUrl = import.meta.env.VITE_STOREFRONT_URL;
const auth = await StorefrontAuth.register({ baseUrl, preset: 'spree' }); // serves /storefront-auth-sw.js
// @spree/axios-fetcher is a CommonJS bundle whose fetcher is its `default` export: a bundler with
// Node's interop (esbuild, for a "type": "module" package) hands over the whole module instead.
const createFetcher: CreateFetcher = (axiosFetcher as CreateFetcher & { default?: CreateFetcher }).default ?? axiosFetcher;
const spree = makeClient({ host: `${baseUrl}/`, createFetcher });

let orderToken = '';  // 'sealed:cart' once the SDK has created a cart
let bearerToken = ''; // 'sealed:access' once the SDK has signed in

const $ = <T extends Element>(selector: string) => document.querySelector<T>(selector)!;
const show = (state: AuthState) => ($('#state').textContent = JSON.stringify(state));
auth.addEventListener('change', (event) => show(event.detail));
show(await auth.getState());

$('#add').addEventListener('click', async () => {
  if ((await auth.getState()).cart === null) {
    const created = await spree.cart.create({ bearer_token: bearerToken || undefined }); // the worker keeps the cart token
    orderToken = created.success().data.attributes.token;
  }
  const added = await spree.cart.addItem({ order_token: orderToken, variant_id: '1', quantity: 1 }); // sent with X-Spree-Order-Token
  $('#output').textContent = `add_item: ${added.isSuccess() ? 'ok' : added.fail().message}`;
});

$<HTMLFormElement>('#sign-in').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.currentTarget as HTMLFormElement);
  // The SDK's password grant: the worker keeps the pair and assigns the guest cart to the shopper.
  const token = await spree.authentication.getToken({ username: String(form.get('username')), password: String(form.get('password')) });
  if (token.isSuccess()) bearerToken = token.success().access_token;
  else {
    // A refused grant is a 400 (invalid_grant); the SDK's error types do not all carry the response.
    const status = (token.fail() as { serverResponse?: { status?: number } }).serverResponse?.status;
    $('#output').textContent = status === 400 ? 'Wrong email or password' : token.fail().message;
  }
});

$('#account').addEventListener('click', async () => {
  const account = await spree.account.accountInfo({ bearer_token: bearerToken }); // sent with the bearer
  $('#output').textContent = `account: ${account.isSuccess() ? account.success().data.attributes.email : account.fail().message}`;
});

$('#logout').addEventListener('click', async () => {
  await auth.logout();
  orderToken = bearerToken = '';
});
