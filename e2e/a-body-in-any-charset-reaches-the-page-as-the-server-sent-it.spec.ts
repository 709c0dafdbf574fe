/**
 * Sealing changes no byte it does not replace: a Latin-1 text and a PDF on a cart path reach the
 * page exactly as the server sent them; a Latin-1 text holding the token reaches it re-encoded in
 * UTF-8, its `Content-Type` saying so, every other character as sent; a UTF-16 answer, which the worker cannot rewrite, passes as sent when it holds no
 * token and is refused when it does, to fetch and to XHR alike.
 * On 3ffce34, every sealed body was read as UTF-8 and re-encoded: `café` in Latin-1 (4 bytes) reached
 * the page as 6 bytes and the PDF as 512 (the byte checks fail), and a UTF-16 answer echoing the
 * order token reached the page, whose XHR `responseText` showed the token.
 */
import { expect, openShop, realCartToken, test } from './support.js';

const CART = '/api/v2/storefront/cart';
const INVOICE = '/api/v2/storefront/checkout/invoice';

/** Reads `url` in the page: status, Content-Type, Content-Length and the body's bytes. */
function readBytes(page: import('@playwright/test').Page, url: string) {
  return page.evaluate(async (url) => {
    const response = await fetch(url);
    return { status: response.status, type: response.headers.get('Content-Type'), length: response.headers.get('Content-Length'), bytes: [...new Uint8Array(await response.arrayBuffer())] };
  }, url);
}

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const utf16le = (text: string) => Buffer.from(text, 'utf16le');

test('a Latin-1 text and a PDF on cart paths reach the page byte for byte; a Latin-1 text holding the token reaches it in UTF-8', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  const real = realCartToken(storefront, cart?.number);

  storefront.override('GET', CART, { headers: { 'Content-Type': 'text/plain; charset=iso-8859-1' }, body: latin1('café') });
  const cafe = await readBytes(page, CART);
  expect(cafe.bytes, 'café as 4 Latin-1 bytes').toEqual([0x63, 0x61, 0x66, 0xe9]);
  expect(cafe.length, 'its Content-Length as sent').toBe('4');

  // Every byte value, in a scrambled order: no UTF-8 text at all.
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(Array.from({ length: 247 }, (_, i) => (i * 151 + 7) % 256))]);
  storefront.override('GET', INVOICE, { headers: { 'Content-Type': 'application/pdf' }, body: pdf });
  const invoice = await readBytes(page, INVOICE);
  expect(invoice.bytes.length, 'a 256-byte PDF').toBe(256);
  expect(invoice.bytes).toEqual([...pdf]);
  expect(invoice.length).toBe('256');

  // The token replaced by its placeholder; the text re-encoded in UTF-8, and the Content-Type says so.
  storefront.override('GET', CART, { headers: { 'Content-Type': 'text/plain; charset=iso-8859-1' }, body: latin1(`Commande café ${real} reçue`) });
  const order = await readBytes(page, CART);
  expect(order.type).toBe('text/plain; charset=utf-8');
  expect(order.bytes).toEqual([...Buffer.from('Commande café sealed:cart reçue', 'utf8')]);
  expect(order.length, 'the Content-Length of the UTF-8 body').toBe(String(order.bytes.length));
  expect(storefront.requests.at(-1)?.headers.orderToken, 'the worker sent the real token').toBe(real);
});

test('a UTF-16 answer that echoes the order token is refused to fetch and XHR, and one without a token passes as sent', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  const real = realCartToken(storefront, cart?.number);
  const UTF16 = { 'Content-Type': 'application/json; charset=utf-16le' };

  const echo = utf16le(`{"error":"order ${real} is locked"}`);
  storefront.override('GET', CART, { headers: UTF16, body: echo, times: 2 });
  // XHR decodes UTF-16 by the Content-Type: every responseText it ever showed, and how it ended.
  const xhr = await page.evaluate(
    (url) =>
      new Promise<{ seen: string[]; outcome: string }>((resolve) => {
        const request = new XMLHttpRequest();
        const seen: string[] = [];
        request.onreadystatechange = () => seen.push(request.responseText);
        request.onprogress = () => seen.push(request.responseText);
        // Chromium ends an XHR whose body failed with `abort`, others with `error`.
        for (const outcome of ['load', 'error', 'abort']) request.addEventListener(outcome, () => resolve({ seen, outcome }));
        request.open('GET', url);
        request.send();
      }),
    CART,
  );
  expect(xhr.seen.filter((text) => text.includes(real)), 'no responseText holds the token').toEqual([]);
  expect(xhr.outcome, 'the XHR fails').not.toBe('load');
  const fetched = await page.evaluate(async (url) => {
    try {
      const response = await fetch(url);
      return { text: await response.text() };
    } catch (error) {
      return { error: String(error) };
    }
  }, CART);
  expect(fetched, 'the page’s read of the body fails').toEqual({ error: expect.stringMatching(/TypeError/) });

  const plain = utf16le('{"note":"café, no token"}');
  storefront.override('GET', CART, { headers: UTF16, body: plain });
  expect((await readBytes(page, CART)).bytes, 'UTF-16 without a token: byte for byte').toEqual([...plain]);
});
