// The standalone worker reads its settings from its own URL (`?base=…&preset=…&key=…`:
// src/sw/standalone.ts, options.ts). A setting it refuses stops the script as it starts, and the
// error names the setting as the site wrote it there, `base` or `key`, not the ES module's option
// (`baseUrl`, `publishableKey`), which a site registering the worker by its URL never wrote
// (docs/behaviour.md, "Configuration"). The worker runs here as its script does, against a `self`
// that has only its URL: every refusal comes before anything else is touched. The production build,
// whose messages are short, is run too, from dist/ (run after `npm run build`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { isStorefrontAuthError } from '../src/shared/errors.js';

const WORKER = 'https://shop.example/storefront-auth-sw.js';
let runs = 0;

/** The message the standalone worker's script throws as it starts with `query` in its URL. */
async function refusal(query: string): Promise<string> {
  (globalThis as { self?: unknown }).self = { location: new URL(`${WORKER}${query}`) };
  try {
    // A new module instance per run: the script runs once per import.
    await import(`../src/sw/standalone.ts?run=${++runs}`);
  } catch (error) {
    assert.ok(isStorefrontAuthError(error), String(error));
    assert.equal(error.code, 'invalid_request');
    return error.message;
  } finally {
    delete (globalThis as { self?: unknown }).self;
  }
  assert.fail(`${query} was accepted`);
}

describe("the standalone worker's refusals name its URL's parameters", () => {
  it('a base without its scheme: base, not baseUrl', async () => {
    assert.equal(await refusal('?base=127.0.0.1%3A8790'), `storefront-auth: base "127.0.0.1:8790" is not an http:// or https:// URL (nor a path from the site's root, "/…").`);
  });

  it('a key left as a placeholder: key, not publishableKey', async () => {
    const message = await refusal('?preset=spree-v3&key=%25VITE_SPREE_PUBLISHABLE_KEY%25');
    assert.ok(message.startsWith('storefront-auth: key "%VITE_SPREE_PUBLISHABLE_KEY%" is not a key'), message);
  });

  it('an unknown preset: preset, as the parameter is spelled too', async () => {
    assert.match(await refusal('?preset=shopify'), /^storefront-auth: preset "shopify" is unknown/);
  });

  it('spree-v3 without a key names the key parameter', async () => {
    assert.match(await refusal('?preset=spree-v3'), /"key" in the worker's URL/);
  });
});

describe('the production build names them too', () => {
  const script = readFileSync(new URL('../dist/storefront-auth-sw.js', import.meta.url), 'utf8');

  /** The message the built script throws as it starts with `query` in its URL. */
  function builtRefusal(query: string): string {
    try {
      // A classic script: its only reference to the worker is the global `self`.
      new Function('self', script)({ location: new URL(`${WORKER}${query}`) });
    } catch (error) {
      assert.ok(isStorefrontAuthError(error), String(error));
      assert.equal(error.code, 'invalid_request');
      return error.message;
    }
    assert.fail(`${query} was accepted`);
  }

  it('base, key, and the short message of spree-v3 without a key', () => {
    assert.match(builtRefusal('?base=127.0.0.1%3A8790'), /^storefront-auth: base "127\.0\.0\.1:8790" is not an http/);
    assert.match(builtRefusal('?preset=spree-v3&key=pk_a%20b'), /^storefront-auth: key "pk_a b" is not a key/);
    assert.equal(builtRefusal('?preset=spree-v3'), 'storefront-auth: key');
  });
});
