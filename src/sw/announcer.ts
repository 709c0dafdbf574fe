/**
 * Announces state changes on the base URL's BroadcastChannel: every page's bridge turns them into
 * `change` and `sessionexpired` events, and every other worker of the origin (another scope, or an
 * old and a new version side by side) drops its memory copy and re-reads storage. Announcements carry
 * the public `AuthState` only; tokens stay in storage.
 */
import type { SerializedError } from '../shared/errors.js';
import { channelName, MESSAGE_TAG, PROTOCOL_VERSION, type Announcement } from '../shared/protocol.js';
import type { AuthState } from '../shared/state.js';

/** Sends this worker's changes and hears other workers'. */
export class Announcer {
  readonly #baseUrl: string;
  readonly #channel: BroadcastChannel | null;

  /** `onOtherWorkerChange` runs for changes announced by any other context of the origin. */
  constructor(baseUrl: string, onOtherWorkerChange: () => void) {
    this.#baseUrl = baseUrl;
    // BroadcastChannel is in every browser with service workers and Web Locks; without it only
    // the cross-worker freshness is lost, never correctness (the refresh lock re-reads storage).
    this.#channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(channelName(baseUrl)) : null;
    this.#channel?.addEventListener('message', onOtherWorkerChange);
  }

  /** Announces a change and returns its id, which the acting page's reply carries too. */
  announce(type: Announcement['type'], state: AuthState, warning?: SerializedError): string {
    const id = crypto.randomUUID();
    const announcement: Announcement = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, type, baseUrl: this.#baseUrl, id, state };
    if (warning !== undefined) announcement.warning = warning;
    this.#channel?.postMessage(announcement);
    return id;
  }
}
