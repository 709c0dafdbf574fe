// The production build's message for a redirect answering one of the worker's own requests names the
// setting to fix, as the debug build's does (docs/behaviour.md: "A message names the setting to fix, in
// the production build too"). The common cause is a baseUrl the server redirects (http:// to https://,
// the bare domain to www.).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { build } from 'esbuild';
import { opaqueRedirect } from './fakes.js';

/** outbound.ts as the production standalone worker has it (STOREFRONT_AUTH_DEBUG false, build.mjs). */
async function productionOutbound(): Promise<typeof import('../src/sw/outbound.js')> {
  const { outputFiles } = await build({
    entryPoints: [new URL('../src/sw/outbound.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    define: { STOREFRONT_AUTH_DEBUG: 'false' },
  });
  return import(`data:text/javascript;base64,${Buffer.from(outputFiles[0]!.text).toString('base64')}`);
}

describe('production messages of the one way out', () => {
  it('a redirect answering a login names the setting to check (baseUrl), in the production build too', async () => {
    const { sendOwn } = await productionOutbound();
    const grant = { method: 'POST' as const, path: '/store_oauth/token', label: '/store_oauth/token', headers: {}, body: new URLSearchParams({ grant_type: 'password', username: 'a@b.example', password: 'p/+"\\w' }) };
    const error = await sendOwn(async () => opaqueRedirect(), 'http://shop.example', grant, Date.now).then(
      () => assert.fail('a redirect was accepted'),
      (caught: Error & { code: string }) => caught,
    );
    assert.equal(error.code, 'bad_response');
    assert.match(error.message, /baseUrl/, `the production message: ${JSON.stringify(error.message)}`);
  });
});
