/**
 * The Doorkeeper bench as a child process: demo/doorkeeper/server.rb (Doorkeeper 5.5 on Rails 6.1
 * from Debian's packages) started on a free port, its handle over the bench's test controls, and
 * whether this machine can run it at all.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { root } from '../support.js';

/** The Debian packages the bench needs (bookworm: Ruby 3.1, Rails 6.1, Doorkeeper 5.5). */
export const RUBY_PACKAGES = 'ruby ruby-doorkeeper ruby-railties ruby-actionpack ruby-activerecord ruby-sqlite3 ruby-rack-cors puma ruby-bcrypt';

/** How long Rails may take to boot on a loaded 2-core machine before the fixture gives up. */
const BOOT_TIMEOUT_MS = 60_000;
/** How long the server may take to stop before it is killed. */
const STOP_TIMEOUT_MS = 5_000;

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

/** This worker's answer of `missingDoorkeeper`, once known. */
let missing: string | null | undefined;

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
export class LazyBench {
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
