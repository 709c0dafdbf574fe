// Which credential a request gets (docs/behaviour.md, "What the worker does to requests"): which
// URLs are under the base URL, how a request is classified, and the credential table for each
// holder.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveOptions, type ResolvedOptions } from '../src/sw/options.js';
import type { PresetName } from '../src/sw/presets.js';
import {
  classifyRequest,
  credentialFor,
  decideRequest,
  isUnderPrefix,
  mayDecodeElsewhere,
  pathUnderBase,
  type Decision,
  type HeldCredentials,
  type PageHeaders,
  type RequestKind,
} from '../src/sw/requestRules.js';

const WORKER_URL = 'https://shop.example/storefront-auth-sw.js';

function options(baseUrl: string, preset: PresetName = 'store'): ResolvedOptions {
  return resolveOptions({ baseUrl, preset }, WORKER_URL);
}

/** The whole decision for one request, as the worker makes it: classify, then decide. */
function decide(url: string, method: string, opts: ResolvedOptions, held: HeldCredentials, page: PageHeaders = NO_PAGE_HEADER): Decision | null {
  const kind = classifyRequest(new URL(url), method, opts);
  return kind === null ? null : decideRequest(kind, held, page);
}

const NO_PAGE_HEADER: PageHeaders = { authorization: false, orderToken: false };

const HOLDERS = {
  guestWithCart: { signedIn: false, hasCart: true },
  guestWithoutCart: { signedIn: false, hasCart: false },
  signedIn: { signedIn: true, hasCart: false },
  signedInWithCart: { signedIn: true, hasCart: true },
} as const satisfies Record<string, HeldCredentials>;

describe('isUnderPrefix', () => {
  const prefix = '/api/v2/storefront/cart';
  for (const path of [prefix, `${prefix}/add_item`, `${prefix}/`, `${prefix}/associate`]) {
    it(`${path} is under ${prefix}`, () => assert.equal(isUnderPrefix(path, prefix), true));
  }
  for (const path of ['/api/v2/storefront/cartography', '/api/v2/storefront/carts', '/api/v2/storefront/car', '/api/v2/storefront', '/x/api/v2/storefront/cart']) {
    it(`${path} is not under ${prefix}`, () => assert.equal(isUnderPrefix(path, prefix), false));
  }
});

