// A login answered before storage was ever read (4855c1a): once its write lands, the writes it ended
// are dropped "by what storage holds". That re-read has the 2 s bound, and its stand-in is the memory
// copy or, when the copy was forgotten meanwhile (the browser closed the connection, another worker
// announced a change), "nothing held": the guest write on the cart the login took along is dropped.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Announcement } from '../src/shared/protocol.js';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type CredentialStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { installFakeLocks, removeFakeLocks, unrefChannels } from './fakes.js';

const BASE = 'https://landed-reread.example/store';
const CART = { token: 'La+n/de\\d"tok', number: 'R733' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };

describe('a login answered unread, whose re-read after landing is slow', () => {
  before(() => {
    installFakeLocks();
    unrefChannels();
  });
  after(() => removeFakeLocks());

  it('does not drop the guest write on the cart it took along', async () => {
    const announced: Announcement[] = [];
    const writes = memoryWrites();
    await writes.add(
      {
        id: 'guest-write-L', baseUrl: BASE, method: 'PATCH', url: `${BASE}/api/v2/storefront/cart/set_quantity`,
        headers: [['content-type', 'application/vnd.api+json']],
        body: new TextEncoder().encode('{"line_item_id":"3","quantity":2}').buffer as ArrayBuffer,
        credentials: 'same-origin', key: null, cart: CART.number, signInId: null, createdAt: Date.now(), attempts: 0, notBefore: 0,
      },
      50,
    );
    const stored = memoryStorage(GUEST);
    let readGate: Promise<void> | null = null;
    let writeGate: Promise<void> | null = null;
    let openReads = (): void => {};
    let openWrites = (): void => {};
    const stallReads = (): void => void (readGate = new Promise<void>((r) => (openReads = r)));
    const stallWrites = (): void => void (writeGate = new Promise<void>((r) => (openWrites = r)));
    const storage: CredentialStorage = { read: async () => (await readGate, stored.read()), update: async (change) => (await writeGate, stored.update(change)) };
    const work: Promise<unknown>[] = [];
    const keepAlive: KeepAlive = (promise) => void work.push(promise);
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname.endsWith('/store_oauth/token')) return Response.json({ access_token: 'Ac+c/e"s\\s9', refresh_token: 'Re/f+r"sh\\7', token_type: 'Bearer', expires_in: 3600, created_at: Math.floor(Date.now() / 1000) });
      throw new TypeError('Failed to fetch');
    };
    stallReads();
    stallWrites();
    const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://landed-reread.example/storefront-auth-sw.js'), {
      fetch, now: Date.now, storage, toPages: (a) => void announced.push(a), log: undefined, writes, online: () => false,
    });
    worker.preload();
    await worker.actions.login('shopper@example.com', 'p/a+s"s\\', keepAlive, AbortSignal.timeout(9_000));
    // Storage answers the first read and the login's write; the next reads are slow again.
    const firstReads = readGate!;
    openReads();
    await firstReads;
    stallReads();
    openWrites();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The browser closes the connection meanwhile: the memory copy is forgotten and read again.
    worker.forgetMemoryCopy('closed');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    openReads();
    for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const held = await stored.read();
    assert.deepEqual(held.cart, CART, 'the login took the guest cart along in storage');
    assert.equal(held.cartTakenBy, held.signInId);
    const settled = announced.filter((a) => a.type === 'writesettled').map((a) => a.write);
    assert.deepEqual(settled, [], `the guest's write on the cart the login took along was settled: ${JSON.stringify(settled)}`);
    assert.deepEqual((await writes.list()).map((w) => w.id), ['guest-write-L']);
  });
});
