// The static routes (staticRoutes.ts) as data: which source each request gets, evaluated here as
// Chromium evaluates them (the first rule that matches wins; no match reaches the fetch handler),
// for the subset of URL pattern syntax the rules use (escaped literals, `*`). The same rules in a
// real Chromium: e2e/page-loads-never-wake-a-stopped-worker.spec.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spree } from '../src/sw/dialects/spree.js';
import { spreeV3 } from '../src/sw/dialects/spreeV3.js';
import { store } from '../src/sw/dialects/store.js';
import { V2_PATHS } from '../src/sw/dialects/storefrontV2.js';
import { classifyRequest, isUnderPrefix } from '../src/sw/requestRules.js';
import { escapePattern, staticRoutes, type RouterCondition, type RouterRule, type RouterUrlPattern } from '../src/sw/staticRoutes.js';

/** A component pattern of escaped literals and `*` wildcards, as a regular expression. */
function component(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '\\') source += (pattern[++i] ?? '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (char === '*') source += '.*';
    else if (':(){}+?'.includes(char)) throw new Error(`unescaped ${char} in ${pattern}`);
    else source += char.replace(/[.^$|[\]/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Whether `url` matches a dictionary pattern whose every component the rules name. */
function matchesUrl(pattern: RouterUrlPattern | string | undefined, url: URL): boolean {
  if (pattern === undefined) return true;
  assert.equal(typeof pattern, 'object', 'a dictionary, never a string resolved against the worker URL');
  const { protocol, hostname, port, pathname } = pattern as RouterUrlPattern;
  // A component left out would inherit from the worker's URL: the rules name all four.
  assert.ok(protocol !== undefined && hostname !== undefined && port !== undefined && pathname !== undefined, JSON.stringify(pattern));
  return (
    component(protocol).test(url.protocol.slice(0, -1)) &&
    component(hostname).test(url.hostname) &&
    component(port).test(url.port) &&
    component(pathname).test(url.pathname)
  );
}

function matches(condition: RouterCondition, request: { url: URL; mode: RequestMode }): boolean {
  if (condition.or !== undefined) {
    assert.equal(Object.keys(condition).length, 1, '`or` stands alone in its condition');
    return condition.or.some((inner) => matches(inner, request));
  }
  assert.equal(condition.not, undefined, '`not` needs Chrome 127');
  return (condition.requestMode === undefined || condition.requestMode === request.mode) && matchesUrl(condition.urlPattern, request.url);
}

/** The source the rules give a request: the first matching rule's, else the fetch handler. */
function sourceFor(rules: RouterRule[], href: string, mode: RequestMode = 'cors'): string {
  const request = { url: new URL(href), mode };
  return rules.find((rule) => matches(rule.condition, request))?.source ?? 'fetch-event (no rule)';
}

const STORE = store.routePrefixes;

describe('static routes', () => {
  it("take the prefixes from the dialect: the storefront paths, the token path and any revoke path", () => {
    assert.deepEqual(STORE, [...Object.values(V2_PATHS), '/store_oauth/token']);
    assert.deepEqual(spree.routePrefixes, [...Object.values(V2_PATHS), '/spree_oauth/token', '/spree_oauth/revoke']);
  });

  // A path the dialect classifies but its prefixes leave out would go straight to the network, and
  // the worker would never see it: every classified path must sit under a prefix.
  for (const dialect of [store, spree, spreeV3('pk_test')]) {
    it(`${dialect.name}: every path the dialect touches is under one of its route prefixes`, () => {
      const segments = ['api', 'v2', 'v3', 'storefront', 'store', 'cart', 'carts', 'checkout', 'account', 'orders', 'customers', 'me', 'wishlists', 'auth', 'login', 'oauth', 'callback', 'refresh', 'logout', 'password_resets', 'x', 'store_oauth', 'spree_oauth', 'token', 'revoke', 'associate', 'cart_1'];
      let seed = 7;
      const next = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
      const paths = [...dialect.routePrefixes, ...dialect.routePrefixes.map((prefix) => `${prefix}/x`)];
      for (let i = 0; i < 5_000; i++) paths.push('/' + Array.from({ length: 1 + next(6) }, () => segments[next(segments.length)]).join('/'));
      for (const path of paths) {
        for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
          if (dialect.classify(path, method) === null) continue;
          assert.ok(dialect.routePrefixes.some((prefix) => isUnderPrefix(path, prefix)), `${method} ${path} is classified but under no route prefix`);
        }
      }
    });
  }

  it('send only requests under the storefront prefixes to the fetch handler, on a segment boundary', () => {
    const rules = staticRoutes({ origin: 'https://shop.example', path: '' }, STORE);
    for (const path of ['/api/v2/storefront/cart', '/api/v2/storefront/cart/add_item', '/api/v2/storefront/checkout/next', '/api/v2/storefront/account', '/store_oauth/token']) {
      assert.equal(sourceFor(rules, `https://shop.example${path}?x=1`), 'fetch-event', path);
    }
    for (const path of ['/', '/index.html', '/assets/app.js', '/logo.png', '/api/v2/storefront/products', '/api/v2/storefront/cartography', '/store_oauth/tokens', '/store_oauth/token-x.json']) {
      assert.equal(sourceFor(rules, `https://shop.example${path}`), 'network', path);
    }
  });

  // Rails routes `//store_oauth/token`, `/store_oauth/token/` and `/store_oauth/token.json` as the token path (requestRules.ts
  // `routedPath`), and the worker classifies them so: each must reach the fetch handler, or in
  // Chromium a grant's real tokens would reach the page unsealed.
  for (const [name, dialect] of [['store', store], ['spree', spree], ['spree-v3', spreeV3('pk_test')]] as const) {
    it(`${name}: every path the worker classifies, with a trailing / or a // run or a format, reaches the fetch handler`, () => {
      for (const basePath of ['', '/store']) {
        const base = { origin: 'https://shop.example', path: basePath, sameOrigin: true };
        const rules = staticRoutes(base, dialect.routePrefixes);
        const spellings = (path: string): string[] => [path, `${path}/`, `/${path}`, path.replace(/\/([^/]*)$/, '//$1'), path.replace('/', '//').replace(/$/, '//'), `${path}.json`, `${path}.json/`];
        for (const path of [...dialect.routePrefixes, ...dialect.routePrefixes.map((prefix) => `${prefix}/x`)].flatMap(spellings)) {
          for (const method of ['GET', 'POST', 'PATCH']) {
            const url = new URL(`https://shop.example${basePath}${path}`);
            if (classifyRequest(url, method, { base, dialect }) === null) continue;
            assert.equal(sourceFor(rules, url.href), 'fetch-event', `${method} ${url.pathname}`);
          }
        }
      }
    });
  }

  it('send a path under the base holding // to the fetch handler, which leaves alone what it does not name', () => {
    const rules = staticRoutes({ origin: 'https://shop.example', path: '/store' }, STORE);
    for (const path of ['/store//store_oauth/token', '/store/api/v2//storefront/cart', '/store/store_oauth/token/', '/store/assets//app.js', '//store/store_oauth/token', '/other//store_oauth/token']) {
      assert.equal(sourceFor(rules, `https://shop.example${path}`), 'fetch-event', path);
    }
    for (const path of ['/store/assets/app.js', '/other/store_oauth/token']) assert.equal(sourceFor(rules, `https://shop.example${path}`), 'network', path);
    assert.equal(sourceFor(rules, 'https://other.example/store//store_oauth/token'), 'network');
    assert.equal(sourceFor(staticRoutes({ origin: 'https://shop.example', path: '' }, STORE), 'https://shop.example//store_oauth/token'), 'fetch-event');
  });

  it('send navigations, and no-cors requests to a base on another origin, to the network, even under a storefront prefix', () => {
    const rules = staticRoutes({ origin: 'https://api.shop.example', path: '' }, STORE);
    assert.equal(sourceFor(rules, 'https://api.shop.example/api/v2/storefront/cart', 'navigate'), 'network');
    assert.equal(sourceFor(rules, 'https://api.shop.example/api/v2/storefront/cart', 'no-cors'), 'network');
    assert.equal(sourceFor(rules, 'https://api.shop.example/api/v2/storefront/cart', 'cors'), 'fetch-event');
  });

  it("send a no-cors request to a base on the worker's own origin to the fetch handler under a storefront prefix, the page reads its answer", () => {
    const rules = staticRoutes({ origin: 'https://shop.example', path: '/store', sameOrigin: true }, STORE);
    assert.equal(sourceFor(rules, 'https://shop.example/store/store_oauth/token', 'no-cors'), 'fetch-event');
    assert.equal(sourceFor(rules, 'https://shop.example/store/api/v2/storefront/cart', 'same-origin'), 'fetch-event');
    assert.equal(sourceFor(rules, 'https://shop.example/store/api/v2/storefront/cart', 'navigate'), 'network');
    for (const path of ['/logo.png', '/store/api/v2/storefront/products', '/api/v2/storefront/cart']) assert.equal(sourceFor(rules, `https://shop.example${path}`, 'no-cors'), 'network', path);
  });

  it('send other origins to the network: another host, port or scheme, and a look-alike host', () => {
    const rules = staticRoutes({ origin: 'http://127.0.0.1:8080', path: '/store' }, STORE);
    assert.equal(sourceFor(rules, 'http://127.0.0.1:8080/store/api/v2/storefront/cart'), 'fetch-event');
    for (const href of ['http://127.0.0.1:8081/store/api/v2/storefront/cart', 'https://127.0.0.1:8080/store/api/v2/storefront/cart', 'http://localhost:8080/store/api/v2/storefront/cart', 'https://cdn.example/x.js']) {
      assert.equal(sourceFor(rules, href), 'network', href);
    }
  });

  it('put the prefixes under the base path, never at the origin root nor under a path that only starts like it', () => {
    const rules = staticRoutes({ origin: 'https://shop.example', path: '/store' }, STORE);
    assert.equal(sourceFor(rules, 'https://shop.example/store/api/v2/storefront/account/orders'), 'fetch-event');
    assert.equal(sourceFor(rules, 'https://shop.example/api/v2/storefront/account'), 'network');
    assert.equal(sourceFor(rules, 'https://shop.example/storefront/api/v2/storefront/account'), 'network');
  });

  it('take any prefix list (a dialect’s), each prefix once', () => {
    const rules = staticRoutes({ origin: 'https://api.shop.example', path: '' }, ['/api/v3/store/carts', '/api/v3/store/auth', '/api/v3/store/carts']);
    assert.equal(sourceFor(rules, 'https://api.shop.example/api/v3/store/carts/abc/items'), 'fetch-event');
    assert.equal(sourceFor(rules, 'https://api.shop.example/api/v2/storefront/cart'), 'network');
    assert.equal(rules[1]?.condition.or?.length, 7, 'three per prefix (itself, below it, with a format), and a path holding //');
  });

  it('with no prefix at all, send everything to the network', () => {
    const rules = staticRoutes({ origin: 'https://shop.example', path: '' }, []);
    assert.equal(sourceFor(rules, 'https://shop.example/api/v2/storefront/cart'), 'network');
  });

  it('escape URL pattern syntax in the base and prefixes, so that a path matches itself only', () => {
    assert.equal(escapePattern('/a:b/*(c)+{d}?\\'), '/a\\:b/\\*\\(c\\)\\+\\{d\\}\\?\\\\');
    const rules = staticRoutes({ origin: 'https://shop.example', path: '/v(1)' }, ['/cart:x']);
    assert.equal(sourceFor(rules, 'https://shop.example/v(1)/cart:x'), 'fetch-event');
    assert.equal(sourceFor(rules, 'https://shop.example/v1/cart:x'), 'network');
  });

  it('stay far below Chromium’s limits: three rules, at most 1024 conditions, nested two deep', () => {
    const rules = staticRoutes({ origin: 'https://shop.example', path: '' }, spree.routePrefixes);
    assert.equal(rules.length, 3);
    const count = (condition: RouterCondition): number => 1 + (condition.or ?? []).reduce((sum, inner) => sum + count(inner), 0);
    assert.ok(rules.reduce((sum, rule) => sum + count(rule.condition), 0) <= 1024);
    assert.deepEqual(JSON.parse(JSON.stringify(rules)), rules, 'plain data, as addRoutes takes it');
  });
});
