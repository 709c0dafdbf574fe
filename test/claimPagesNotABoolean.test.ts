// installStorefrontAuth's on/off option `claimPages`, given as anything but true or false (a value
// read from an environment variable: `claimPages: 'true'`), is quietly read as off: the worker never
// claims a hard-reloaded page, and the page's register({ registerWorker: false }) rejects
// no_service_worker, saying "see claimPages: true", which the app believes it wrote. The settings fix
// of this session refuses sealTokens, offlineWrites, debug and registerWorker given so, as
// invalid_request naming the option (docs/behaviour.md, "Configuration"); claimPages was left out.
import assert from 'node:assert/strict';
import { afterEach, it } from 'node:test';
const hadSelf = Object.getOwnPropertyDescriptor(globalThis, 'self');
// Workbox, imported with the module, writes to `self` as it loads.
Object.defineProperty(globalThis, 'self', { value: { location: { href: 'https://shop.example/sw.js' } }, configurable: true, writable: true });
const { installStorefrontAuth } = await import('../src/sw/installStorefrontAuth.js');
afterEach(() => {
  if (hadSelf) Object.defineProperty(globalThis, 'self', hadSelf);
  else delete (globalThis as { self?: unknown }).self;
});

/** A worker scope whose first use past the options says the worker started. */
function standInScope(): void {
  const started = (): never => {
    throw new Error('STARTED: the worker started with these options');
  };
  const scope = new Proxy({ location: { href: 'https://shop.example/sw.js' } } as Record<string | symbol, unknown>, {
    get: (target, name) => (name in target ? target[name] : started()),
  });
  Object.defineProperty(globalThis, 'self', { value: scope, configurable: true, writable: true });
}

for (const value of ['true', 1, 'false'] as const) {
  it(`claimPages: ${JSON.stringify(value)} is invalid_request naming claimPages, as sealTokens: ${JSON.stringify(value)} is`, () => {
    standInScope();
    const router = { registerRoute: () => {} };
    // The same value for sealTokens is refused before anything starts:
    assert.throws(() => installStorefrontAuth({ router: router as never, sealTokens: value as never }), (e: Error & { code?: string }) => e.code === 'invalid_request' && e.message.includes('sealTokens'));
    assert.throws(
      () => installStorefrontAuth({ router: router as never, claimPages: value as never }),
      (e: Error & { code?: string }) => {
        assert.equal(e.name, 'StorefrontAuthError', `not refused: ${e.message}`);
        return e.code === 'invalid_request' && e.message.includes('claimPages');
      },
    );
  });
}
