// Whether a registration's scope holds the page: a registration controls the pages whose URL starts
// with its scope URL, so a page outside it is told at once which scope and which header to look at.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scopeRefusal } from '../src/page/pageScope.js';

describe('scopeRefusal', () => {
  it('accepts a page under the scope, the default "/" holding every page of the origin', () => {
    const cases: [page: string, scope: string][] = [
      ['https://shop.example/', '/'],
      ['https://shop.example/products/1?x=1#top', '/'],
      ['https://shop.example/js/', '/js/'],
      ['https://shop.example/js/page.html', '/js/'],
      ['https://shop.example/shop/cart', 'https://shop.example/shop'],
      // The scope is a prefix of the URL, not of its segments: /shop covers /shopping.
      ['https://shop.example/shopping', '/shop'],
      // A relative scope resolves against the page, as `register` resolves it.
      ['https://shop.example/app/page.html', './'],
      ['https://shop.example/js/#/route', '/js/'],
    ];
    for (const [page, scope] of cases) assert.equal(scopeRefusal(page, scope), null, `${page} in ${scope}`);
  });

  it('refuses a page outside the scope, naming the page, the scope URL and Service-Worker-Allowed', () => {
    const message = scopeRefusal('https://shop.example/', '/js/');
    assert.ok(message !== null);
    assert.ok(message.includes('This page (https://shop.example/)'), message);
    assert.ok(message.includes('scope https://shop.example/js/'), message);
    assert.match(message, /Service-Worker-Allowed: \//);
  });

  it('refuses a page outside the scope in other ways: a sibling folder, the folder without its slash, another origin', () => {
    const cases: [page: string, scope: string][] = [
      ['https://shop.example/app/page.html', '/js/'],
      ['https://shop.example/js', '/js/'],
      ['https://shop.example/#/js/', '/js/'],
      ['https://shop.example/', 'https://cdn.shop.example/'],
      ['https://shop.example/shop/', '/shop/cart/'],
    ];
    for (const [page, scope] of cases) assert.notEqual(scopeRefusal(page, scope), null, `${page} outside ${scope}`);
  });

  it('leaves a scope it cannot read to `register`, which refuses it with the browser\'s reason', () => {
    assert.equal(scopeRefusal('https://shop.example/', 'https://[bad'), null);
  });
});
