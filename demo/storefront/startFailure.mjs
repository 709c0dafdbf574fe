// Why a server could not start, in words for whoever ran the command: a busy port names the
// command that picks another one, instead of Node's EADDRINUSE stack. The port it names was free
// when the message was written: a guess that is itself taken would fail the same way.
import net from 'node:net';

/**
 * The ports of `npm run demo` (8787) and `npm run demo:v3` (8788), never suggested: the one in the
 * way is often the other demo, and the suggestion would take the port that demo comes back on.
 */
const DEMO_PORTS = [8787, 8788];

/** Where the suggestions start again past the last port, or from a port that needs privileges. */
const FIRST_SUGGESTION = 8789;

/** Ports below this one need privileges on most systems (Linux, the BSDs, macOS before 10.14). */
const FIRST_UNPRIVILEGED_PORT = 1024;

/** How many ports are tried for a free one before the first of them is named anyway. */
const PORTS_TRIED = 20;

/**
 * The next port after `port` that no demo listens on and that needs no privileges (a port below
 * 1024, or past 65535, starts again at 8789). @param {number} port
 */
export function otherPort(port) {
  let other = port;
  do other = !Number.isInteger(other) || other >= 65535 || other < FIRST_UNPRIVILEGED_PORT - 1 ? FIRST_SUGGESTION : other + 1;
  while (DEMO_PORTS.includes(other));
  return other;
}

/**
 * Whether a server could listen on `port` at `host` now: listens, then lets go at once.
 * @param {number} port @param {string} host @returns {Promise<boolean>}
 */
export function canListen(port, host) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    try {
      probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
    } catch {
      resolve(false); // a port or host that listen refuses outright
    }
  });
}

/**
 * The port to suggest instead of `port`: the first of otherPort's that `isFree` finds free, of
 * PORTS_TRIED; the first of them when none is.
 * @param {number} port @param {(port: number) => Promise<boolean>} isFree
 */
export async function freeOtherPort(port, isFree) {
  const first = otherPort(port);
  let other = first;
  for (let tried = 0; tried < PORTS_TRIED; tried++, other = otherPort(other)) {
    if (await isFree(other)) return other;
  }
  return first;
}

/**
 * The message for `error`, thrown by startStorefront listening on `port`; `retry(port)` is the
 * command to suggest with another port (`PORT=8789 npm run demo`), one `isFree` finds free (by
 * default, one a server can listen on at `host`).
 * @param {unknown} error @param {number} port @param {(port: number) => string} retry
 * @param {{ host?: string, isFree?: (port: number) => Promise<boolean> }} [options]
 * @returns {Promise<string>}
 */
export async function startFailureMessage(error, port, retry, { host = '127.0.0.1', isFree = (other) => canListen(other, host) } = {}) {
  const code = /** @type {NodeJS.ErrnoException} */ (error)?.code;
  if (code === 'EADDRINUSE') {
    return `Port ${port} is already in use (another demo or storefront still running?). Stop it, or pick another port:\n  ${retry(await freeOtherPort(port, isFree))}`;
  }
  if (code === 'EACCES') return `Port ${port} needs privileges this user does not have. Pick another port:\n  ${retry(await freeOtherPort(port, isFree))}`;
  return `Could not start the storefront: ${error instanceof Error ? error.message : String(error)}`;
}
