// The demo shop's own code: plain fetch calls to the storefront API, and the bridge for login,
// logout and cart creation. It never handles a token.
const auth = window.storefrontAuth;
const $ = (id) => document.getElementById(id);
const api = '/api/v2/storefront';

function show(state) {
  $('state').textContent = JSON.stringify(state, null, 2);
  $('cart').textContent = state.cart ? `Cart ${state.cart.number}` : 'No cart yet.';
  $('logout').disabled = !state.signedIn && !state.cart;
  $('login').hidden = state.signedIn;
  if (state.signedIn) void loadAccount();
  else $('account').textContent = 'Signed out.';
}

function report(error) {
  $('message').textContent = window.isStorefrontAuthError(error) ? `${error.code}: ${error.message}` : String(error);
}

async function loadAccount() {
  const response = await fetch(`${api}/account`);
  if (!response.ok) return;
  const { data } = await response.json();
  $('account').textContent = `Signed in as ${data.attributes.email}.`;
}

async function loadProducts() {
  const response = await fetch(`${api}/products`);
  const { data } = await response.json();
  $('products').replaceChildren(
    ...data.map((product) => {
      const item = document.createElement('li');
      const add = document.createElement('button');
      add.textContent = 'Add to cart';
      add.onclick = () => addToCart(product).catch(report);
      item.append(`${product.attributes.name} — ${product.attributes.display_price ?? product.attributes.price}`, add);
      return item;
    }),
  );
}

async function addToCart(product) {
  const state = await auth.getState();
  if (!state.cart) await auth.createCart();
  const variantId = product.relationships?.default_variant?.data?.id ?? product.attributes.variant_id ?? product.id;
  const response = await fetch(`${api}/cart/add_item`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/vnd.api+json' },
    body: JSON.stringify({ variant_id: variantId, quantity: 1 }),
  });
  const { data } = await response.json();
  $('message').textContent = response.ok ? `Added; the cart holds ${data.attributes.item_count} item(s).` : `Could not add (${response.status}).`;
}

auth.addEventListener('change', (event) => show(event.detail));
auth.addEventListener('sessionexpired', () => ($('message').textContent = 'Your session has ended; please sign in again.'));
$('new-cart').onclick = () => auth.createCart().then(show, report);
$('logout').onclick = () => auth.logout().then(show, report);
$('login').onsubmit = (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  auth.login({ username: form.get('username'), password: form.get('password') }).then(() => ($('message').textContent = ''), report);
};

auth.getState().then(show, report);
loadProducts().catch(report);