describe('pathUnderBase', () => {
  const root = options('https://shop.example').base;
  const store = options('https://shop.example/store').base;

  it('gives the whole path for a base without a path', () => {
    assert.equal(pathUnderBase(new URL('https://shop.example/api/v2/storefront/cart?x=1#y'), root), '/api/v2/storefront/cart');
  });
  it('gives the path below a base with a path', () => {
    assert.equal(pathUnderBase(new URL('https://shop.example/store/api/v2/storefront/cart'), store), '/api/v2/storefront/cart');
  });
  it('gives an empty path for the base itself', () => {
    assert.equal(pathUnderBase(new URL('https://shop.example/store'), store), '');
    assert.equal(pathUnderBase(new URL('https://shop.example/store/'), store), '/');
  });
  it('refuses a path that only starts with the base path text', () => {
    assert.equal(pathUnderBase(new URL('https://shop.example/storefront/api/v2/storefront/cart'), store), null);
    assert.equal(pathUnderBase(new URL('https://shop.example/store-eu/api/v2/storefront/cart'), store), null);
  });
  it('refuses the same path outside the base path', () => {
    assert.equal(pathUnderBase(new URL('https://shop.example/api/v2/storefront/cart'), store), null);
    // The URL parser resolves the dot segments before the path is compared.
    assert.equal(pathUnderBase(new URL('https://shop.example/store/../api/v2/storefront/cart'), store), null);
    assert.equal(pathUnderBase(new URL('https://shop.example/store/%2e%2e/api/v2/storefront/cart'), store), null);
  });
  it('compares the base path case-sensitively', () => {
    assert.equal(pathUnderBase(new URL('https://shop.example/Store/api/v2/storefront/cart'), store), null);
  });
  for (const url of [
    'http://shop.example/api/v2/storefront/cart',
    'https://shop.example:8443/api/v2/storefront/cart',
    'https://api.shop.example.evil.com/api/v2/storefront/cart',
    'https://shop.example.evil.com/api/v2/storefront/cart',
    'https://evilshop.example/api/v2/storefront/cart',
    'https://sub.shop.example/api/v2/storefront/cart',
    'https://shop.example@evil.com/api/v2/storefront/cart',
    'https://shop.example./api/v2/storefront/cart',
    'wss://shop.example/api/v2/storefront/cart',
  ]) {
    it(`refuses ${url}`, () => assert.equal(pathUnderBase(new URL(url), root), null));
  }
  it('never classifies a blob: URL of the base origin', () => {
    // A blob: URL's origin is its creator's, and its pathname is the whole inner URL, so
    // pathUnderBase returns that text rather than null; no storefront path ever equals it.
    for (const method of ['GET', 'POST']) {
      assert.equal(classifyRequest(new URL('blob:https://shop.example/api/v2/storefront/cart'), method, options('https://shop.example')), null);
      assert.equal(classifyRequest(new URL('blob:https://shop.example/store_oauth/token'), method, options('https://shop.example')), null);
    }
  });
  it('accepts the same origin spelled with the default port or another case', () => {
    assert.equal(pathUnderBase(new URL('https://shop.example:443/api/v2/storefront/cart'), root), '/api/v2/storefront/cart');
    assert.equal(pathUnderBase(new URL('https://SHOP.Example/api/v2/storefront/cart'), root), '/api/v2/storefront/cart');
  });
  it('refuses another port of a local base', () => {
    const local = options('http://localhost:3000').base;
    assert.equal(pathUnderBase(new URL('http://localhost:3000/api/v2/storefront/cart'), local), '/api/v2/storefront/cart');
    for (const url of ['http://localhost:3001/api/v2/storefront/cart', 'http://localhost/api/v2/storefront/cart', 'http://127.0.0.1:3000/api/v2/storefront/cart']) {
      assert.equal(pathUnderBase(new URL(url), local), null, url);
    }
  });
});

