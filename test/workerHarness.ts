/**
 * An AuthWorker in Node for the tests that drive a page's requests through it: memory storage, a
 * fetch routed by `METHOD /path` below the base URL that records every call (an unrouted one is
 * answered 599 and fails `settled`), a recording `toPages`, a keepAlive that keeps what it is
 * handed, and `through`, which sends a page's request as the fetch listener would. The server's root
 * answers a `HEAD` (the offline writes' probe, outbound.ts `reachable`) unless `HEAD /` is routed:
 * those are counted in `probes`, not `calls`.
 */
import assert from 'node:assert/strict';
import type { Announcement } from '../src/shared/protocol.js';
import { AuthWorker, type WorkerEnvironment } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions, type StorefrontAuthOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';

export const BASE = 'https://shop.example/store';

export interface Call {
  /** `METHOD /path` below the base URL, query left out. */
  route: string;
  request: Request;
  /** The body as sent (the Request's own body can be read only once). */
  body: Promise<string>;
}

export type Routes = Record<string, (call: Call) => Response | Promise<Response>>;

/** A fetch that answers by `routes` (`METHOD /path` below BASE), recording each call in `calls` and each unrouted one in `unrouted` (answered 599). */
export function routedFetch(routes: Routes, calls: Call[], unrouted: string[]): (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const request = new Request(input, init);
    const call: Call = { route: `${request.method} ${new URL(request.url).pathname.slice(new URL(BASE).pathname.length)}`, request, body: request.clone().text() };
    calls.push(call);
    const answer = routes[call.route];
    if (answer === undefined) {
      unrouted.push(call.route);
      return new Response(null, { status: 599 });
    }
    return answer(call);
  };
}

/**
 * A worker with `options` (under BASE) holding `initial`, whose server answers by `routes`; `env`
 * adds to its environment (the offline writes' storage, `online`, `requestSync`).
 */
export function routedWorker(options: StorefrontAuthOptions, initial: Credentials, routes: Routes, now: () => number = Date.now, env: Partial<WorkerEnvironment> = {}) {
  const calls: Call[] = [];
  const unrouted: string[] = [];
  const announced: Announcement[] = [];
  const kept: Promise<unknown>[] = [];
  const probes: Request[] = [];
  const storage = memoryStorage(initial);
  const routed = routedFetch(routes, calls, unrouted);
  const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, ...options }, 'https://shop.example/storefront-auth-sw.js'), {
    fetch: (input, init) => {
      const request = new Request(input, init);
      if (request.method !== 'HEAD' || request.url !== `${BASE}/` || routes['HEAD /'] !== undefined) return routed(request);
      probes.push(request);
      return Promise.resolve(new Response(null));
    },
    now,
    storage,
    toPages: (announcement) => announced.push(announcement),
    log: undefined,
    ...env,
  });
  worker.preload();
  const keepAlive: KeepAlive = (work) => void kept.push(work);
  /** Waits for everything handed to keepAlive, including what that work handed on. */
  const settled = async (): Promise<void> => {
    for (let seen = 0; seen < kept.length; seen = kept.length) await Promise.allSettled(kept);
    assert.deepEqual(unrouted, [], 'every request the worker sent was expected');
  };
  /** Sends a page's `request` as the fetch listener would; `null` when the worker leaves it to the browser. */
  const through = async (request: Request): Promise<Response | null> => {
    const url = new URL(request.url);
    const decision = worker.requests.match(request, url);
    if (decision === null) return null;
    return worker.requests.handle(request, url, decision === true ? undefined : decision, keepAlive);
  };
  return { worker, calls, probes, announced, kept, keepAlive, settled, storage, through };
}
