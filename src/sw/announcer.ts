/**
 * Announces state changes. Pages hear them from the worker itself (`Client.postMessage`), which no
 * other script can forge: a page accepts only trusted message events whose source is a service
 * worker. Other workers of the origin (another scope, or an old and a new release side by side)
 * hear them on the base URL's BroadcastChannel, which any same-origin script can post to, so there
 * a message only prompts a (coalesced) re-read of storage, never a state taken on trust.
 * Announcements carry the public `AuthState` only; tokens stay in storage.
 */
import type { SerializedError } from '../shared/errors.js';
import { channelName, isRecord, MESSAGE_TAG, PROTOCOL_VERSION, type Announcement } from '../shared/protocol.js';
import type { AuthState } from '../shared/state.js';
import type { WriteQueued, WriteSettled } from '../shared/writeEvents.js';

/** Delivers an announcement to every page of the origin; the worker's `clients`, or nothing in tests. */
export type ToPages = (announcement: Announcement) => void;

/** Sends this worker's changes and hears other workers'. */
export class Announcer {
  readonly #baseUrl: string;
  readonly #channel: BroadcastChannel | null;
  readonly #toPages: ToPages;
  readonly #pendingWrites: () => number;

  /**
   * `onOtherWorkerChange` runs for any announcement of ours for this base URL from another context,
   * whatever its protocol version: a release before or after this one (an old tab's worker, a new
   * one installing) changed storage too, and a re-read is all a message ever prompts.
   * `pendingWrites` counts the offline writes waiting, for every state announced.
   */
  constructor(baseUrl: string, onOtherWorkerChange: () => void, toPages: ToPages, pendingWrites: () => number = () => 0) {
    this.#baseUrl = baseUrl;
    this.#toPages = toPages;
    this.#pendingWrites = pendingWrites;
    // BroadcastChannel is in every browser with service workers and Web Locks; without it only
    // the cross-worker freshness is lost, never correctness (the refresh lock re-reads storage).
    this.#channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(channelName(baseUrl)) : null;
    this.#channel?.addEventListener('message', (event: MessageEvent<unknown>) => {
      const { data } = event;
      if (isRecord(data) && data['tag'] === MESSAGE_TAG && data['baseUrl'] === baseUrl) onOtherWorkerChange();
    });
  }

  /**
   * Announces a change and returns its id, which the acting page's reply carries too; `write` is the
   * detail of a `writequeued` or `writesettled`. The state says how many writes wait now.
   */
  announce(type: Announcement['type'], state: AuthState, warning?: SerializedError, write?: WriteQueued | WriteSettled): string {
    const id = crypto.randomUUID();
    const announcement: Announcement = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, type, baseUrl: this.#baseUrl, id, state: { ...state, pendingWrites: this.#pendingWrites() } };
    if (warning !== undefined) announcement.warning = warning;
    if (write !== undefined) announcement.write = write;
    this.#toPages(announcement);
    this.#channel?.postMessage(announcement);
    return id;
  }
}

/** Posts to every window of the origin, controlled by this worker or not (another scope's pages too). */
export function postToWindows(clients: Clients): ToPages {
  return (announcement) => {
    void clients.matchAll({ type: 'window', includeUncontrolled: true }).then(
      (windows) => windows.forEach((client) => client.postMessage(announcement)),
      () => {},
    );
  };
}