describe('classifyRequest', () => {
  for (const [baseUrl, prefix] of [
    ['https://shop.example', ''],
    ['https://shop.example/store', '/store'],
    ['https://api.shop.example/store/eu/', '/store/eu'],
  ] as const) {
    const origin = new URL(baseUrl).origin;
    for (const preset of ['store', 'spree'] as const) {
      const opts = options(baseUrl, preset);
      const otherTokenPath = preset === 'store' ? '/spree_oauth/token' : '/store_oauth/token';
      const cases: [path: string, method: string, kind: RequestKind | null][] = [
        ['/api/v2/storefront/cart', 'POST', 'cartCreate'],
        ['/api/v2/storefront/cart?fields%5Bcart%5D=number%2Ctoken', 'POST', 'cartCreate'],
        ['/api/v2/storefront/cart', 'GET', 'cartOrCheckout'],
        ['/api/v2/storefront/cart?x=1', 'GET', 'cartOrCheckout'],
        ['/api/v2/storefront/cart/add_item', 'POST', 'cartOrCheckout'],
        ['/api/v2/storefront/cart/associate?guest_order_token=T', 'PATCH', 'cartOrCheckout'],
        ['/api/v2/storefront/cart', 'DELETE', 'cartOrCheckout'],
        ['/api/v2/storefront/checkout', 'PATCH', 'cartOrCheckout'],
        ['/api/v2/storefront/checkout/next', 'PATCH', 'cartOrCheckout'],
        ['/api/v2/storefront/account', 'GET', 'account'],
        ['/api/v2/storefront/account/addresses', 'POST', 'account'],
        ['/api/v2/storefront/cartography', 'GET', null],
        ['/api/v2/storefront/cartography', 'POST', null],
        ['/api/v2/storefront/checkouts', 'GET', null],
        ['/api/v2/storefront/accounts', 'GET', null],
        ['/api/v2/storefront/products', 'GET', null],
        ['/api/v2/storefront/taxons?filter=x', 'GET', null],
        ['/api/v2/storefront', 'GET', null],
        ['/api/v1/storefront/cart', 'GET', null],
        ['/api/v2/storefront/%63art', 'GET', null],
        ['/api/v2/storefront/cart/../account', 'GET', 'account'],
        ['/api/v2/storefront/account/../cart', 'GET', 'cartOrCheckout'],
        [opts.dialect.routePrefixes[3] as string, 'POST', 'tokenGrant'],
        [`${opts.dialect.routePrefixes[3] as string}?x=1`, 'POST', 'tokenGrant'],
        [opts.dialect.routePrefixes[3] as string, 'GET', null],
        [`${opts.dialect.routePrefixes[3] as string}/x`, 'POST', null],
        [otherTokenPath, 'POST', null],
      ];
      for (const [path, method, kind] of cases) {
        it(`${preset} at ${baseUrl}: ${method} ${path} is ${kind ?? 'untouched'}`, () => {
          assert.equal(classifyRequest(new URL(`${origin}${prefix}${path}`), method, opts), kind);
        });
      }
      if (prefix !== '') {
        it(`${preset} at ${baseUrl}: the same paths without the base path are untouched`, () => {
          for (const [path, method] of cases) assert.equal(classifyRequest(new URL(`${origin}${path}`), method, opts), null, `${method} ${path}`);
        });
      }
    }
  }
});

