// The drop-in's globals: what dist/storefront-auth.js puts on `window` when a script tag runs it is
// exactly what dist/storefront-auth.d.ts declares, so the type import a TypeScript page uses
// (`import type {} from 'storefront-auth-sw/storefront-auth.js'`) neither misses a global the page can
// call nor promises one that is not there. The built script runs in a Node `vm` context standing
// in for a page without service workers; the declarations are read with the TypeScript compiler.
// A configuration error is logged naming the tag's attribute, as the site wrote it.
// Needs a built dist/ (`node build.mjs`). test/package.test.ts type-checks a page script using them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import ts from 'typescript';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

/** The names `declare global` declares in the drop-in's declarations. */
function declaredGlobals(): string[] {
  const file = `${DIST}types/page/dropin.d.ts`;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isModuleDeclaration(node) && node.name.getText() === 'global' && node.body !== undefined && ts.isModuleBlock(node.body)) {
      for (const statement of node.body.statements) {
        if (ts.isVariableStatement(statement)) names.push(...statement.declarationList.declarations.map((declaration) => declaration.name.getText()));
        // Members of `interface Window` are reached only as `window.…`: a bare name would not type-check.
        if (ts.isInterfaceDeclaration(statement)) assert.notEqual(statement.name.text, 'Window', 'a global declared on Window alone cannot be called by its bare name');
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names.sort();
}

/** The globals the built drop-in adds when it runs as a classic script in a page without service workers. */
function globalsTheDropInSets(): { names: string[]; context: vm.Context } {
  const errors: unknown[] = [];
  const context = vm.createContext({ document: { currentScript: { dataset: {} } }, console: { error: (...args: unknown[]) => errors.push(args), warn: () => {} }, EventTarget, CustomEvent, URL, setTimeout, clearTimeout });
  vm.runInContext('globalThis.window = globalThis;', context);
  const before = new Set(Object.keys(context));
  vm.runInContext(readFileSync(`${DIST}storefront-auth.js`, 'utf8'), context, { filename: 'storefront-auth.js' });
  assert.deepEqual(errors, [], 'the drop-in logged a configuration error');
  return { names: Object.keys(context).filter((name) => !before.has(name)).sort(), context };
}

describe("the drop-in's globals", () => {
  it('are declared, each as a global variable, exactly as the built script sets them', async () => {
    const { names, context } = globalsTheDropInSets();
    assert.deepEqual(names, ['StorefrontAuth', 'StorefrontAuthError', 'isStorefrontAuthError', 'storefrontAuth']);
    assert.deepEqual(declaredGlobals(), names);
    // Without service workers the instance's `ready` rejects, as every method does.
    const outcome = await (vm.runInContext('storefrontAuth.ready.then(() => "resolved", (error) => isStorefrontAuthError(error) && error instanceof StorefrontAuthError ? error.code : String(error))', context) as Promise<string>);
    assert.equal(outcome, 'no_service_worker');
  });
});

/** What the built drop-in does when its tag carries `dataset`, in a page that has service workers: what it logs with `console.error`, the worker URLs it registers and how `ready` settles. */
async function runWith(dataset: Record<string, string>): Promise<{ errors: string[]; registered: string[]; outcome: string }> {
  const errors: string[] = [];
  const registered: string[] = [];
  const serviceWorker = Object.assign(new EventTarget(), { controller: null, startMessages: () => {}, register: (url: string) => (registered.push(url), Promise.reject(new Error('not in Node'))) });
  const context = vm.createContext({
    document: { currentScript: { dataset } },
    location: { href: 'https://shop.example/' },
    navigator: { serviceWorker },
    isSecureContext: true,
    console: { error: (...args: unknown[]) => errors.push(args.join(' ')), warn: () => {} },
    EventTarget,
    CustomEvent,
    URL,
    setTimeout,
    clearTimeout,
    addEventListener: () => {},
  });
  vm.runInContext('globalThis.window = globalThis;', context);
  vm.runInContext(readFileSync(`${DIST}storefront-auth.js`, 'utf8'), context, { filename: 'storefront-auth.js' });
  const outcome = await (vm.runInContext('storefrontAuth.ready.then(() => "resolved", (error) => error.code)', context) as Promise<string>);
  await new Promise((resolve) => setImmediate(resolve));
  return { errors, registered, outcome };
}

describe("the drop-in's configuration errors", () => {
  it('are logged naming the attribute the site wrote, not the bridge option behind it', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ baseUrl: 'api.shop.example' }, 'storefront-auth: data-base-url "api.shop.example" is not an http:// or https:// URL'],
      [{ preset: 'Spree' }, 'storefront-auth: data-preset "Spree" is unknown'],
      [{ preset: 'spree-v3', publishableKey: '%VITE_SPREE_PUBLISHABLE_KEY%' }, 'storefront-auth: data-publishable-key "%VITE_SPREE_PUBLISHABLE_KEY%" is not a key'],
      [{ sw: '//' }, 'storefront-auth: data-sw "//" is not a URL.'],
    ];
    for (const [dataset, start] of cases) {
      const { errors } = await runWith(dataset);
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.ok(errors[0]?.startsWith(start), errors[0]);
    }
  });

  // An unset template or environment value leaves the attribute empty: taken for absent, an empty
  // data-base-url would register the worker for the page's origin, and no call to the API would carry a credential.
  it('include an attribute present but empty, refused as the bridge refuses the empty option, before anything is registered', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ baseUrl: '' }, 'storefront-auth: data-base-url "" is not an http:// or https:// URL'],
      [{ preset: '' }, 'storefront-auth: data-preset "" is unknown'],
      [{ preset: 'spree-v3', publishableKey: '' }, 'storefront-auth: data-preset "spree-v3" needs publishableKey'],
      [{ sw: '' }, 'storefront-auth: data-sw "" is not a URL.'],
      [{ scope: '' }, 'storefront-auth: data-scope "" is not a path.'],
    ];
    for (const [dataset, start] of cases) {
      const { errors, registered, outcome } = await runWith(dataset);
      assert.equal(outcome, 'invalid_request', JSON.stringify(dataset));
      assert.deepEqual(registered, [], JSON.stringify(dataset));
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.ok(errors[0]?.startsWith(start), errors[0]);
    }
  });

  it('leave absent attributes at their defaults, and the attributes that mean "on" by being there on when empty', async () => {
    const absent = await runWith({});
    assert.deepEqual(absent.errors, []);
    assert.equal(absent.registered[0], 'https://shop.example/storefront-auth-sw.js?base=https%3A%2F%2Fshop.example&preset=store');
    // A key is read only where the preset needs one: empty, it is no key, as the bridge's `publishableKey: ''` is.
    const on = await runWith({ publishableKey: '', debug: '', offlineWrites: '', sealTokens: '' });
    assert.deepEqual(on.errors, []);
    assert.equal(on.registered[0], 'https://shop.example/storefront-auth-sw.js?base=https%3A%2F%2Fshop.example&preset=store&debug=1&offline=1');
  });
});
