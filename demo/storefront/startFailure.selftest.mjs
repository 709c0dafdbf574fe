// Self-test of the busy-port message: node --test demo/storefront/startFailure.selftest.mjs
// A port is held by a plain server, then the storefront CLI and the demo are started on it: the port
// each suggests is another one, and free. The choice of that port is tested as pure logic below,
// with `isFree` handed in.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { canListen, otherPort, startFailureMessage } from './startFailure.mjs';

const cli = fileURLToPath(new URL('cli.mjs', import.meta.url));
const serve = fileURLToPath(new URL('../serve.mjs', import.meta.url));
const demoBuilt = existsSync(fileURLToPath(new URL('../build/sw.js', import.meta.url)));

/** The port that `stderr`'s `PORT=… npm run …` suggests, checked to be another than `busy` and free now. */
async function suggested(stderr, busy) {
  const port = Number(/PORT=(\d+) npm run/.exec(stderr)?.[1]);
  assert.ok(Number.isInteger(port), `a port is suggested: ${stderr}`);
  assert.notEqual(port, busy);
  assert.ok(![8787, 8788].includes(port), "never a demo's port");
  assert.equal(await canListen(port, '127.0.0.1'), true, `the suggested port ${port} is free`);
  return port;
}

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
    assert.match(stderr, /\n {2}PORT=\d+ npm run storefront\n$/);
    await suggested(stderr, port);
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  });

  test('npm run demo (demo/serve.mjs) says so, names a PORT to use instead and exits 1', { skip: demoBuilt ? false : 'demo/build/ is missing: run `npm run build` first' }, async () => {
    const { code, stdout, stderr } = await run(serve, [], { PORT: String(port) });
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, new RegExp(`^Port ${port} is already in use`));
    assert.match(stderr, /\n {2}PORT=\d+ npm run demo\n$/);
    await suggested(stderr, port);
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  });
});

describe('startFailureMessage', () => {
  const retry = (/** @type {number} */ port) => `PORT=${port} npm run demo`;
  const busy = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
  const denied = Object.assign(new Error('listen EACCES'), { code: 'EACCES' });
  /** Every port free but `taken`. @param {number[]} taken */
  const freeBut = (...taken) => ({ isFree: async (/** @type {number} */ port) => !taken.includes(port) });

  test("suggests the next port that neither demo listens on: 8787 busy is never answered with demo:v3's 8788", async () => {
    assert.match(await startFailureMessage(busy, 8787, retry, freeBut()), /^Port 8787 is already in use.*\n {2}PORT=8789 npm run demo$/s);
    assert.match(await startFailureMessage(busy, 8788, (port) => `PORT=${port} npm run demo:v3`, freeBut()), /\n {2}PORT=8789 npm run demo:v3$/);
    assert.match(await startFailureMessage(busy, 8786, retry, freeBut()), /PORT=8789 npm run demo$/);
    assert.match(await startFailureMessage(busy, 8789, retry, freeBut()), /PORT=8790 npm run demo$/);
    assert.match(await startFailureMessage(busy, 65535, retry, freeBut()), /PORT=8789 npm run demo$/);
  });

  test('never suggests a port that is taken too: 8789 in use (a demo moved there) is answered with 8790', async () => {
    assert.match(await startFailureMessage(busy, 8787, retry, freeBut(8789)), /PORT=8790 npm run demo$/);
    assert.match(await startFailureMessage(busy, 8787, retry, freeBut(8789, 8790, 8791)), /PORT=8792 npm run demo$/);
    assert.match(await startFailureMessage(busy, 9000, retry, freeBut(9001)), /PORT=9002 npm run demo$/);
    // None free among the 20 tried: the first is named, as before.
    assert.match(await startFailureMessage(busy, 8787, retry, { isFree: async () => false }), /PORT=8789 npm run demo$/);
  });

  test('a port that needs privileges is answered with one that does not (80 with 8789, never 81)', async () => {
    assert.match(await startFailureMessage(denied, 80, retry, freeBut()), /^Port 80 needs privileges.*\n {2}PORT=8789 npm run demo$/s);
    assert.match(await startFailureMessage(denied, 1022, retry, freeBut()), /PORT=8789 npm run demo$/);
    assert.match(await startFailureMessage(denied, 1023, retry, freeBut()), /PORT=1024 npm run demo$/);
  });

  test('otherPort: the next unprivileged port no demo listens on', () => {
    assert.deepEqual([0, 80, 1023, 8786, 8787, 8788, 65534, 65535, Number.NaN].map(otherPort), [8789, 8789, 1024, 8789, 8789, 8789, 65535, 8789, 8789]);
  });

  test('any other error with its message', async () => {
    assert.equal(await startFailureMessage(new Error('getaddrinfo ENOTFOUND nowhere'), 8787, retry), 'Could not start the storefront: getaddrinfo ENOTFOUND nowhere');
  });
});

test('canListen: false for a port a server holds, true once it lets go', async () => {
  const holder = net.createServer();
  await new Promise((resolve) => holder.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {net.AddressInfo} */ (holder.address());
  assert.equal(await canListen(port, '127.0.0.1'), false);
  await new Promise((resolve) => holder.close(resolve));
  assert.equal(await canListen(port, '127.0.0.1'), true);
});
