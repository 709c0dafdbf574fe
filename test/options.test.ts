// The worker's options (docs/behaviour.md, "Configuration"): defaults, validation, the standalone
// worker's URL query, and the one spelling of a base URL that keys storage and the broadcast
// channel.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseUrlRefusal, normalizeBaseUrl } from '../src/shared/baseUrl.js';
import { isStorefrontAuthError } from '../src/shared/errors.js';
import { optionsFromQuery, resolveOptions, type StorefrontAuthOptions } from '../src/sw/options.js';
import { spree } from '../src/sw/dialects/spree.js';
import { store } from '../src/sw/dialects/store.js';
import { isPresetName, type PresetName } from '../src/sw/presets.js';

const WORKER_URL = 'https://shop.example/storefront-auth-sw.js?base=https%3A%2F%2Fapi.shop.example&preset=spree';

/** Expects `resolveOptions` to throw `invalid_request`, and returns the message. */
function refused(options: StorefrontAuthOptions, workerUrl = WORKER_URL): string {
  try {
    resolveOptions(options, workerUrl);
  } catch (error) {
    assert.ok(isStorefrontAuthError(error), String(error));
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.status, undefined);
    return error.message;
  }
  assert.fail(`${JSON.stringify(options)} was accepted`);
}

describe('normalizeBaseUrl', () => {
  const cases: [input: string, expected: string][] = [
    ['https://shop.example', 'https://shop.example'],
    ['https://shop.example/', 'https://shop.example'],
    ['https://shop.example///', 'https://shop.example'],
    ['https://shop.example/store', 'https://shop.example/store'],
    ['https://shop.example/store/', 'https://shop.example/store'],
    ['https://shop.example/store//', 'https://shop.example/store'],
    ['https://shop.example/store/eu/', 'https://shop.example/store/eu'],
    ['https://shop.example/store?x=1#top', 'https://shop.example/store'],
    ['https://shop.example/store/?x=1', 'https://shop.example/store'],
    ['HTTPS://SHOP.Example/Store', 'https://shop.example/Store'],
    ['https://shop.example:443/store', 'https://shop.example/store'],
    ['http://shop.example:80', 'http://shop.example'],
    ['http://localhost:3000/', 'http://localhost:3000'],
    ['https://shop.example/a/../store', 'https://shop.example/store'],
    ['https://shop.example/my store', 'https://shop.example/my%20store'],
    // Relative inputs resolve against the worker's (or page's) URL.
    ['/store/', 'https://site.example/store'],
    ['//api.shop.example/', 'https://api.shop.example'],
    ['  https://shop.example/store', 'https://shop.example/store'],
  ];
  for (const [input, expected] of cases) {
    it(`${input} → ${expected}`, () => assert.equal(normalizeBaseUrl(input, 'https://site.example/app/sw.js'), expected));
  }
  // A host without its scheme, or a path relative to the page, would resolve to a path on the page's
  // own origin: `127.0.0.1:8790` as https://site.example/app/127.0.0.1:8790.
  const withoutScheme = ['127.0.0.1:8790', 'api.shop.example', 'api.shop.example/store', 'shop.example:443', 'store', './store', 'http:shop.example', '\\\\shop.example'];
  for (const input of ['ftp://shop.example', 'javascript:alert(1)', 'data:text/plain,x', 'file:///store', 'https://user:pw@shop.example', 'https://user@shop.example', 'http://', 'https://[bad', ...withoutScheme]) {
    it(`refuses ${input}`, () => assert.equal(normalizeBaseUrl(input, 'https://site.example/app/sw.js'), null));
  }
  it('refuses a relative input without a usable base', () => {
    assert.equal(normalizeBaseUrl('/store', 'not a url'), null);
  });
  it('gives the same spelling for the same base, so page and worker agree', () => {
    const spellings = ['https://shop.example/store', 'https://shop.example/store/', 'HTTPS://shop.example:443/store//?q#f'];
    assert.equal(new Set(spellings.map((s) => normalizeBaseUrl(s, 'https://shop.example/'))).size, 1);
  });
});

