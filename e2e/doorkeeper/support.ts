/**
 * End-to-end fixtures against a real Doorkeeper: demo/doorkeeper, Doorkeeper 5.5 on Rails 6.1 from
 * Debian's packages, configured as Spree 4.x configures it. One server per Playwright worker,
 * started on first use (Rails takes seconds to boot) and stopped when the worker ends; each test
 * sets its access token lifetime and clears the request log first.
 *
 * Without Ruby and Doorkeeper the specs skip, saying how to install them, except under CI=true,
 * where they fail: CI installs the packages (.ci/run), so a missing Doorkeeper there is a fault.
 */
import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { openShop } from '../support.js';
import { LazyBench, missingDoorkeeper, RUBY_PACKAGES, type Doorkeeper } from './bench.js';

export type { BenchRequest, BenchStats, Doorkeeper, TokenPair } from './bench.js';
export { RUBY_PACKAGES } from './bench.js';
export { expectNoTokenWorks, getAccount, passwordGrant, postForm, refreshed, refreshGrant, revocationsAnswered, revoke, send, signIn, type Answer } from './atDoorkeeper.js';

/** The access token lifetime of a test that names none: Doorkeeper's default. */
const DEFAULT_LIFETIME_S = 7200;

/** Options of the `doorkeeper` fixture. */
export interface DoorkeeperOptions {
  /** Seconds; default 7200. */
  accessTokenLifetime?: number;
}

/** Whether this worker has said why it skips, once. */
let skipAnnounced = false;

export const test = base.extend<{ doorkeeperOptions: DoorkeeperOptions; doorkeeper: Doorkeeper }, { doorkeeperBench: LazyBench }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from its first parameter.
  doorkeeperBench: [async ({}, use) => {
    const bench = new LazyBench();
    await use(bench);
    await bench.stop();
  }, { scope: 'worker' }],
  doorkeeperOptions: [{}, { option: true }],
  doorkeeper: async ({ doorkeeperBench, doorkeeperOptions }, use, testInfo) => {
    const reason = missingDoorkeeper();
    if (reason !== null) {
      const install = `apt-get install ${RUBY_PACKAGES}`;
      if (process.env['CI']) throw new Error(`The Doorkeeper specs must run under CI, which installs Doorkeeper (.ci/run), but ${reason}. Install: ${install}`);
      const message = `Doorkeeper is not installed here (${reason}). To run these specs: ${install}`;
      if (!skipAnnounced) process.stderr.write(`Skipping the Doorkeeper specs: ${message}\n`);
      skipAnnounced = true;
      testInfo.skip(true, message);
    }
    const doorkeeper = await doorkeeperBench.get();
    await doorkeeper.setAccessTokenLifetime(doorkeeperOptions.accessTokenLifetime ?? DEFAULT_LIFETIME_S);
    await doorkeeper.clear();
    await use(doorkeeper);
    if (testInfo.status !== testInfo.expectedStatus && doorkeeper.stderr() !== '') {
      await testInfo.attach('doorkeeper-stderr', { body: doorkeeper.stderr(), contentType: 'text/plain' });
    }
  },
});

export { expect };

/** Opens a page of the test site on the bench's origin with the drop-in on the `spree` preset. */
export function openSpreeShop(context: BrowserContext, doorkeeper: Doorkeeper, path = '/site/blank.html'): Promise<Page> {
  return openShop(context, doorkeeper, { preset: 'spree' }, path);
}
