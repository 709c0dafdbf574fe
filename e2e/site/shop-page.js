// The shop page's script: a subresource itself, it lists the products with a call to the API that
// gets no credential. `window.shopLoaded` settles with that call's status once the images have loaded.
window.shopLoaded = Promise.all([
  fetch('/api/v2/storefront/products').then((response) => response.status),
  new Promise((resolve) => (document.readyState === 'complete' ? resolve() : addEventListener('load', resolve))),
]).then(([status]) => status);
