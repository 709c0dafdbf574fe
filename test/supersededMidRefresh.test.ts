// A newer storefront-auth release upgrades the database (a newer schema, its marker says so) while
// this release's worker still runs with the pair in its memory copy. The newer release carries the
// pair over and owns it from then on: this release "refreshes no more" (SessionRefresher.retire:
// "spending the refresh token here would end the session"). The first storage operation after the
// upgrade is often the due refresh's own re-read under the lock: that re-read is where this release
// learns it is superseded, and the refresh must stop there, not spend the refresh token the newer
// release holds (docs/behaviour.md, "Refresh": one expiry, one refresh, across every worker).
// With fake-indexeddb standing in for the browser's.
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IDBFactory } from 'fake-indexeddb';
import { openDB } from 'idb';
import { AuthWorker } from '../src/sw/authWorker.js';
import { databaseOpener, DATABASE_NAME, indexedDbStorage, SCHEMA_VERSION, type StorageHooks } from '../src/sw/credentialStorage.js';
import { resolveOptions, type StorefrontAuthOptions } from '../src/sw/options.js';
import { BASE, routedFetch, type Call, type Routes } from './workerHarness.js';
import { storeApiJwt } from './fakes.js';

const HOUR = 3_600_000;

const turns = async (n = 30): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** The credentials on disk for BASE, as the newer release reads them. */
async function onDisk(): Promise<{ session?: { refreshToken?: string } } | undefined> {
  const db = await openDB(DATABASE_NAME);
  try {
    return (await db.get('credentials', BASE)) as { session?: { refreshToken?: string } } | undefined;
  } finally {
    db.close();
  }
}

interface Case {
  preset: StorefrontAuthOptions;
  accessToken: string;
  refreshToken: string;
  grant: string;
  routes: Routes;
  request: string;
}

const now = Date.now();
const CASES: Case[] = [
  {
    preset: { preset: 'spree' },
    accessToken: 'aT/8+"q\\Z1',
    refreshToken: 'rT/9+"w\\Y2',
    grant: 'POST /spree_oauth/token',
    routes: {
      'POST /spree_oauth/token': () => Response.json({ access_token: 'aN/1+"n\\', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rN/2+"m\\', created_at: Math.floor(now / 1000) }),
      'GET /api/v2/storefront/account': () => Response.json({ data: {} }),
    },
    request: '/api/v2/storefront/account',
  },
  {
    preset: { preset: 'spree-v3', publishableKey: 'pk_test_1' },
    accessToken: storeApiJwt(Math.floor((now + 10_000) / 1000)),
    refreshToken: 'Qm4b+/"9\\kP',
    grant: 'POST /api/v3/store/auth/refresh',
    routes: {
      'POST /api/v3/store/auth/refresh': () => Response.json({ token: storeApiJwt(Math.floor(now / 1000) + 3600), refresh_token: 'Zx7/+"r\\', user: { id: 'cus_1' } }),
      'GET /api/v3/store/customers/me': () => Response.json({ id: 'cus_1' }),
    },
    request: '/api/v3/store/customers/me',
  },
];

describe('a newer release upgrades the database while this one holds a due pair in memory', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  for (const c of CASES) {
    it(`${c.preset.preset}: the refresh that finds storage superseded sends no grant, and leaves the newer release's refresh token unspent`, { timeout: 10_000 }, async () => {
      globalThis.indexedDB = new IDBFactory();
      // What this release stored: a pair whose bearer is valid for 10 s more, so due for a refresh.
      const seed = await openDB(DATABASE_NAME, SCHEMA_VERSION, {
        upgrade(db, _old, _new, tx) {
          db.createObjectStore('credentials', { keyPath: 'baseUrl' });
          db.createObjectStore('writes', { keyPath: 'seq', autoIncrement: true }).createIndex('baseUrl', 'baseUrl');
          void tx.objectStore('credentials').put({ baseUrl: '#schema', version: SCHEMA_VERSION });
        },
      });
      await seed.put('credentials', { baseUrl: BASE, cart: null, session: { accessToken: c.accessToken, refreshToken: c.refreshToken, expiresAt: Date.now() + 10_000, lifetimeMs: HOUR, confirmed: true }, backoff: null });
      seed.close();

      const calls: Call[] = [];
      const unrouted: string[] = [];
      const hooks: StorageHooks = { lost: (how) => worker.forgetMemoryCopy(how), settleWrites: () => worker.settleWrites() };
      const open = databaseOpener(hooks);
      const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, ...c.preset }, 'https://shop.example/storefront-auth-sw.js'), {
        fetch: routedFetch(c.routes, calls, unrouted),
        now: () => Date.now(),
        storage: indexedDbStorage(BASE, hooks, open),
        toPages: () => {},
        log: undefined,
      });
      worker.preload();
      assert.equal((await worker.actions.getState()).state.signedIn, true, 'loaded from disk');

      // The newer release takes the database: this worker's connection closes for its upgrade.
      const newer = await openDB(DATABASE_NAME, SCHEMA_VERSION + 1, {
        upgrade(_db, _old, _new, tx) {
          void tx.objectStore('credentials').put({ baseUrl: '#schema', version: SCHEMA_VERSION + 1 });
        },
      });
      newer.close();
      await turns();

      // A page request reaches this worker while its bearer is due: the refresh re-reads storage.
      const kept: Promise<unknown>[] = [];
      const url = new URL(BASE + c.request);
      const request = new Request(url);
      const decision = worker.requests.match(request, url);
      assert.notEqual(decision, null);
      await worker.requests.handle(request, url, decision === true || decision === null ? undefined : decision, (work) => void kept.push(work));
      await Promise.allSettled(kept);
      await turns();

      const grants = calls.filter((call) => call.route === c.grant);
      assert.equal(grants.length, 0, `a superseded release sent ${grants.length} refresh grant(s) with the refresh token the newer release holds`);
      assert.equal((await onDisk())?.session?.refreshToken, c.refreshToken, 'the newer release still holds the pair');
    });
  }
});
