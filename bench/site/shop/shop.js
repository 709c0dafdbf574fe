// The navigation page's script: an image from another origin (`?other=<origin>`) and a products call
// that needs no credential. `window.shopLoaded` settles once they and the page's images have loaded.
const other = new URLSearchParams(location.search).get('other');
const images = [];
if (other !== null) {
  const image = Object.assign(document.createElement('img'), { src: `${other}/shop/logo.svg`, alt: '', width: 40, height: 40 });
  document.body.append(image);
  images.push(image.decode());
}
window.shopLoaded = Promise.all([
  fetch('/api/v2/storefront/products').then((response) => response.status),
  ...images,
  new Promise((resolve) => (document.readyState === 'complete' ? resolve() : addEventListener('load', resolve))),
]).then(([status]) => status);
