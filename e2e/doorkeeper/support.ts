/**
 * End-to-end fixtures against a real Doorkeeper: demo/doorkeeper, Doorkeeper 5.5 on Rails 6.1 from
 * Debian's packages, configured as Spree 4.x configures it. One server per Playwright worker,
 * started on first use (Rails takes seconds to boot) and stopped when the worker ends; each test
 * sets its access token lifetime and clears the request log first.
 *
 * Without Ruby and Doorkeeper the specs skip, saying how to install them, except under CI=true,
 * where they fail: CI installs the packages (.ci/run), so a missing Doorkeeper there is a fault.
 */
import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { openShop, root } from '../support.js';

/** The Debian packages the bench needs (bookworm: Ruby 3.1, Rails 6.1, Doorkeeper 5.5). */
export const RUBY_PACKAGES = 'ruby ruby-doorkeeper ruby-railties ruby-actionpack ruby-activerecord ruby-sqlite3 ruby-rack-cors puma ruby-bcrypt';

/** How long Rails may take to boot on a loaded 2-core machine before the fixture gives up. */
const BOOT_TIMEOUT_MS = 60_000;
/** How long the server may take to stop before it is killed. */
const STOP_TIMEOUT_MS = 5_000;
/** The access token lifetime of a test that names none: Doorkeeper's default. */
const DEFAULT_LIFETIME_S = 7200;

/** One request as the bench received it (API and OAuth paths only). */
export interface BenchRequest {
  method: string;
  path: string;
  /** The query string with its `?`, or `''`. */
  search: string;
  headers: { authorization?: string; orderToken?: string; contentType?: string; origin?: string; ifNoneMatch?: string };
  /** The body of a POST, PATCH or PUT. */
  body?: string;
  /** The status answered, once answered. */
  status?: number;
  /** For the token path: the answer's JSON. */
  response?: unknown;
  /** Epoch milliseconds of receipt. */
  at: number;
}

/** The bench's counters since the last clear. */
export interface BenchStats {
  tokenRequests: number;
  passwordGrants: number;
  refreshGrants: number;
  refreshSuccesses: number;
  /** Token endpoint answers `400 invalid_grant`. */
  invalidGrants: number;
  revocations: number;
  /** API answers 401 (an expired or revoked bearer). */
  unauthorized: number;
  /** Answers 304 (a revalidation matched Rails' ETag). */
  notModified: number;
  /** Requests logged. */
  requests: number;
}

/** A successful token response, as Doorkeeper sends it. */
export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  created_at: number;
}

/** A running bench. */
export interface Doorkeeper {
  url: string;
  /** Doorkeeper, Rails, Ruby and Puma versions, as the server printed them. */
  versions: string;
  user: { username: string; password: string };
  requests(): Promise<BenchRequest[]>;
  requestsTo(method: string, path: string): Promise<BenchRequest[]>;
  stats(): Promise<BenchStats>;
  /** Every pair the token endpoint issued since the last clear, in order of the grants. */
  issuedPairs(): Promise<TokenPair[]>;
  clear(): Promise<void>;
  /** The lifetime of the access tokens of later password grants (refreshed tokens keep theirs). */
  setAccessTokenLifetime(seconds: number): Promise<void>;
  /** The end of the server's standard error, for failure messages. */
  stderr(): string;
}

/** Options of the `doorkeeper` fixture. */
export interface DoorkeeperOptions {
  /** Seconds; default 7200. */
  accessTokenLifetime?: number;
}

let missing: string | null | undefined;
/** Whether this worker has said why it skips, once. */
let skipAnnounced = false;

