/**
 * Sealing changes nothing the server sees. The same requests (guest and
 * signed in; order-token and bearer headers, a `guest_order_token` query, grant bodies, a refresh,
 * the revocation) are sent from a sealed page, which sends back the placeholders it read, and from
 * an unsealed page (`data-seal-tokens="false"`), which sends back the real values it read. Each runs
 * against its own fresh reference storefront; the two request logs are compared value for value
 * (method, path, query, credential headers, content type, body), with each secret written as the
 * label of its first appearance (`<1>`, `<2>`…), since the two servers issue different tokens.
 *
 * The one difference the contract allows: a page's own sealed refresh grant is answered from the
 * worker's single refresh, so that request is compared by its grant (`grant_type`, `refresh_token`),
 * not by its content type, body spelling or Idempotency-Key.
 *
 * On 947a503 this fails at the signed-in cart call that sends `X-Store-Order-Token: sealed:cart`:
 * the sealed page's request reached the server with that header deleted, the unsealed page's with
 * the real token (and, for `spree`, at the revocation: `token=sealed:access` went out as it was).
 */
import type { Browser, Page } from '@playwright/test';
// @ts-expect-error: the reference storefront is plain JavaScript without declarations.
import { startStorefront } from '../demo/storefront/server.mjs';
import { DEFAULT_MOUNTS, expect, issuedTokens, openShop, realCartToken, test, waitForExpiry, type LoggedRequest, type Storefront, type StorefrontOptions } from './support.js';
import { V3, V3_KEY, V3_STOREFRONT, v3CartToken, v3Secrets } from './storeApiV3.js';

test.describe.configure({ timeout: 150_000 });

type Flavour = 'store' | 'spree' | 'spree-v3';
const LIFETIME = 8; // seconds: long enough for the signed-in calls, short enough to wait for a due refresh

/** One page request; the JSON answer parsed when it is JSON. */
async function call(page: Page, method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; json: any }> {
  return page.evaluate(
    async ({ method, url, headers, body }) => {
      const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await response.text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // Not JSON (a 204).
      }
      return { status: response.status, json };
    },
    { method, url, headers, body },
  );
}

const signedIn = (page: Page) => page.evaluate(() => window.storefrontAuth.getState().then((state) => state.signedIn));
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const JSON_BODY = { 'Content-Type': 'application/json' };

/** The store and spree presets: storefront API v2 and its OAuth paths. */
async function v2Scenario(page: Page, sf: Storefront, flavour: 'store' | 'spree'): Promise<void> {
  const api = '/api/v2/storefront';
  const orderHeader = flavour === 'spree' ? 'X-Spree-Order-Token' : 'X-Store-Order-Token';
  const tokenPath = `/${flavour}_oauth/token`;

  // A guest: the page creates its cart and sends back the token it read, as header and as query.
  const created = await call(page, 'POST', `${api}/cart?fields%5Bcart%5D=number,token`, JSON_BODY);
  expect(created.status).toBe(201);
  const cart: string = created.json.data.attributes.token;
  const number: string = created.json.data.attributes.number;
  expect((await call(page, 'GET', `${api}/cart`, { [orderHeader]: cart })).status).toBe(200);
  expect((await call(page, 'POST', `${api}/cart/add_item`, { [orderHeader]: cart, ...JSON_BODY }, JSON.stringify({ variant_id: '1', quantity: 2 }))).status).toBe(200);
  expect((await call(page, 'GET', `${api}/cart?guest_order_token=${encodeURIComponent(cart)}&fields%5Bcart%5D=a+b&include=line_items`)).status).toBe(200);
  expect((await call(page, 'GET', `${api}/checkout`, { [orderHeader]: cart })).status).toBe(200);

  // Its own password grant, form-encoded; the worker keeps the pair and assigns the guest cart.
  const granted = await call(page, 'POST', tokenPath, FORM, new URLSearchParams({ grant_type: 'password', ...sf.user }).toString());
  expect(granted.status).toBe(200);
  let access: string = granted.json.access_token;
  let refresh: string = granted.json.refresh_token;
  await expect.poll(() => signedIn(page)).toBe(true);
  await expect.poll(() => sf.requests.filter((request) => request.path === `${api}/cart/associate`).length).toBe(1);

  // Signed in: the page's bearer; its order-token header alone (the worker adds the bearer); both.
  expect((await call(page, 'GET', `${api}/account`, { Authorization: `Bearer ${access}` })).status).toBe(200);
  expect((await call(page, 'GET', `${api}/cart`, { [orderHeader]: cart })).status).toBe(200);
  const seen = sf.requests.at(-1)!;
  expect([seen.headers.authorization?.startsWith('Bearer sealed:'), seen.headers.orderToken], 'a signed-in cart call gets the real bearer and the real order token').toEqual([false, realCartToken(sf, number)]);
  expect(seen.headers.authorization).toMatch(/^Bearer \S+$/);
  expect((await call(page, 'GET', `${api}/cart`, { Authorization: `Bearer ${access}`, [orderHeader]: cart })).status).toBe(200);
  expect((await call(page, 'PATCH', `${api}/checkout`, { Authorization: `Bearer ${access}`, ...JSON_BODY }, JSON.stringify({ order: { email: 'shopper@example.com' } }))).status).toBe(200);
  expect((await call(page, 'GET', `${api}/account/orders?guest_order_token=${encodeURIComponent(cart)}`)).status).toBe(200);

  // Its own refresh grant, JSON, once the pair is due.
  await waitForExpiry(page);
  const refreshed = await call(page, 'POST', tokenPath, JSON_BODY, JSON.stringify({ grant_type: 'refresh_token', refresh_token: refresh }));
  expect(refreshed.status).toBe(200);
  access = refreshed.json.access_token;
  refresh = refreshed.json.refresh_token;
  expect((await call(page, 'GET', `${api}/account`, { Authorization: `Bearer ${access}` })).status).toBe(200);

  // Its own revocation, where the preset has one.
  if (flavour === 'spree') {
    expect((await call(page, 'POST', '/spree_oauth/revoke', FORM, `token=${encodeURIComponent(access)}`)).status).toBe(200);
    await page.waitForTimeout(500); // any revocation the worker adds
  }
}

