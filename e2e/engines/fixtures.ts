/**
 * Fixtures of the cross-engine suite: support.ts's storefront per test, plus the engine to run in
 * (each launched once per Playwright worker, closed with it), a session of it per test, and a
 * `Shop` over that session. `inEveryEngine` declares a flow once, as one test per engine.
 *
 * An engine whose browser is not installed is skipped with a message naming what to install;
 * under CI=true it fails instead, so CI never passes without all three.
 */
import { test as storefrontTest, expect, type StorefrontOptions } from '../support.js';
import { ENGINES, type Engine, type EngineName, type Session } from './driver.js';
import { EngineMissing, launchEngine } from './launchEngine.js';
import { Shop } from './shop.js';

export { expect };

/** The engines this worker launched, each once, on first use. */
class Engines {
  readonly #launched = new Map<EngineName, Promise<Engine>>();

  get(name: EngineName): Promise<Engine> {
    let engine = this.#launched.get(name);
    if (engine === undefined) {
      engine = launchEngine(name);
      this.#launched.set(name, engine);
    }
    return engine;
  }

  async closeAll(): Promise<void> {
    const launched = await Promise.allSettled(this.#launched.values());
    await Promise.all(launched.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)));
  }
}

const CLOSE_MS = 10_000;

export const test = storefrontTest.extend<{ engineName: EngineName; session: Session; shop: Shop }, { engines: Engines }>({
  engineName: ['chromium', { option: true }],
  engines: [
    async ({}, use) => {
      const engines = new Engines();
      await use(engines);
      await engines.closeAll();
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  session: async ({ engines, engineName }, use, testInfo) => {
    let engine: Engine;
    try {
      engine = await engines.get(engineName);
    } catch (error) {
      if (error instanceof EngineMissing && !process.env['CI']) testInfo.skip(true, `${error.message}: skipped (under CI=true this fails)`);
      testInfo.annotations.push({ type: 'engine', description: error instanceof EngineMissing ? `${error.message}, and CI=true needs every engine` : `failed to launch: ${String(error)}` });
      throw error;
    }
    testInfo.annotations.push({ type: 'engine', description: `${engine.version}, via ${engine.via}` });
    const session = await engine.newSession();
    testInfo.annotations.push({ type: 'worker stop', description: session.workerStop });
    await use(session);
    // After a failure the worker is replaced and its browsers closed anyway: do not wait on a stuck tab.
    const closed = session.close();
    if (testInfo.status === testInfo.expectedStatus) await closed;
    else await Promise.race([closed.catch(() => {}), new Promise((resolve) => setTimeout(resolve, CLOSE_MS))]);
  },
  shop: async ({ session, storefront }, use, testInfo) => {
    const shop = new Shop(session, storefront);
    await use(shop);
    if (testInfo.status === testInfo.expectedStatus) expect(await shop.pageErrors(), 'errors in the pages').toEqual([]);
  },
});

/**
 * Limits above any flow's needs. Spree allows 5 logins and 10 refreshes a minute per IP, and every
 * request here comes from 127.0.0.1; a flow that met one would test the limit, not its subject.
 */
const RAISED_RATE_LIMITS: NonNullable<StorefrontOptions['rateLimits']> = { login: 1000, refresh: 1000, logout: 1000, register: 1000, passwordReset: 1000 };

/**
 * The storefront options of a flow against the reference storefront's spree-v3 flavour (Spree 5's
 * Store API), rate limits raised: `test.use({ storefrontOptions: spreeV3Storefront({ accessTokenLifetime: 4 }) })`.
 */
export function spreeV3Storefront(options: StorefrontOptions = {}): StorefrontOptions {
  return { ...options, flavour: 'spree-v3', rateLimits: { ...RAISED_RATE_LIMITS, ...options.rateLimits } };
}

/**
 * Runs `declare` (which declares a flow's `test`) once per engine, each time in a `describe` named
 * after the engine, so the flow is written once and reported per engine at its own line.
 */
export function inEveryEngine(declare: () => void): void {
  for (const { name, label } of ENGINES) {
    test.describe(label, () => {
      test.use({ engineName: name });
      declare();
    });
  }
}
