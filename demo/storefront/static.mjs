// Static file serving for the demo site, the test pages and the built service worker: GET and HEAD
// requests the API does not claim. Service worker scripts are served from the root, so their
// default scope needs no Service-Worker-Allowed header.
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

/** @typedef {{ prefix: string, dir: string }} StaticMount */

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

const text = (/** @type {number} */ status, /** @type {string} */ body) => ({ status, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body });

/** @param {string} file */
async function fileKind(file) {
  try {
    const info = await stat(file);
    return info.isDirectory() ? 'directory' : info.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Finds `pathname` (raw, as received) in the mounts, in order; the first mount holding the file wins,
 * so two mounts on '/' layer. A `..` segment (plain or percent-encoded) is refused outright, and a
 * resolved file must lie inside its mount's directory.
 * @param {StaticMount[]} mounts @param {string} pathname
 * @returns {Promise<{ status: number, headers: Record<string, string>, body: string | Buffer }>}
 */
export async function serveStatic(mounts, pathname) {
  let decoded;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return text(400, 'Bad request');
  }
  if (decoded.split(/[/\\]/).includes('..') || decoded.includes('\0')) return text(403, 'Forbidden');
  for (const { prefix, dir } of mounts) {
    const base = prefix.endsWith('/') ? prefix : `${prefix}/`;
    if (!decoded.startsWith(base)) continue;
    const root = resolve(dir);
    let file = join(root, decoded.slice(base.length));
    if (file !== root && !file.startsWith(root + sep)) continue;
    let kind = await fileKind(file);
    if (kind === 'directory') {
      // A directory without its trailing slash: redirect, so relative links in its index resolve.
      if (!pathname.endsWith('/')) return { status: 301, headers: { Location: `${pathname}/` }, body: '' };
      file = join(file, 'index.html');
      kind = await fileKind(file);
    }
    if (kind !== 'file') continue;
    const type = TYPES[/** @type {keyof typeof TYPES} */ (extname(file).toLowerCase())] ?? 'application/octet-stream';
    return { status: 200, headers: { 'Content-Type': type, 'Cache-Control': 'no-cache' }, body: await readFile(file) };
  }
  return text(404, 'Not found');
}