describe('resolveOptions', () => {
  it("defaults the base URL to the worker's origin and the preset to store", () => {
    assert.deepEqual(resolveOptions({}, WORKER_URL), {
      baseUrl: 'https://shop.example',
      base: { origin: 'https://shop.example', path: '', sameOrigin: true },
      dialect: store,
      debug: false,
      sealTokens: true,
      offlineWrites: false,
    });
  });
  it('seals tokens unless told not to, and reads seal=0 from the worker URL', () => {
    assert.equal(resolveOptions({ sealTokens: false }, WORKER_URL).sealTokens, false);
    assert.equal(resolveOptions({ sealTokens: true }, WORKER_URL).sealTokens, true);
    assert.deepEqual(optionsFromQuery('?seal=0'), { sealTokens: false });
    assert.deepEqual(optionsFromQuery('?seal=false'), { sealTokens: false });
    assert.deepEqual(optionsFromQuery('?seal=1'), {});
  });
  it('queues offline writes only when told to, and reads offline=1 or offline=true from the worker URL', () => {
    assert.equal(resolveOptions({}, WORKER_URL).offlineWrites, false);
    assert.equal(resolveOptions({ offlineWrites: false }, WORKER_URL).offlineWrites, false);
    assert.equal(resolveOptions({ offlineWrites: true }, WORKER_URL).offlineWrites, true);
    assert.deepEqual(optionsFromQuery('?offline=1'), { offlineWrites: true });
    assert.deepEqual(optionsFromQuery('?offline=true'), { offlineWrites: true });
    for (const off of ['?offline=0', '?offline=false', '?offline=', '?offline=yes', '']) assert.deepEqual(optionsFromQuery(off), {}, off);
  });
  it('takes a base on another origin, with a path and trailing slashes', () => {
    const resolved = resolveOptions({ baseUrl: 'https://api.shop.example/store/', preset: 'spree' }, WORKER_URL);
    assert.equal(resolved.baseUrl, 'https://api.shop.example/store');
    assert.deepEqual(resolved.base, { origin: 'https://api.shop.example', path: '/store', sameOrigin: false });
    assert.equal(resolved.dialect, spree);
  });
  it('resolves a relative base against the worker URL', () => {
    assert.equal(resolveOptions({ baseUrl: '/store' }, WORKER_URL).baseUrl, 'https://shop.example/store');
  });
  it('turns debug on only for true', () => {
    assert.equal(resolveOptions({ debug: true }, WORKER_URL).debug, true);
    assert.equal(resolveOptions({ debug: false }, WORKER_URL).debug, false);
  });
  it('refuses an unknown preset, naming the valid ones', () => {
    const message = refused({ preset: 'shopify' as PresetName });
    assert.match(message, /"shopify"/);
    assert.match(message, /store/);
    assert.match(message, /spree/);
  });
  it('refuses preset names that are Object.prototype members', () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', '']) refused({ preset: name as PresetName });
  });
  it('refuses a base that is not an http(s) URL, naming it', () => {
    for (const baseUrl of ['ftp://shop.example', 'javascript:alert(1)', 'https://user:pw@shop.example', 'http://']) {
      assert.match(refused({ baseUrl }), new RegExp(JSON.stringify(baseUrl).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
    }
  });
  it('refuses a host written without its scheme, naming baseUrl, the value and the schemes', () => {
    const message = refused({ baseUrl: '127.0.0.1:8790' });
    assert.match(message, /baseUrl "127\.0\.0\.1:8790"/);
    assert.match(message, /http:\/\/ or https:\/\//);
    assert.equal(message, `storefront-auth: ${baseUrlRefusal('127.0.0.1:8790')}`);
  });
  it('refuses a worker URL that gives no http(s) origin to default to', () => {
    refused({}, 'file:///sw.js');
  });
});

describe('optionsFromQuery', () => {
  it('gives no options for an empty query', () => {
    assert.deepEqual(optionsFromQuery(''), {});
    assert.deepEqual(optionsFromQuery('?'), {});
  });
  it('reads base, preset and debug', () => {
    assert.deepEqual(optionsFromQuery('?base=https%3A%2F%2Fapi.shop.example%2Fstore&preset=spree&debug=1'), {
      baseUrl: 'https://api.shop.example/store',
      preset: 'spree',
      debug: true,
    });
    assert.deepEqual(optionsFromQuery('debug=true'), { debug: true });
  });
  it('leaves empty values out, so the defaults apply', () => {
    assert.deepEqual(optionsFromQuery('?base=&preset=&debug='), {});
  });
  it('turns debug on only for 1 or true', () => {
    for (const value of ['0', 'false', 'yes', 'TRUE']) assert.deepEqual(optionsFromQuery(`?debug=${value}`), {}, value);
  });
  it('passes an unknown preset on for resolveOptions to refuse', () => {
    const options = optionsFromQuery('?preset=shopify');
    assert.deepEqual(options, { preset: 'shopify' });
    refused(options);
  });
  it('round-trips through resolveOptions as the standalone worker does', () => {
    const url = new URL('https://shop.example/storefront-auth-sw.js?base=https%3A%2F%2Fshop.example%2Fstore%2F&preset=spree');
    const resolved = resolveOptions(optionsFromQuery(url.search), url.href);
    assert.equal(resolved.baseUrl, 'https://shop.example/store');
    assert.equal(resolved.dialect.name, 'spree');
    assert.equal(resolveOptions(optionsFromQuery(''), url.href).baseUrl, 'https://shop.example');
  });
});

describe('presets', () => {
  it('name the wire details of docs/behaviour.md, "Configuration"', () => {
    assert.equal(store.name, 'store');
    assert.equal(store.cartTokenHeader, 'X-Store-Order-Token');
    assert.equal(store.classify('/store_oauth/token', 'POST'), 'tokenGrant');
    assert.deepEqual(store.revoke({ accessToken: 'a', refreshToken: 'r' }), []);
    assert.equal(spree.name, 'spree');
    assert.equal(spree.cartTokenHeader, 'X-Spree-Order-Token');
    assert.equal(spree.classify('/spree_oauth/token', 'POST'), 'tokenGrant');
    assert.deepEqual(spree.revoke({ accessToken: 'a', refreshToken: 'r' }).map((wire) => [wire.path, String(wire.body)]), [['/spree_oauth/revoke', 'token=a'], ['/spree_oauth/revoke', 'token=r']]);
  });
  it('isPresetName knows exactly store, spree and spree-v3', () => {
    assert.equal(isPresetName('store'), true);
    assert.equal(isPresetName('spree'), true);
    assert.equal(isPresetName('spree-v3'), true);
    for (const name of ['Store', 'spree-v2', 'spree_v3', 'toString', '__proto__', '']) assert.equal(isPresetName(name), false, name);
  });
});

describe('spree-v3 and its publishableKey', () => {
  const BASE = 'https://api.shop.example';

  it('refuses spree-v3 without a publishable key (absent, empty, blank), naming publishableKey', () => {
    for (const publishableKey of [undefined, '', '   ', '\t\n']) {
      const options: StorefrontAuthOptions = { baseUrl: BASE, preset: 'spree-v3' };
      if (publishableKey !== undefined) options.publishableKey = publishableKey;
      assert.match(refused(options), /publishableKey/, JSON.stringify(publishableKey));
    }
  });

  it('refuses a key that is not one, whatever the preset: an unfilled placeholder or whitespace inside', () => {
    for (const preset of ['spree-v3', 'store'] as const) {
      for (const publishableKey of ['%VITE_SPREE_PUBLISHABLE_KEY%', '${SPREE_PUBLISHABLE_KEY}', '{{ publishable_key }}', 'pk_abc def', 'pk_abc\npk_def']) {
        const message = refused({ baseUrl: BASE, preset, publishableKey });
        assert.match(message, /publishableKey/, publishableKey);
        assert.ok(message.includes(JSON.stringify(publishableKey)), message);
      }
    }
    assert.deepEqual(optionsFromQuery('?preset=spree-v3&key=%25VITE_SPREE_PUBLISHABLE_KEY%25'), { preset: 'spree-v3', publishableKey: '%VITE_SPREE_PUBLISHABLE_KEY%' });
    assert.match(refused(optionsFromQuery('?preset=spree-v3&key=%25VITE_SPREE_PUBLISHABLE_KEY%25')), /placeholder/);
  });

  it('trims the key it sends', () => {
    const { dialect } = resolveOptions({ baseUrl: BASE, preset: 'spree-v3', publishableKey: ' pk_x\n' }, WORKER_URL);
    assert.equal(dialect.createCart().headers['X-Spree-Api-Key'], 'pk_x');
  });

  it('needs no key for the v2 presets, and ignores one given', () => {
    assert.equal(resolveOptions({ baseUrl: BASE, preset: 'spree' }, WORKER_URL).dialect, spree);
    assert.equal(resolveOptions({ baseUrl: BASE, preset: 'store', publishableKey: 'pk_x' }, WORKER_URL).dialect, store);
  });

  it('reads key from the worker URL, and ?preset=spree-v3&key=pk_x round-trips through resolveOptions', () => {
    const url = new URL('https://shop.example/storefront-auth-sw.js?base=https%3A%2F%2Fapi.shop.example&preset=spree-v3&key=pk_x');
    const options = optionsFromQuery(url.search);
    assert.deepEqual(options, { baseUrl: BASE, preset: 'spree-v3', publishableKey: 'pk_x' });
    const resolved = resolveOptions(options, url.href);
    assert.equal(resolved.dialect.name, 'spree-v3');
    assert.equal(resolved.baseUrl, BASE);
    // Without the key the same URL is a configuration error, not a worker sending no key.
    assert.deepEqual(optionsFromQuery('?preset=spree-v3&key='), { preset: 'spree-v3' });
    assert.match(refused(optionsFromQuery('?preset=spree-v3&key=')), /publishableKey/);
  });

  it("sends the key as X-Spree-Api-Key on every one of the dialect's own requests", () => {
    const { dialect } = resolveOptions(optionsFromQuery('?preset=spree-v3&key=pk_x'), WORKER_URL);
    const cart = { id: 'cart_1', token: 'cart-token', number: 'R1' };
    const wires = [
      dialect.passwordGrant('shopper@example.com', 'pw'),
      dialect.refreshGrant('refresh-1', 'key-1'),
      dialect.createCart(),
      dialect.associate(cart, 'access-1'),
      ...dialect.revoke({ accessToken: 'access-1', refreshToken: 'refresh-1' }),
    ];
    assert.equal(wires.length, 5);
    for (const wire of wires) {
      assert.ok(wire !== null);
      assert.equal(wire.headers['X-Spree-Api-Key'], 'pk_x', wire.label);
    }
  });
});
