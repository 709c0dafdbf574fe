/**
 * The demo shop's page: products, a guest cart, sign-in, an account page and sign-out, all with
 * plain `fetch` and the storefront-auth bridge. It never handles a token. The app registers its own
 * worker (sw.ts), which composes storefront-auth, so the bridge only waits for that worker. The
 * calls that depend on the API's paths and shapes are the flavour's (shopCalls.ts).
 */
import { StorefrontAuth, isStorefrontAuthError, type AuthState } from '../../src/page/index.js';
import { startRequestPanel } from './requestPanel.js';
import { flavour } from './flavour.js';
import { ShopApi, type Reachability } from './shopApi.js';
import { shopCalls, type Product } from './shopCalls.js';
import { forgetOrders, savedOrders, saveOrders } from './savedOrders.js';
import { notLoadedMessage, shopperMessage, unreachableMessage } from './shopperMessage.js';

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

const api = new ShopApi(showReachability);
const panel = startRequestPanel($('requests'));
$('api-root').textContent = flavour.apiRoot;
const bridge = connect();

showView();
addEventListener('hashchange', showView);
void loadProducts();
bridge.then(start).catch(report);

/** Registers the app's worker and resolves with the bridge once that worker controls the page. */
async function connect(): Promise<StorefrontAuth> {
  // When the worker is already installed, registering it again needs no network: offline visits too.
  await navigator.serviceWorker?.register('/sw.js').catch((error: unknown) => {
    if (navigator.serviceWorker.controller === null) throw error;
  });
  return StorefrontAuth.register({ registerWorker: false });
}

async function start(auth: StorefrontAuth): Promise<void> {
  auth.addEventListener('change', (event) => void showState(event.detail).catch(report));
  auth.addEventListener('sessionexpired', () => say('Your session has ended; please sign in again.'));
  // A change the worker kept offline reached the shop (or could not): the cart shows what it holds now.
  auth.addEventListener('writesettled', (event) => {
    const { outcome } = event.detail;
    if (outcome !== 'applied') say(outcome === 'rejected' ? 'A change you made offline was refused by the shop.' : 'A change you made offline was not sent: its cart or sign-in has ended.');
    void panel.refresh();
  });
  $('login').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    say('Signing in…');
    auth.login({ username: String(form.get('username')), password: String(form.get('password')) }).then(() => say('Signed in. A guest cart you held is now yours.'), report);
  });
  $('logout').addEventListener('click', () => void auth.logout().then(() => say('Signed out. The worker forgot the sign-in and the cart.'), report));
  // getState is answered by the worker from what it stored: no network needed.
  await showState(await auth.getState());
  addEventListener('online', () => void refresh().catch(report));
}

/** Everything that comes from the API, again (back online). */
async function refresh(): Promise<void> {
  await loadProducts();
  await showState(await (await bridge).getState());
}

async function showState(state: AuthState): Promise<void> {
  $('state').textContent = JSON.stringify(state, null, 2) + (state.accessTokenExpiresAt === null ? '' : `\n// the access token expires at ${new Date(state.accessTokenExpiresAt).toLocaleTimeString([], { hour12: false })}`);
  $('who').textContent = state.signedIn ? 'Signed in' : 'Guest';
  $('login').hidden = state.signedIn;
  $('profile').hidden = !state.signedIn;
  if (!state.signedIn) forgetOrders();
  void panel.refresh();
  await Promise.all([loadCart(state), state.signedIn ? loadAccount() : undefined]);
  void panel.refresh();
}

async function loadProducts(): Promise<void> {
  const products = await shopCalls.products(api);
  if (products === null) {
    $('products').replaceChildren(item(`The products cannot be shown. ${unreachableMessage(navigator.onLine)}`));
    return;
  }
  $('products').replaceChildren(
    ...products.map((product) => {
      const li = document.createElement('li');
      const name = document.createElement('strong');
      name.textContent = product.name;
      const price = document.createElement('span');
      price.className = 'price';
      price.textContent = product.price;
      const add = document.createElement('button');
      add.type = 'button';
      add.textContent = 'Add to cart';
      add.addEventListener('click', () => void addToCart(product).catch(report));
      li.append(name, price, add);
      return li;
    }),
  );
}

async function addToCart(product: Product): Promise<void> {
  const auth = await bridge;
  const response = await shopCalls.addToCart(api, auth, product);
  if (response === null) {
    say(`${product.name} was not added. ${unreachableMessage(navigator.onLine)}`);
    return;
  }
  // 202: the worker kept it (offlineWrites) and sends it when the shop can be reached.
  if (response.status === 202) {
    say(`${product.name} will be added to your cart when you're back online.`);
    return;
  }
  if (!response.ok) console.warn(`[demo] adding to the cart answered ${response.status}`);
  say(response.ok ? `Added ${product.name}.` : `${product.name} could not be added. Please try again in a moment.`);
  await loadCart(await auth.getState());
  void panel.refresh();
}

