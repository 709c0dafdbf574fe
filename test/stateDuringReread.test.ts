// `getState()` while the worker re-reads storage (another worker of the origin posted on the base
// URL's channel: src/sw/heldCredentials.ts, `invalidate`). The memory copy is unknown until the
// re-read lands; the page's answer is what an announcement made then would tell (`announced`): what
// the re-read finds, or, when storage does not answer within its 2 s bound, the state held before the
// re-read. Never a stand-in "nothing held", which the page and React would take as the shopper signed
// out with no cart while the worker still holds both (docs/behaviour.md, "The page API").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { channelName, MESSAGE_TAG, PROTOCOL_VERSION } from '../src/shared/protocol.js';
import { STORAGE_WAIT_MS } from '../src/sw/heldCredentials.js';
import { NO_CREDENTIALS, type Credentials } from '../src/sw/credentialStorage.js';
import { heldReads, unrefChannels } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const HOUR = 3_600_000;
const SIGNED_IN: Credentials = {
  cart: { token: 'order-token', number: 'R100' },
  session: { accessToken: 'a1', refreshToken: 'r1', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true },
  backoff: null,
  signInId: 'sign-in-1',
};

unrefChannels();

/** Lets the worker's channel messages, timers and storage calls run. */
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

/** Another worker of the origin says it changed storage; the channel is closed once the worker heard it. */
async function otherWorkerPosts(): Promise<void> {
  const other = new BroadcastChannel(channelName(BASE));
  // A probe on the same channel hears the post in the same turn as the worker: on a loaded machine
  // a fixed wait alone may end before the worker heard it.
  const probe = new BroadcastChannel(channelName(BASE));
  const heard = new Promise<void>((resolve) => probe.addEventListener('message', () => resolve(), { once: true }));
  other.postMessage({ tag: MESSAGE_TAG, v: PROTOCOL_VERSION, type: 'change', baseUrl: BASE, id: 'other', state: {} });
  // The channels are unref'd: a timer keeps the process up while the post is on its way.
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([heard, new Promise<void>((resolve) => (timer = setTimeout(resolve, 1_000)))]);
  clearTimeout(timer);
  await tick();
  probe.close();
  other.close();
}

describe('getState while the worker re-reads storage', () => {
  it('storage not answering within the bound: the sign-in and cart held before the re-read, not signed out with no cart', async () => {
    const credentials = heldReads(SIGNED_IN);
    const w = routedWorker({}, SIGNED_IN, {}, Date.now, { storage: credentials.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, true, 'loaded');
    credentials.hold();
    await otherWorkerPosts();
    const started = Date.now();
    const { state, changeId } = await w.worker.actions.getState();
    assert.ok(Date.now() - started >= STORAGE_WAIT_MS - 50, 'it waited for the re-read, up to the bound');
    assert.deepEqual(state, { signedIn: true, accessTokenExpiresAt: SIGNED_IN.session?.expiresAt, cart: { number: 'R100' }, pendingWrites: 0 });
    assert.equal(changeId, null);
    credentials.release();
    await tick();
  });

  it('the re-read landing within the bound: what storage holds now (another worker signed the shopper out)', async () => {
    const credentials = heldReads(SIGNED_IN);
    const w = routedWorker({}, SIGNED_IN, {}, Date.now, { storage: credentials.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, true, 'loaded');
    await credentials.stored.update(() => NO_CREDENTIALS);
    credentials.hold();
    await otherWorkerPosts();
    const answer = w.worker.actions.getState();
    await tick();
    credentials.release();
    assert.deepEqual((await answer).state, { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
  });
});