describe('a path a server may decode into another path', () => {
  // nginx decodes `%2F` and resolves the `..` it makes; Tomcat and others read `;` as a path
  // parameter: such a request may land outside the base after the worker judged it inside.
  const ENCODINGS = ['%2F', '%2f', '%5C', '%5c', '%2E', '%2e'] as const;
  const SIGNED_IN_WITH_CART = HOLDERS.signedInWithCart;
  const bases = ['https://shop.example', 'https://shop.example/store'] as const;
  const paths = (encoded: string): string[] => [
    // The review's request: an order number built into a URL, `../` six times, encoded.
    `/api/v2/storefront/account/orders/${`..${encoded}`.repeat(6)}other${encoded}collect`,
    `/api/v2/storefront/account${encoded}..${encoded}..${encoded}..${encoded}other`,
    `/api/v2/storefront/cart/${encoded}json`,
    `/api/v2/storefront/cart${encoded}add_item`,
    `/api/v2/storefront/checkout/next${encoded}`,
    `/api/v2/storefront/account/x${encoded}y/z`,
  ];

  for (const baseUrl of bases) {
    const { origin, pathname } = new URL(baseUrl);
    const prefix = pathname === '/' ? '' : pathname;
    for (const preset of ['store', 'spree'] as const) {
      const opts = options(baseUrl, preset);
      for (const encoded of ENCODINGS) {
        it(`${preset} at ${baseUrl}: ${encoded} anywhere in a storefront path gets nothing`, () => {
          for (const path of paths(encoded)) {
            const url = new URL(`${origin}${prefix}${path}`);
            assert.ok(url.pathname.includes(encoded), `the URL parser kept ${encoded} in ${url.pathname}`);
            for (const method of ['GET', 'POST', 'PATCH']) assert.equal(decide(url.href, method, opts, SIGNED_IN_WITH_CART), null, `${method} ${path}`);
          }
        });
      }
      it(`${preset} at ${baseUrl}: an encoded separator in the token path leaves the grant alone, uncaptured`, () => {
        const tokenPath = opts.dialect.routePrefixes[3] as string;
        for (const encoded of ENCODINGS) assert.equal(classifyRequest(new URL(`${origin}${prefix}${tokenPath}${encoded}`), 'POST', opts), null, encoded);
      });
      for (const path of ['/api/v2/storefront/account;x=1', '/api/v2/storefront/account/..;/..;/other', '/api/v2/storefront/cart;jsessionid=1/add_item', '/api/v2/storefront/checkout/;', '/api/v2/storefront/cart;']) {
        it(`${preset} at ${baseUrl}: a ; path parameter gets nothing: ${path}`, () => {
          for (const method of ['GET', 'POST']) assert.equal(decide(`${origin}${prefix}${path}`, method, opts, SIGNED_IN_WITH_CART), null, method);
        });
      }
    }
  }

  it('spree-v3: an encoded separator or a ; in a Store API path gets nothing either', () => {
    const opts = resolveOptions({ baseUrl: 'https://shop.example/store', preset: 'spree-v3', publishableKey: 'pk_test' }, WORKER_URL);
    for (const path of ['/api/v3/store/customers/me%2F..%2F..%2Fother', '/api/v3/store/carts/cart_1%2e%2e/items', '/api/v3/store/carts/cart_1%5Citems', '/api/v3/store/customers/me;x', '/api/v3/store/auth/login;x']) {
      for (const method of ['GET', 'POST', 'PATCH']) assert.equal(classifyRequest(new URL(`https://shop.example/store${path}`), method, opts), null, `${method} ${path}`);
    }
  });

  describe('control cases that still get their credential', () => {
    const opts = options('https://shop.example/store');
    for (const [what, url, kind] of [
      ['an encoded space', 'https://shop.example/store/api/v2/storefront/account/orders/R%20100', 'account'],
      ['an encoded letter', 'https://shop.example/store/api/v2/storefront/account/orders/R%41', 'account'],
      ['an encoded percent sign (a second decoding is not a proxy\'s)', 'https://shop.example/store/api/v2/storefront/account/orders/R%252F', 'account'],
      ['an encoded non-ASCII letter', 'https://shop.example/store/api/v2/storefront/account/orders/caf%C3%A9', 'account'],
      ['an encoded slash in the query', 'https://shop.example/store/api/v2/storefront/cart?next=%2F..%2Fother', 'cartOrCheckout'],
      ['an encoded backslash and dot in the query', 'https://shop.example/store/api/v2/storefront/account?q=a%5Cb%2Ec', 'account'],
      ['a ; in the query', 'https://shop.example/store/api/v2/storefront/account?a=1;b=2', 'account'],
      ['a ; in the fragment', 'https://shop.example/store/api/v2/storefront/cart#a;b', 'cartOrCheckout'],
      ['dot segments the URL parser resolves itself', 'https://shop.example/store/api/v2/storefront/cart/%2e%2e/account', 'account'],
    ] as const) {
      it(`${what}: ${url} is ${kind}`, () => {
        assert.equal(classifyRequest(new URL(url), 'GET', opts), kind);
        assert.deepEqual(decide(url, 'GET', opts, SIGNED_IN_WITH_CART), { kind, credential: 'bearer', capture: null });
      });
    }
  });

  describe('mayDecodeElsewhere', () => {
    for (const path of ['/a%2Fb', '/a%2fb', '/a%5Cb', '/a%5cb', '/a%2Eb', '/a%2eb', '/a;b', ';', '/%2F', '/a/b%2F']) {
      it(`${path} may decode elsewhere`, () => assert.equal(mayDecodeElsewhere(path), true));
    }
    for (const path of ['', '/', '/a/b', '/a%20b', '/a%41b', '/a%252Fb', '/a%2', '/a%', '/a%F2', '/a%E2b', '/a%C5b', '/a.b', '/a\\b']) {
      it(`${JSON.stringify(path)} does not`, () => assert.equal(mayDecodeElsewhere(path), false));
    }
  });
});

