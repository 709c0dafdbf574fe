// Why a server could not start, in words for whoever ran the command: a busy port names the
// command that picks another one, instead of Node's EADDRINUSE stack.

/**
 * The message for `error`, thrown by startStorefront listening on `port`; `retry(port)` is the
 * command to suggest with another port (`PORT=8788 npm run demo`).
 * @param {unknown} error @param {number} port @param {(port: number) => string} retry
 */
export function startFailureMessage(error, port, retry) {
  const code = /** @type {NodeJS.ErrnoException} */ (error)?.code;
  const other = port >= 65535 || port <= 0 ? 8788 : port + 1;
  if (code === 'EADDRINUSE') {
    return `Port ${port} is already in use (another demo or storefront still running?). Stop it, or pick another port:\n  ${retry(other)}`;
  }
  if (code === 'EACCES') return `Port ${port} needs privileges this user does not have. Pick another port:\n  ${retry(other)}`;
  return `Could not start the storefront: ${error instanceof Error ? error.message : String(error)}`;
}
