// Property test of the request decision (docs/behaviour.md, "What the worker does to requests"):
// random URLs, methods, holders and page headers from a small seeded PRNG, checked against
// invariants that are computed independently of src/sw/requestRules.ts. The seed is fixed so every
// run checks the same cases; a failure names the seed and the case, and REQUEST_RULES_SEED=<n> runs
// another seed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveOptions, type ResolvedOptions } from '../src/sw/options.js';
import { classifyRequest, decideRequest, type Decision, type HeldCredentials, type PageHeaders } from '../src/sw/requestRules.js';
import { type Random, prng } from './random.js';

const SEED = Number(process.env['REQUEST_RULES_SEED'] || 0x5eed_2024);
const CASES = 5000;

function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

function chance(random: Random, p: number): boolean {
  return random() < p;
}

const BASES = ['https://shop.example', 'https://shop.example/store', 'http://localhost:3000', 'https://api.shop.example/store/eu/'] as const;
const PRESET_NAMES = ['store', 'spree'] as const;
const METHODS = ['GET', 'GET', 'POST', 'POST', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** Origins to send a request to: the base's own, its other spellings, and its look-alikes. */
function origins(base: URL): string[] {
  const host = base.host;
  const hostname = base.hostname;
  const otherScheme = base.protocol === 'https:' ? 'http:' : 'https:';
  const defaultPort = base.protocol === 'https:' ? '443' : '80';
  return [
    base.origin,
    base.origin,
    base.origin,
    `${base.protocol}//${host.toUpperCase()}`,
    base.port === '' ? `${base.protocol}//${hostname}:${defaultPort}` : base.origin,
    `${otherScheme}//${host}`,
    `${base.protocol}//${hostname}:8443`,
    `${base.protocol}//${hostname}:${base.port === '' ? '8080' : String(Number(base.port) + 1)}`,
    `${base.protocol}//${hostname}.evil.com`,
    `${base.protocol}//api.${hostname}.evil.com`,
    `${base.protocol}//evil${hostname}`,
    `${base.protocol}//sub.${hostname}`,
    `${base.protocol}//${hostname}.`,
    `${base.protocol}//${host}@evil.com`,
    `${base.protocol}//evil.com#@${host}`,
    `${base.protocol}//evil.com?@${host}`,
    `${base.protocol}//127.0.0.1`,
    `ws://${host}`,
    `wss://${host}`,
    `blob:${base.origin}`,
  ];
}

const SEGMENTS = [
  'api', 'v2', 'v1', 'storefront', 'cart', 'carts', 'cartography', 'checkout', 'checkouts', 'account', 'accounts',
  'products', 'taxons', 'store', 'storefront', 'eu', 'store_oauth', 'spree_oauth', 'token', 'revoke', 'add_item',
  'associate', 'addresses', '..', '.', '%2e%2e', '%2E', '%63art', 'cart%2F..', 'ca%20rt', '%2F', 'caf%C3%A9', 'Cart', 'ACCOUNT', '',
  '..%5C', 'x%5cy', 'orders%2e', ';', 'cart;x=1', '..;', '%41', '%252F',
] as const;
const QUERIES = ['', '', '', '?x=1', '?fields%5Bcart%5D=number%2Ctoken', '?next=/api/v2/storefront/account', '?', '#top', '?guest_order_token=T#x', '?a=/../cart'] as const;

function randomSegments(random: Random, count: number): string[] {
  return Array.from({ length: count }, () => pick(random, SEGMENTS));
}

/** A path: often the base path and a storefront or token path, sometimes anything at all. */
function randomPath(random: Random, basePath: string): string {
  const prefix = chance(random, 0.75) ? basePath : pick(random, ['', '/store', '/storefront', '/store-eu', '/Store', `${basePath}/..`, `${basePath}%2F`, `${basePath}/.`]);
  let segments: string[];
  const shape = random();
  if (shape < 0.55) {
    const section = pick(random, ['cart', 'cart', 'cart', 'checkout', 'checkout', 'account', 'account', 'cartography', 'products', 'carts', 'accounts', '%63art', 'Cart', '']);
    segments = ['api', 'v2', 'storefront', section, ...randomSegments(random, chance(random, 0.5) ? 0 : Math.ceil(random() * 2))];
  } else if (shape < 0.75) {
    const tokenPath = [pick(random, ['store_oauth', 'spree_oauth', 'oauth']), pick(random, ['token', 'token', 'token', 'revoke', 'token%2F'])];
    segments = [...tokenPath, ...randomSegments(random, chance(random, 0.8) ? 0 : 1)];
  } else {
    segments = randomSegments(random, Math.floor(random() * 7));
  }
  const trailingSlash = chance(random, 0.1) ? '/' : '';
  return `${prefix}/${segments.join('/')}${trailingSlash}`;
}

interface Case {
  url: string;
  method: string;
  baseUrl: string;
  preset: (typeof PRESET_NAMES)[number];
  held: HeldCredentials;
  page: PageHeaders;
}

function randomCase(random: Random): Case {
  const baseUrl = pick(random, BASES);
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  return {
    url: `${chance(random, 0.5) ? base.origin : pick(random, origins(base))}${randomPath(random, basePath)}${pick(random, QUERIES)}`,
    method: pick(random, METHODS),
    baseUrl,
    preset: pick(random, PRESET_NAMES),
    held: { signedIn: chance(random, 0.5), hasCart: chance(random, 0.5) },
    page: { authorization: chance(random, 0.2), orderToken: chance(random, 0.2) },
  };
}

/** The decision as the worker makes it. */
function decide(url: URL, method: string, options: ResolvedOptions, held: HeldCredentials, page: PageHeaders): Decision | null {
  const kind = classifyRequest(url, method, options);
  return kind === null ? null : decideRequest(kind, held, page);
}

/**
 * The path segments of `url` below the base, or null when `url` is not under it. Written apart
 * from requestRules.ts: scheme, host and effective port compared field by field, and the path
 * compared segment by segment.
 */
function segmentsUnderBase(url: URL, base: URL): string[] | null {
  const port = (u: URL): string => u.port || (u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '');
  if (url.protocol !== base.protocol || url.hostname !== base.hostname || port(url) !== port(base)) return null;
  // `/store/` and `/store` are the same base (docs/behaviour.md, "Configuration": no trailing
  // slash).
  const baseSegments = base.pathname.replace(/\/+$/, '').split('/');
  const segments = url.pathname.split('/');
  if (baseSegments.some((segment, i) => segments[i] !== segment)) return null;
  return segments.slice(baseSegments.length);
}

/** True when a segment holds a `;` or an encoded `/`, `\` or `.`: checked here character by character, apart from the worker's pattern. */
function decodesElsewhere(segments: readonly string[]): boolean {
  return segments.some((segment) => segment.includes(';') || ['2f', '5c', '2e'].some((hex) => segment.toLowerCase().includes(`%${hex}`)));
}

function startsWith(segments: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((segment, i) => segments[i] === segment);
}

/** Each invariant returns a complaint, or null when it holds. */
const INVARIANTS: { name: string; check: (c: Case, url: URL, decision: Decision | null, under: string[] | null) => string | null }[] = [
  {
    name: 'nothing is done outside baseUrl',
    check: (_c, _url, decision, under) => (under === null && decision !== null ? `decided ${JSON.stringify(decision)} outside the base` : null),
  },
  {
    name: 'never an order token on account paths',
    check: (_c, _url, decision, under) =>
      decision?.credential === 'orderToken' && under !== null && startsWith(under, ['api', 'v2', 'storefront', 'account']) ? 'an order token on an account path' : null,
  },
  {
    name: 'an order token only on cart and checkout paths',
    check: (_c, _url, decision, under) =>
      decision?.credential === 'orderToken' &&
      !(under !== null && (startsWith(under, ['api', 'v2', 'storefront', 'cart']) || startsWith(under, ['api', 'v2', 'storefront', 'checkout'])))
        ? 'an order token outside cart and checkout'
        : null,
  },
  {
    name: 'a bearer only when signed in',
    check: (c, _url, decision) => (decision?.credential === 'bearer' && !c.held.signedIn ? 'a bearer for a guest' : null),
  },
  {
    name: 'an order token only for a guest holding a cart',
    check: (c, _url, decision) => (decision?.credential === 'orderToken' && (!c.held.hasCart || c.held.signedIn) ? 'an order token without a cart, or for a signed-in user' : null),
  },
  {
    name: "the page's own header is never replaced",
    check: (c, _url, decision) =>
      (decision?.credential === 'bearer' && c.page.authorization) || (decision?.credential === 'orderToken' && c.page.orderToken)
        ? `adds ${decision.credential} over the page's own header`
        : null,
  },
  {
    name: 'a capture only on a POST to the cart or the token path, as Rails routes it',
    check: (c, _url, decision, under) => {
      if (decision === null || decision.capture === null) return null;
      // Rails squeezes runs of `/` and drops a trailing `/` before routing: empty segments are left out.
      const path = under === null ? null : `/${under.filter((segment) => segment !== '').join('/')}`;
      const tokenPath = resolveOptions({ preset: c.preset }, c.baseUrl).dialect.routePrefixes[3] as string;
      const expected = decision.capture === 'cart' ? '/api/v2/storefront/cart' : tokenPath;
      return c.method === 'POST' && path === expected ? null : `captures ${decision.capture} at ${path ?? 'a URL outside the base'}`;
    },
  },
  {
    name: 'nothing is done to a path a server may decode into another one (an encoded /, \\ or ., or a ; parameter)',
    check: (_c, _url, decision, under) => (under !== null && decodesElsewhere(under) && decision !== null ? `decided ${JSON.stringify(decision)} on an ambiguous path` : null),
  },
  {
    name: 'a signed-in user gets a bearer on every account, cart and checkout path unless the page set its own',
    check: (c, _url, decision, under) => {
      if (!c.held.signedIn || c.page.authorization || under === null || decodesElsewhere(under)) return null;
      const storefront = ['cart', 'checkout', 'account'].some((name) => startsWith(under, ['api', 'v2', 'storefront', name]));
      return storefront && decision?.credential !== 'bearer' ? `no bearer on a storefront path: ${JSON.stringify(decision)}` : null;
    },
  },
  {
    name: 'a query string or fragment never changes the decision',
    check: (c, url, decision) => {
      const bare = new URL(url.href);
      bare.search = '';
      bare.hash = '';
      const other = decide(bare, c.method, resolveOptions({ baseUrl: c.baseUrl, preset: c.preset }, 'https://site.example/sw.js'), c.held, c.page);
      return JSON.stringify(other) === JSON.stringify(decision) ? null : `${bare.href} gets ${JSON.stringify(other)}`;
    },
  },
];

describe(`request decision properties (seed ${SEED}, ${CASES} cases)`, () => {
  const random = prng(SEED);
  const cases = Array.from({ length: CASES }, () => randomCase(random));
  const counts = { underBase: 0, bearer: 0, orderToken: 0, capture: 0, untouched: 0 };

  for (const invariant of INVARIANTS) {
    it(invariant.name, () => {
      cases.forEach((c, index) => {
        let url: URL;
        try {
          url = new URL(c.url);
        } catch {
          return; // a look-alike spelling the URL parser refuses never reaches the worker
        }
        const options = resolveOptions({ baseUrl: c.baseUrl, preset: c.preset }, 'https://site.example/sw.js');
        const decision = decide(url, c.method, options, c.held, c.page);
        const complaint = invariant.check(c, url, decision, segmentsUnderBase(url, new URL(options.baseUrl)));
        if (complaint !== null) {
          assert.fail(`seed ${SEED}, case ${index}: ${complaint}\n  ${c.method} ${c.url} (parsed ${url.href})\n  base ${c.baseUrl}, preset ${c.preset}, held ${JSON.stringify(c.held)}, page ${JSON.stringify(c.page)}`);
        }
      });
    });
  }

  it('the generator reaches every outcome often enough to mean something', () => {
    for (const c of cases) {
      const url = URL.canParse(c.url) ? new URL(c.url) : null;
      if (url === null) continue;
      const options = resolveOptions({ baseUrl: c.baseUrl, preset: c.preset }, 'https://site.example/sw.js');
      const decision = decide(url, c.method, options, c.held, c.page);
      if (segmentsUnderBase(url, new URL(options.baseUrl)) !== null) counts.underBase++;
      if (decision === null) counts.untouched++;
      else if (decision.credential === 'bearer') counts.bearer++;
      else if (decision.credential === 'orderToken') counts.orderToken++;
      if (decision !== null && decision.capture !== null) counts.capture++;
    }
    for (const [outcome, count] of Object.entries(counts)) {
      assert.ok(count >= CASES / 200, `seed ${SEED}: only ${count} of ${CASES} cases were ${outcome}: ${JSON.stringify(counts)}`);
    }
  });
});
