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
  const context = vm.createContext({ document: { currentScript: null }, console: { error: (...args: unknown[]) => errors.push(args), warn: () => {} }, EventTarget, CustomEvent, URL, setTimeout, clearTimeout });
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

/** What the built drop-in logs with `console.error` when its tag carries `dataset`, in a page that has service workers. */
async function loggedFor(dataset: Record<string, string>): Promise<string[]> {
  const errors: string[] = [];
  const serviceWorker = Object.assign(new EventTarget(), { controller: null, startMessages: () => {}, register: () => Promise.reject(new Error('not in Node')) });
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
  await (vm.runInContext('storefrontAuth.ready.catch(() => {})', context) as Promise<void>);
  await new Promise((resolve) => setImmediate(resolve));
  return errors;
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
      const errors = await loggedFor(dataset);
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.ok(errors[0]?.startsWith(start), errors[0]);
    }
  });
});
