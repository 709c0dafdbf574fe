// The two builds of the standalone worker (src/shared/debugBuild.ts): the production file carries no
// log line and no long message, the debug file beside it carries both, and both carry every error
// code, since users match on codes and those never change. Run after `npm run build`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const read = (file: string): string => readFileSync(new URL(`../dist/${file}`, import.meta.url), 'utf8');

/** Text only the debug build has: log lines and long messages, from several modules. */
const DEBUG_ONLY = [
  '[storefront-auth] ',
  'refresh: sending the refresh grant',
  'capture: kept the pair from a token response',
  'Wrong username or password; ask the shopper to try again.',
  'could not be reached (offline, or refused by CORS)',
  'load the bridge and the worker from one release',
];
const CODES = ['invalid_grant', 'invalid_request', 'network_error', 'bad_response', 'storage_unavailable'];

describe('the standalone worker builds', () => {
  const production = read('storefront-auth-sw.js');
  const debug = read('storefront-auth-sw.debug.js');

  it('leaves the log lines and long messages out of the production build', () => {
    for (const text of DEBUG_ONLY) assert.ok(!production.includes(text), `dist/storefront-auth-sw.js contains ${JSON.stringify(text)}`);
  });

  it('keeps them in the debug build, which the production build loads for debug=1', () => {
    for (const text of DEBUG_ONLY) assert.ok(debug.includes(text), `dist/storefront-auth-sw.debug.js lacks ${JSON.stringify(text)}`);
    assert.ok(production.includes('storefront-auth-sw.debug.js'), 'the production build does not name its debug build');
  });

  it('keeps every error code in both', () => {
    for (const code of CODES) {
      assert.ok(production.includes(`"${code}"`), `production lacks ${code}`);
      assert.ok(debug.includes(`"${code}"`), `debug lacks ${code}`);
    }
  });
});
