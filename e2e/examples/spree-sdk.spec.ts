// examples/spree-sdk (docs/recipes.md, "The Spree SDK"): a Vite shop on the Spree SDK and its
// axios fetcher, with the bridge and the prebuilt worker copied to the web root, against the
// storefront answering as Spree does (X-Spree-Order-Token, /spree_oauth/token).
import { join } from 'node:path';
import { expect, requestsTo, test } from '../support.js';
import { buildAndDrive } from './coreFlow.js';
import { workDir } from './workspace.js';

test.use({ storefrontOptions: { flavour: 'spree', static: [{ prefix: '/', dir: join(workDir('spree-sdk'), 'dist') }] } });

test('a shop on the Spree SDK: guest cart, the SDK sign-in, account with the sealed bearer, logout', async ({ page, storefront }) => {
  await buildAndDrive('spree-sdk', page, storefront);
  // The sign-ins were the SDK's own JSON password grants: the wrong password's, then the right one's.
  const grants = requestsTo(storefront, 'POST', '/spree_oauth/token');
  expect(grants.map((grant) => grant.status)).toEqual([400, 200]);
  expect(JSON.parse(grants[1]?.body ?? '{}')).toMatchObject({ grant_type: 'password', username: storefront.user.username });
  await expect.poll(() => storefront.stats().revocations, { message: 'logout revokes the pair' }).toBeGreaterThan(0);
});