/** The spree-v3 preset: the Store API. */
async function v3Scenario(page: Page, sf: Storefront): Promise<void> {
  const key = { 'X-Spree-Api-Key': V3_KEY };
  const json = { ...key, ...JSON_BODY };
  const created = await call(page, 'POST', `${V3}/carts`, json, '{}');
  expect(created.status).toBe(201);
  const { id, token: cart, number } = created.json as { id: string; token: string; number: string };
  const products = await call(page, 'GET', `${V3}/products`, key);
  const variant: string = products.json.data[0].default_variant.id;
  expect((await call(page, 'GET', `${V3}/carts/${id}?fields=a+b`, { ...key, 'x-spree-token': cart })).status).toBe(200);
  expect((await call(page, 'POST', `${V3}/carts/${id}/items`, { ...json, 'x-spree-token': cart }, JSON.stringify({ variant_id: variant, quantity: 2 }))).status).toBe(201);

  const loggedIn = await call(page, 'POST', `${V3}/auth/login`, json, JSON.stringify({ email: sf.user.username, password: sf.user.password }));
  expect(loggedIn.status).toBe(200);
  let access: string = loggedIn.json.token;
  let refresh: string = loggedIn.json.refresh_token;
  await expect.poll(() => signedIn(page)).toBe(true);
  await expect.poll(() => sf.requests.filter((request) => request.path === `${V3}/carts/${id}/associate`).length).toBe(1);

  expect((await call(page, 'GET', `${V3}/customers/me`, { ...key, Authorization: `Bearer ${access}` })).status).toBe(200);
  expect((await call(page, 'GET', `${V3}/carts/${id}`, { ...key, 'x-spree-token': cart })).status).toBe(200);
  const seen = sf.requests.at(-1)!;
  expect(seen.headers.orderToken, 'a signed-in cart call gets the real cart token').toBe(v3CartToken(sf, number));
  expect(seen.headers.authorization).toMatch(/^Bearer (?!sealed:)\S+$/);
  expect((await call(page, 'GET', `${V3}/carts/${id}`, { ...key, Authorization: `Bearer ${access}`, 'x-spree-token': cart })).status).toBe(200);
  expect((await call(page, 'GET', `${V3}/customers/me/orders`, key)).status).toBe(200);

  await waitForExpiry(page, 1_100); // the JWT's exp is in whole seconds
  const refreshed = await call(page, 'POST', `${V3}/auth/refresh`, json, JSON.stringify({ refresh_token: refresh }));
  expect(refreshed.status).toBe(200);
  access = refreshed.json.token;
  refresh = refreshed.json.refresh_token;
  expect((await call(page, 'GET', `${V3}/customers/me`, { ...key, Authorization: `Bearer ${access}` })).status).toBe(200);
  expect((await call(page, 'POST', `${V3}/auth/logout`, json, JSON.stringify({ refresh_token: refresh }))).status).toBe(204);
  await page.waitForTimeout(500);
}

