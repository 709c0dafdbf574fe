// The page: it registers the app's worker, and the bridge only talks to it.
import { isStorefrontAuthError, StorefrontAuth, type AuthState } from 'storefront-auth-sw';

const baseUrl = import.meta.env.VITE_STOREFRONT_URL;
// @serwist/vite builds the worker into dist/sw.js, a classic script.
await navigator.serviceWorker.register('/sw.js');
const auth = await StorefrontAuth.register({ baseUrl, registerWorker: false });

const api = `${baseUrl}/api/v2/storefront`;
const $ = <T extends Element>(selector: string) => document.querySelector<T>(selector)!;
const show = (state: AuthState) => ($('#state').textContent = JSON.stringify(state));
auth.addEventListener('change', (event) => show(event.detail));
show(await auth.getState());

$('#add').addEventListener('click', async () => {
  if ((await auth.getState()).cart === null) await auth.createCart();
  const response = await fetch(`${api}/cart/add_item`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/vnd.api+json' },
    body: JSON.stringify({ variant_id: '1', quantity: 1 }),
  });
  $('#output').textContent = `add_item: ${response.status}`;
});

$<HTMLFormElement>('#sign-in').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.currentTarget as HTMLFormElement);
  try {
    await auth.login({ username: String(form.get('username')), password: String(form.get('password')) });
  } catch (error) {
    if (isStorefrontAuthError(error) && error.code === 'invalid_grant') $('#output').textContent = 'Wrong email or password';
    else throw error;
  }
});

$('#account').addEventListener('click', async () => {
  const response = await fetch(`${api}/account`);
  $('#output').textContent = `account: ${response.status} ${JSON.stringify(await response.json())}`;
});

$('#logout').addEventListener('click', () => void auth.logout());
