// Why a server could not start, in words for whoever ran the command: a busy port names the
// command that picks another one, instead of Node's EADDRINUSE stack.

/**
 * The ports of `npm run demo` (8787) and `npm run demo:v3` (8788), never suggested: the one in the
 * way is often the other demo, and the suggestion would take the port that demo comes back on.
 */
const DEMO_PORTS = [8787, 8788];

/** The next port after `port` that no demo listens on. @param {number} port */
export function otherPort(port) {
  let other = port;
  do other = other >= 65535 || other <= 0 ? 8789 : other + 1;
  while (DEMO_PORTS.includes(other));
  return other;
}

/**
 * The message for `error`, thrown by startStorefront listening on `port`; `retry(port)` is the
 * command to suggest with another port (`PORT=8789 npm run demo`).
 * @param {unknown} error @param {number} port @param {(port: number) => string} retry
 */
export function startFailureMessage(error, port, retry) {
  const code = /** @type {NodeJS.ErrnoException} */ (error)?.code;
  const other = otherPort(port);
  if (code === 'EADDRINUSE') {
    return `Port ${port} is already in use (another demo or storefront still running?). Stop it, or pick another port:\n  ${retry(other)}`;
  }
  if (code === 'EACCES') return `Port ${port} needs privileges this user does not have. Pick another port:\n  ${retry(other)}`;
  return `Could not start the storefront: ${error instanceof Error ? error.message : String(error)}`;
}