/** A grant body's parameters, form or JSON, sorted. */
function grantOf(body: string | undefined): string {
  let params: Record<string, unknown> = {};
  try {
    params = JSON.parse(body ?? '');
  } catch {
    params = Object.fromEntries(new URLSearchParams(body ?? ''));
  }
  return ['grant_type', 'refresh_token'].map((name) => `${name}=${String(params[name] ?? '')}`).join('&');
}

/** What the server saw, one line per API or OAuth request, each secret as the label of its first appearance. */
function canonicalLog(sf: Storefront, secrets: string[]): string[] {
  const isRefresh = (request: LoggedRequest) =>
    (/_oauth\/token$/.test(request.path) && grantOf(request.body).startsWith('grant_type=refresh_token')) || request.path === `${V3}/auth/refresh`;
  const lines = sf.requests
    .filter((request) => request.method !== 'OPTIONS' && (request.path.startsWith('/api/') || /_oauth\//.test(request.path)))
    .map((request) => {
      const { authorization, orderToken, apiKey, contentType } = request.headers;
      const head = `${request.method} ${request.path}${request.search} auth=${authorization ?? '-'} order=${orderToken ?? '-'} key=${apiKey ?? '-'}`;
      // The contract's one exception: a page's own sealed refresh is answered from the worker's refresh.
      if (isRefresh(request)) return `${head} refresh: ${request.path === `${V3}/auth/refresh` ? `refresh_token=${request.refreshToken}` : grantOf(request.body)}`;
      return `${head} type=${contentType ?? '-'} body=${request.body ?? '-'}`;
    });
  const text = lines.join('\n');
  const ordered = [...new Set(secrets)].filter((secret) => secret.length >= 8 && text.includes(secret)).sort((a, b) => text.indexOf(a) - text.indexOf(b));
  return lines.map((line) => ordered.reduce((out, secret, index) => out.split(secret).join(`<${index + 1}>`).split(encodeURIComponent(secret)).join(`<${index + 1}>`), line));
}

async function run(browser: Browser, flavour: Flavour, sealed: boolean): Promise<string[]> {
  const options: StorefrontOptions = flavour === 'spree-v3' ? { ...V3_STOREFRONT, accessTokenLifetime: LIFETIME } : { flavour, accessTokenLifetime: LIFETIME };
  const sf = (await startStorefront({ port: 0, static: DEFAULT_MOUNTS, ...options })) as Storefront;
  const context = await browser.newContext();
  try {
    const preset = flavour === 'spree-v3' ? { preset: 'spree-v3', publishableKey: V3_KEY } : { preset: flavour };
    const page = await openShop(context, sf, { ...preset, ...(sealed ? {} : { sealTokens: 'false' }) });
    if (flavour === 'spree-v3') await v3Scenario(page, sf);
    else await v2Scenario(page, sf, flavour);
    const log = canonicalLog(sf, flavour === 'spree-v3' ? v3Secrets(sf) : issuedTokens(sf));
    expect(log.some((line) => /sealed(:|%3A)/i.test(line)), `${sealed ? 'sealed' : 'unsealed'}: no placeholder reached the server\n${log.join('\n')}`).toBe(false);
    return log;
  } finally {
    await context.close();
    await sf.close();
  }
}

for (const flavour of ['store', 'spree', 'spree-v3'] as const) {
  test(`${flavour}: a sealed page's requests reach the server as an unsealed page's do`, async ({ browser }) => {
    const sealedLog = await run(browser, flavour, true);
    const unsealedLog = await run(browser, flavour, false);
    expect(sealedLog.length).toBeGreaterThan(10);
    expect(sealedLog.join('\n')).toBe(unsealedLog.join('\n'));
  });
}