describe('the credential table', () => {
  // Each row: the request, then what each holder gets: the credential, or null for no credential
  // (a capture may still be made), and `untouched` when the worker leaves the request alone.
  type Expect = 'bearer' | 'orderToken' | null | 'untouched';
  const ROWS: { path: (tokenPath: string) => string; method: string; capture: Decision['capture']; guestWithCart: Expect; guestWithoutCart: Expect; signedIn: Expect }[] = [
    { path: () => '/api/v2/storefront/cart', method: 'POST', capture: 'cart', guestWithCart: null, guestWithoutCart: null, signedIn: 'bearer' },
    { path: () => '/api/v2/storefront/cart', method: 'GET', capture: null, guestWithCart: 'orderToken', guestWithoutCart: 'untouched', signedIn: 'bearer' },
    { path: () => '/api/v2/storefront/cart/add_item', method: 'POST', capture: null, guestWithCart: 'orderToken', guestWithoutCart: 'untouched', signedIn: 'bearer' },
    { path: () => '/api/v2/storefront/checkout/next', method: 'PATCH', capture: null, guestWithCart: 'orderToken', guestWithoutCart: 'untouched', signedIn: 'bearer' },
    { path: () => '/api/v2/storefront/account', method: 'GET', capture: null, guestWithCart: 'untouched', guestWithoutCart: 'untouched', signedIn: 'bearer' },
    { path: (tokenPath) => tokenPath, method: 'POST', capture: 'token', guestWithCart: null, guestWithoutCart: null, signedIn: null },
    { path: () => '/api/v2/storefront/products', method: 'GET', capture: null, guestWithCart: 'untouched', guestWithoutCart: 'untouched', signedIn: 'untouched' },
    { path: () => '/api/v2/storefront/cartography', method: 'GET', capture: null, guestWithCart: 'untouched', guestWithoutCart: 'untouched', signedIn: 'untouched' },
  ];

  for (const baseUrl of ['https://shop.example', 'https://shop.example/store']) {
    for (const preset of ['store', 'spree'] as const) {
      const opts = options(baseUrl, preset);
      for (const row of ROWS) {
        const path = row.path(opts.dialect.routePrefixes[3] as string);
        for (const holder of ['guestWithCart', 'guestWithoutCart', 'signedIn'] as const) {
          const expected = row[holder];
          it(`${preset} at ${baseUrl}: ${row.method} ${path} for ${holder} gets ${expected ?? 'no credential'}`, () => {
            const decision = decide(`${opts.baseUrl}${path}`, row.method, opts, HOLDERS[holder]);
            if (expected === 'untouched') assert.equal(decision, null);
            else assert.deepEqual(decision, { kind: decision?.kind, credential: expected, capture: row.capture });
          });
        }
        it(`${preset} at ${baseUrl}: ${row.method} ${path} signed in with a cart is treated as signed in`, () => {
          assert.deepEqual(decide(`${opts.baseUrl}${path}`, row.method, opts, HOLDERS.signedInWithCart), decide(`${opts.baseUrl}${path}`, row.method, opts, HOLDERS.signedIn));
        });
      }
    }
  }

  it('gives nothing to any request outside the base URL, whoever holds what', () => {
    const opts = options('https://shop.example/store');
    for (const url of [
      'https://shop.example/api/v2/storefront/cart',
      'https://shop.example/storefront/api/v2/storefront/cart',
      'https://api.shop.example.evil.com/store/api/v2/storefront/cart',
      'http://shop.example/store/api/v2/storefront/account',
      'https://shop.example:8443/store/api/v2/storefront/checkout',
      'https://shop.example/store_oauth/token',
    ]) {
      for (const method of ['GET', 'POST']) {
        for (const held of Object.values(HOLDERS)) assert.equal(decide(url, method, opts, held), null, `${method} ${url}`);
      }
    }
  });
});

