// Self-test of the busy-port message: node --test demo/storefront/startFailure.selftest.mjs
// A port is held by a plain server, then the storefront CLI and the demo are started on it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { otherPort, startFailureMessage } from './startFailure.mjs';

const cli = fileURLToPath(new URL('cli.mjs', import.meta.url));
const serve = fileURLToPath(new URL('../serve.mjs', import.meta.url));
const demoBuilt = existsSync(fileURLToPath(new URL('../build/sw.js', import.meta.url)));

/** Runs `node script args` with `env`; resolves with its exit code and output (never rejects). */
function run(script, args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { env: { ...process.env, ...env }, timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : error.code, stdout, stderr }),
    );
  });
}

describe('a port already in use', () => {
  /** @type {net.Server} */
  let holder;
  let port = 0;
  before(async () => {
    holder = net.createServer();
    await new Promise((resolve) => holder.listen(0, '127.0.0.1', () => resolve(undefined)));
    port = /** @type {net.AddressInfo} */ (holder.address()).port;
  });
  after(() => new Promise((resolve) => holder.close(resolve)));

  test('the storefront CLI says so, names a PORT to use instead and exits 1', async () => {
    const { code, stdout, stderr } = await run(cli, ['--port', String(port)]);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, new RegExp(`^Port ${port} is already in use`));
    assert.match(stderr, new RegExp(`PORT=${otherPort(port)} npm run storefront`));
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  });

  test('npm run demo (demo/serve.mjs) says so, names a PORT to use instead and exits 1', { skip: demoBuilt ? false : 'demo/build/ is missing: run `npm run build` first' }, async () => {
    const { code, stdout, stderr } = await run(serve, [], { PORT: String(port) });
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, new RegExp(`^Port ${port} is already in use`));
    assert.match(stderr, new RegExp(`PORT=${otherPort(port)} npm run demo`));
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  });
});

describe('startFailureMessage', () => {
  const retry = (/** @type {number} */ port) => `PORT=${port} npm run demo`;
  test("suggests the next port that neither demo listens on: 8787 busy is never answered with demo:v3's 8788", () => {
    const busy = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    assert.match(startFailureMessage(busy, 8787, retry), /^Port 8787 is already in use.*\n {2}PORT=8789 npm run demo$/s);
    assert.match(startFailureMessage(busy, 8788, (port) => `PORT=${port} npm run demo:v3`), /\n {2}PORT=8789 npm run demo:v3$/);
    assert.match(startFailureMessage(busy, 8786, retry), /PORT=8789 npm run demo$/);
    assert.match(startFailureMessage(busy, 8789, retry), /PORT=8790 npm run demo$/);
    assert.match(startFailureMessage(busy, 65535, retry), /PORT=8789 npm run demo$/);
  });
  test('a port that needs privileges, and any other error with its message', () => {
    assert.match(startFailureMessage(Object.assign(new Error('listen EACCES'), { code: 'EACCES' }), 80, retry), /^Port 80 needs privileges.*PORT=81 npm run demo$/s);
    assert.equal(startFailureMessage(new Error('getaddrinfo ENOTFOUND nowhere'), 8787, retry), 'Could not start the storefront: getaddrinfo ENOTFOUND nowhere');
  });
});