/** Why the bench cannot run on this machine, or `null` when it can (checked once per worker). */
export function missingDoorkeeper(): string | null {
  if (missing !== undefined) return missing;
  const requires = '%w[rails active_record/railtie action_controller/railtie doorkeeper sqlite3 rack/cors bcrypt puma].each { |name| require name }';
  const probe = spawnSync('ruby', ['-e', requires], { encoding: 'utf8', timeout: BOOT_TIMEOUT_MS });
  if (probe.error !== undefined) {
    missing = (probe.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'ruby is not installed' : `ruby could not run: ${probe.error.message}`;
  } else if (probe.status !== 0) {
    missing = `ruby cannot load the bench's gems: ${probe.stderr.trim().split('\n')[0] ?? `exit ${probe.status}`}`;
  } else {
    missing = null;
  }
  return missing;
}

/** Runs `fetch` against the bench and reads the answer. */
async function ask(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${await response.text()}`);
  return response;
}

/** Starts demo/doorkeeper/server.rb on a free port and resolves once it listens. */
async function startBench(): Promise<{ doorkeeper: Doorkeeper; stop(): Promise<void> }> {
  const child: ChildProcessWithoutNullStreams = spawn('ruby', [`${root}demo/doorkeeper/server.rb`, '--port', '0', '--exit-with-stdin'], { cwd: root, stdio: 'pipe' });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8_000);
    process.stderr.write(chunk.replace(/^/gm, '[doorkeeper] '));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo/doorkeeper/server.rb did not listen within ${BOOT_TIMEOUT_MS} ms:\n${stderr}`)), BOOT_TIMEOUT_MS);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /listening on (http:\/\/\S+) \((.*)\)/.exec(line);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`demo/doorkeeper/server.rb exited (${code ?? signal}) before listening:\n${stderr}`));
    });
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw error;
  });
  const url = listening[1]!;
  const control = (path: string, init?: RequestInit) => ask(`${url}/__control/${path}`, init);
  const requests = async () => ((await (await control('requests')).json()) as { requests: BenchRequest[] }).requests;
  const doorkeeper: Doorkeeper = {
    url,
    versions: listening[2]!,
    user: { username: 'demo@example.com', password: 'spree123' },
    requests,
    requestsTo: async (method, path) => (await requests()).filter((request) => request.method === method && request.path === path),
    stats: async () => (await (await control('stats')).json()) as BenchStats,
    issuedPairs: async () =>
      (await requests())
        .filter((request) => request.method === 'POST' && request.path === '/spree_oauth/token' && request.status === 200)
        .map((request) => request.response as TokenPair),
    clear: async () => void (await control('clear', { method: 'POST' })),
    setAccessTokenLifetime: async (seconds) =>
      void (await control('access-token-lifetime', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ seconds }) })),
    stderr: () => stderr,
  };
  const stop = async () => {
    // Closing standard input stops it (--exit-with-stdin); the signal and then the kill are for a server that hangs.
    child.stdin.end();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  return { doorkeeper, stop };
}

/** The worker's bench: started by the first test that needs it. */
class LazyBench {
  #running: ReturnType<typeof startBench> | undefined;

  get(): Promise<Doorkeeper> {
    this.#running ??= startBench();
    return this.#running.then(({ doorkeeper }) => doorkeeper);
  }

  async stop(): Promise<void> {
    const running = await this.#running?.catch(() => undefined);
    await running?.stop();
  }
}

export const test = base.extend<{ doorkeeperOptions: DoorkeeperOptions; doorkeeper: Doorkeeper }, { doorkeeperBench: LazyBench }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from its first parameter.
  doorkeeperBench: [async ({}, use) => {
    const bench = new LazyBench();
    await use(bench);
    await bench.stop();
  }, { scope: 'worker' }],
  doorkeeperOptions: [{}, { option: true }],
  doorkeeper: async ({ doorkeeperBench, doorkeeperOptions }, use, testInfo) => {
    const reason = missingDoorkeeper();
    if (reason !== null) {
      const install = `apt-get install ${RUBY_PACKAGES}`;
      if (process.env['CI']) throw new Error(`The Doorkeeper specs must run under CI, which installs Doorkeeper (.ci/run), but ${reason}. Install: ${install}`);
      const message = `Doorkeeper is not installed here (${reason}). To run these specs: ${install}`;
      if (!skipAnnounced) process.stderr.write(`Skipping the Doorkeeper specs: ${message}\n`);
      skipAnnounced = true;
      testInfo.skip(true, message);
    }
    const doorkeeper = await doorkeeperBench.get();
    await doorkeeper.setAccessTokenLifetime(doorkeeperOptions.accessTokenLifetime ?? DEFAULT_LIFETIME_S);
    await doorkeeper.clear();
    await use(doorkeeper);
    if (testInfo.status !== testInfo.expectedStatus && doorkeeper.stderr() !== '') {
      await testInfo.attach('doorkeeper-stderr', { body: doorkeeper.stderr(), contentType: 'text/plain' });
    }
  },
});

