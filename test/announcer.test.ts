// Announcements between workers (announcer.ts): any announcement of ours for the base URL, from a
// release of any protocol version, makes the worker re-read storage; nothing else does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { channelName, MESSAGE_TAG, PROTOCOL_VERSION } from '../src/shared/protocol.js';
import { Announcer } from '../src/sw/announcer.js';
import { unrefChannels } from './fakes.js';

const BASE = 'https://shop.example';

unrefChannels();

/** How many re-reads the messages posted on the base URL's channel prompt. */
async function rereadsFor(messages: unknown[]): Promise<number> {
  let rereads = 0;
  const announcer = new Announcer(BASE, () => rereads++, () => {});
  const other = new BroadcastChannel(channelName(BASE));
  for (const message of messages) other.postMessage(message);
  await new Promise((resolve) => setTimeout(resolve, 50));
  other.close();
  void announcer;
  return rereads;
}

describe('Announcer: hearing other workers', () => {
  const state = { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 };
  it('re-reads storage for an announcement of this protocol version', async () => {
    assert.equal(await rereadsFor([{ tag: MESSAGE_TAG, v: PROTOCOL_VERSION, type: 'change', baseUrl: BASE, id: '1', state }]), 1);
  });
  it('re-reads storage for an announcement of another protocol version, whatever its shape', async () => {
    assert.equal(await rereadsFor([{ tag: MESSAGE_TAG, v: PROTOCOL_VERSION + 1, kind: 'logout', baseUrl: BASE }, { tag: MESSAGE_TAG, v: 0, baseUrl: BASE }]), 2);
  });
  it('ignores messages for another base URL and messages that are not ours', async () => {
    assert.equal(await rereadsFor([{ tag: MESSAGE_TAG, v: PROTOCOL_VERSION, type: 'change', baseUrl: 'https://other.example', id: '1', state }, { tag: 'other', baseUrl: BASE }, 'junk', null]), 0);
  });
});