describe("the page's own credential header", () => {
  const opts = options('https://shop.example/store');
  const cart = `${opts.baseUrl}/api/v2/storefront/cart/add_item`;
  const account = `${opts.baseUrl}/api/v2/storefront/account`;
  const create = `${opts.baseUrl}/api/v2/storefront/cart`;
  const token = `${opts.baseUrl}${opts.dialect.routePrefixes[3] as string}`;
  const withAuthorization: PageHeaders = { authorization: true, orderToken: false };
  const withOrderToken: PageHeaders = { authorization: false, orderToken: true };
  const withBoth: PageHeaders = { authorization: true, orderToken: true };

  it('a guest with a cart adds no order token when the page sent one', () => {
    assert.equal(decide(cart, 'POST', opts, HOLDERS.guestWithCart, withOrderToken), null);
  });
  it('a guest with a cart adds no order token when the page sent its own bearer', () => {
    assert.equal(decide(cart, 'POST', opts, HOLDERS.guestWithCart, withAuthorization), null);
    assert.equal(decide(cart, 'POST', opts, HOLDERS.guestWithCart, withBoth), null);
  });
  it('signed in, no bearer is added when the page sent its own', () => {
    for (const page of [withAuthorization, withBoth]) {
      assert.equal(decide(cart, 'POST', opts, HOLDERS.signedIn, page), null);
      assert.equal(decide(account, 'GET', opts, HOLDERS.signedInWithCart, page), null);
    }
  });
  it("signed in, the bearer is added beside the page's own order token, which stays", () => {
    assert.deepEqual(decide(cart, 'POST', opts, HOLDERS.signedIn, withOrderToken), { kind: 'cartOrCheckout', credential: 'bearer', capture: null });
  });
  it('a cart creation is still captured when the page sent its own bearer', () => {
    assert.deepEqual(decide(create, 'POST', opts, HOLDERS.signedIn, withAuthorization), { kind: 'cartCreate', credential: null, capture: 'cart' });
  });
  it('a token grant is captured whatever headers the page sent', () => {
    for (const page of [NO_PAGE_HEADER, withAuthorization, withOrderToken, withBoth]) {
      assert.deepEqual(decide(token, 'POST', opts, HOLDERS.signedIn, page), { kind: 'tokenGrant', credential: null, capture: 'token' });
    }
  });
});

describe('credentialFor, the one credential rule', () => {
  const KINDS: RequestKind[] = ['cartCreate', 'cartOrCheckout', 'account', 'tokenGrant'];
  const PAGES: PageHeaders[] = [NO_PAGE_HEADER, { authorization: true, orderToken: false }, { authorization: false, orderToken: true }, { authorization: true, orderToken: true }];

  it('names the credential decideRequest decides, for every kind, holder and page header', () => {
    for (const kind of KINDS) {
      for (const held of Object.values(HOLDERS)) {
        for (const page of PAGES) {
          const decision = decideRequest(kind, held, page);
          assert.equal(decision?.credential ?? null, credentialFor(kind, held, page), `${kind} ${JSON.stringify(held)} ${JSON.stringify(page)}`);
        }
      }
    }
  });
  it('gives a shopper made a guest by a refused refresh what a guest gets: the order token on cart and checkout, nothing on account', () => {
    const guest = { signedIn: false, hasCart: true };
    assert.equal(credentialFor('cartOrCheckout', guest, NO_PAGE_HEADER), 'orderToken');
    assert.equal(credentialFor('account', guest, NO_PAGE_HEADER), null);
    assert.equal(credentialFor('cartCreate', guest, NO_PAGE_HEADER), null);
    assert.equal(credentialFor('cartOrCheckout', { signedIn: false, hasCart: false }, NO_PAGE_HEADER), null);
  });
  it('never gives a token grant a credential', () => {
    for (const held of Object.values(HOLDERS)) for (const page of PAGES) assert.equal(credentialFor('tokenGrant', held, page), null);
  });
});