async function loadCart(state: AuthState): Promise<void> {
  if (state.cart === null) {
    $('cart').textContent = 'No cart yet. Add a product to start one as a guest.';
    return;
  }
  const { number } = state.cart;
  const waiting = pendingMessage(state.pendingWrites);
  const read = await shopCalls.cart(api, state.cart);
  if (read === null) {
    $('cart').textContent = waiting === '' ? `Cart ${number}.` : `Cart ${number}: ${waiting}`;
    return;
  }
  const { summary: cart, response } = read;
  $('cart').textContent =
    cart !== null
      ? `Cart ${cart.number}: ${cart.itemCount} item(s), ${cart.total}.${waiting === '' ? '' : ` ${waiting}`}`
      : waiting !== ''
        ? `Cart ${number}: ${waiting} Its contents cannot be loaded now.`
        : response === null
          ? `Cart ${number}. Its contents cannot be loaded now. ${unreachableMessage(navigator.onLine)}`
          : `Cart ${number}. Its contents cannot be loaded now (the shop answered ${response.status}).`;
}

/** What the cart line says of the changes the worker keeps until the shop can be reached; '' for none. */
function pendingMessage(pending: number): string {
  if (pending === 0) return '';
  return `${pending === 1 ? '1 change waits' : `${pending} changes wait`} to be sent when you're back online.`;
}

async function loadAccount(): Promise<void> {
  const [user, orders] = await Promise.all([shopCalls.customer(api), shopCalls.orders(api)]);
  $('profile-name').textContent = user.value === null ? notLoadedMessage('Your account details', user.response?.status ?? null, navigator.onLine) : `${user.value.firstName} ${user.value.lastName} · ${user.value.email}`;
  if (orders.value !== null) {
    const lines = orders.value.map((order) => `${order.number} · ${order.state} · ${order.itemCount} item(s), ${order.total}`);
    saveOrders(lines);
    $('orders').replaceChildren(...(lines.length === 0 ? [item('No orders yet.')] : lines.map(item)));
    return;
  }
  // The shop answered, but not with the orders (a 403 to a sign-in it forgot): said as what it is.
  if (orders.response !== null) {
    $('orders').replaceChildren(item(notLoadedMessage('Your orders', orders.response.status, navigator.onLine)));
    return;
  }
  // Offline (or the shop is down): the list as this tab last loaded it, said to be so, or a note.
  const saved = savedOrders();
  const when = saved === null ? '' : new Date(saved.at).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
  $('orders').replaceChildren(
    ...(saved === null
      ? [item(`Your orders cannot be loaded now. ${unreachableMessage(navigator.onLine)}`)]
      : [...(saved.lines.length === 0 ? [item('No orders yet.')] : saved.lines.map(item)), note(`As loaded on ${when}; the shop cannot be reached now.`)]),
  );
}

function showView(): void {
  const view = location.hash === '#account' ? 'account' : 'shop';
  $('view-shop').hidden = view !== 'shop';
  $('view-account').hidden = view !== 'account';
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    if (link.dataset['view'] === view) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

function showReachability(reachability: Reachability): void {
  const status = $('api-status');
  if (reachability.reachable) {
    status.hidden = true;
    return;
  }
  // Calls fail in turn while offline; keep the most telling detail rather than the last one.
  if (reachability.detail === '' && !status.hidden) return;
  status.hidden = false;
  const why = navigator.onLine ? "The shop can't be reached right now." : "You're offline.";
  status.textContent = `${why} This page shows what this browser has stored: the sign-in state and cart that the service worker keeps. ${reachability.detail}`.trim();
}

/** Tells the shopper in plain words; the code and the library's message go to the console. */
function report(error: unknown): void {
  if (isStorefrontAuthError(error) && error.code === 'network_error') api.unreachable('');
  console.warn('[demo]', isStorefrontAuthError(error) ? `${error.code}: ${error.message}` : error);
  say(shopperMessage(error, navigator.onLine));
}

function say(text: string): void {
  $('message').textContent = text;
}

function item(text: string): HTMLLIElement {
  const li = document.createElement('li');
  li.textContent = text;
  return li;
}

function note(text: string): HTMLLIElement {
  const li = item(text);
  li.className = 'note';
  return li;
}