export { expect };

/** Opens a page of the test site on the bench's origin with the drop-in on the `spree` preset. */
export function openSpreeShop(context: BrowserContext, doorkeeper: Doorkeeper, path = '/site/blank.html'): Promise<Page> {
  return openShop(context, doorkeeper, { preset: 'spree' }, path);
}

/** A bench answer read from Node: status, headers and the body as text and, when it is JSON, parsed. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** Sends a request to the bench from Node (no browser, no worker, no HTTP cache). */
export async function send(doorkeeper: Doorkeeper, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(doorkeeper.url + path, { redirect: 'manual', ...init });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** POSTs a form-encoded body, as the worker does for its grants and revocations. */
export function postForm(doorkeeper: Doorkeeper, path: string, form: Record<string, string>): Promise<Answer> {
  return send(doorkeeper, path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
}

/** The password grant (SPEC.md 4.2) at Spree's token path. */
export function passwordGrant(doorkeeper: Doorkeeper, password = doorkeeper.user.password): Promise<Answer> {
  return postForm(doorkeeper, '/spree_oauth/token', { grant_type: 'password', username: doorkeeper.user.username, password });
}

/** The refresh grant (SPEC.md 4.3). */
export function refreshGrant(doorkeeper: Doorkeeper, refreshToken: string): Promise<Answer> {
  return postForm(doorkeeper, '/spree_oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken });
}

/** RFC 7009 revocation of either token of a pair. */
export function revoke(doorkeeper: Doorkeeper, token: string): Promise<Answer> {
  return postForm(doorkeeper, '/spree_oauth/revoke', { token });
}

/** GET /api/v2/storefront/account, with a bearer when one is given. */
export function getAccount(doorkeeper: Doorkeeper, accessToken?: string, headers: Record<string, string> = {}): Promise<Answer> {
  return send(doorkeeper, '/api/v2/storefront/account', { headers: { ...headers, ...(accessToken === undefined ? {} : { Authorization: `Bearer ${accessToken}` }) } });
}

/** A password grant that must succeed. */
export async function signIn(doorkeeper: Doorkeeper): Promise<TokenPair> {
  const answer = await passwordGrant(doorkeeper);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as TokenPair;
}

/** A refresh grant that must succeed. */
export async function refreshed(doorkeeper: Doorkeeper, refreshToken: string): Promise<TokenPair> {
  const answer = await refreshGrant(doorkeeper, refreshToken);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as TokenPair;
}

/** Waits until the worker's background revocation has been answered: `count` revoke requests, each with a status. */
export async function revocationsAnswered(doorkeeper: Doorkeeper, count: number): Promise<BenchRequest[]> {
  await expect
    .poll(async () => (await doorkeeper.requestsTo('POST', '/spree_oauth/revoke')).filter((request) => request.status !== undefined).length, {
      message: `${count} revocation(s) answered`,
      timeout: 15_000,
    })
    .toBeGreaterThanOrEqual(count);
  return doorkeeper.requestsTo('POST', '/spree_oauth/revoke');
}

/**
 * Proves at Doorkeeper that no token of `pairs` works any more: every refresh token is refused
 * (`400 invalid_grant`) and every access token is refused on a resource request (`401`, revoked).
 * The refresh grants go first: a first use of a live refreshed access token would itself revoke the
 * pair before it (Doorkeeper's rotation) and so hide a pair the client left alive.
 */
export async function expectNoTokenWorks(doorkeeper: Doorkeeper, pairs: TokenPair[]): Promise<void> {
  expect(pairs.length, 'pairs to check').toBeGreaterThan(0);
  for (const [index, pair] of pairs.entries()) {
    const answer = await refreshGrant(doorkeeper, pair.refresh_token);
    expect({ pair: index, status: answer.status, error: (answer.json as { error?: string } | undefined)?.error }, `refresh token of pair ${index}`).toEqual({
      pair: index,
      status: 400,
      error: 'invalid_grant',
    });
  }
  for (const [index, pair] of pairs.entries()) {
    const answer = await getAccount(doorkeeper, pair.access_token);
    expect({ pair: index, status: answer.status, body: answer.json }, `access token of pair ${index}`).toEqual({
      pair: index,
      status: 401,
      body: { error: 'The access token was revoked' },
    });
  }
}
