// examples/spree-sdk (README, Way 3 and "With the Spree SDK"): a Vite shop on the Spree SDK and its
// axios fetcher, with the bridge and the prebuilt worker copied to the web root, against the
// storefront answering as Spree does (X-Spree-Order-Token, /spree_oauth/token).
import { join } from 'node:path';
import { expect, requestsTo, test } from '../support.js';
import { driveCoreFlow } from './coreFlow.js';
import { build, seconds, workDir } from './workspace.js';

test.use({ storefrontOptions: { flavour: 'spree', static: [{ prefix: '/', dir: join(workDir('spree-sdk'), 'dist') }] } });

test('a shop on the Spree SDK: guest cart, the SDK sign-in, account with the sealed bearer, logout', async ({ page, storefront }) => {
  const start = performance.now();
  await build('spree-sdk', storefront.url);
  const built = performance.now();
  await driveCoreFlow(page, `${storefront.url}/`, storefront);
  // The sign-in was the SDK's own JSON password grant, which the worker answered with placeholders.
  const [grant, ...more] = requestsTo(storefront, 'POST', '/spree_oauth/token');
  expect(more).toHaveLength(0);
  expect(JSON.parse(grant?.body ?? '{}')).toMatchObject({ grant_type: 'password', username: storefront.user.username });
  await expect.poll(() => storefront.stats().revocations, { message: 'logout revokes the pair' }).toBeGreaterThan(0);
  console.log(`[examples] spree-sdk: typecheck + vite build ${seconds(start)}, flow ${seconds(built)}`);
});
