/**
 * The one message protocol between the page bridge and the worker: a typed union with a version, so
 * nothing untyped crosses.
 *
 * Requests go page → worker over `postMessage` with a `MessageChannel` port for the reply (as
 * Workbox window's `messageSW` does). Announcements go worker → every page and every other worker
 * of the origin over a `BroadcastChannel` named after the base URL. No token ever crosses either:
 * announcements carry the public `AuthState`, and workers re-read storage when told of a change.
 */
import { DEBUG_BUILD } from './debugBuild.js';
import type { SerializedError } from './errors.js';
import type { AuthState } from './state.js';
import { isWriteQueued, isWriteSettled, type WriteQueued, type WriteSettled } from './writeEvents.js';

/** Bumped on any incompatible change; the worker answers other versions with an error. */
export const PROTOCOL_VERSION = 1;

/** Marks our messages among whatever else an app's worker receives. */
export const MESSAGE_TAG = 'storefront-auth';

interface Envelope {
  tag: typeof MESSAGE_TAG;
  v: typeof PROTOCOL_VERSION;
  /** The normalised base URL the page talks to; a worker serving another base ignores the message. */
  baseUrl: string;
}

/** A request from the page to the worker. */
export type WorkerRequest =
  | (Envelope & { type: 'getState' })
  | (Envelope & { type: 'login'; username: string; password: string })
  | (Envelope & { type: 'logout' })
  | (Envelope & { type: 'createCart' })
  /** Asks a standalone worker to control this page (a shift-reloaded page starts uncontrolled). */
  | (Envelope & { type: 'claim' })
  /** The page saw the browser come back online: queued writes are replayed at once, whatever their back-off. */
  | (Envelope & { type: 'online' });

/** The names of the requests. */
export type WorkerRequestType = WorkerRequest['type'];

/** The worker's answer on the request's port. */
export type WorkerReply =
  | {
      tag: typeof MESSAGE_TAG;
      v: typeof PROTOCOL_VERSION;
      ok: true;
      state: AuthState;
      changeId: string | null;
      /** Why part of the action failed although the action stood. */
      warning?: SerializedError;
    }
  | { tag: typeof MESSAGE_TAG; v: typeof PROTOCOL_VERSION; ok: false; error: SerializedError };

/** What an announcement reports: a change, a refused refresh, storage that failed, or a write queued or settled. */
export type AnnouncementType = 'change' | 'sessionexpired' | 'storageunavailable' | 'writequeued' | 'writesettled';

const ANNOUNCEMENT_TYPES: readonly unknown[] = ['change', 'sessionexpired', 'storageunavailable', 'writequeued', 'writesettled'] satisfies AnnouncementType[];

/** A state change, announced on the base URL's broadcast channel. */
export interface Announcement {
  tag: typeof MESSAGE_TAG;
  v: typeof PROTOCOL_VERSION;
  type: AnnouncementType;
  baseUrl: string;
  /** Unique per change, so a page that also got the change in a reply dispatches it once. */
  id: string;
  state: AuthState;
  /** Why part of an action failed although the action stood (e.g. a cart association at login). */
  warning?: SerializedError;
  /** The write a `writequeued` or `writesettled` announcement is about. */
  write?: WriteQueued | WriteSettled;
}

/** The broadcast channel that announcements for a base URL travel on. */
export function channelName(baseUrl: string): string {
  return `${MESSAGE_TAG}:${baseUrl}`;
}

const REQUEST_TYPES: ReadonlySet<string> = new Set<WorkerRequestType>(['getState', 'login', 'logout', 'createCart', 'claim', 'online']);

/** What the worker makes of an incoming message. */
export type ParsedRequest =
  | { kind: 'request'; request: WorkerRequest }
  | { kind: 'invalid'; error: SerializedError }
  | { kind: 'ignore' };

/**
 * Checks a message against the protocol. Messages without our tag, or for another base URL, are
 * not ours to answer (`ignore`); ours that are malformed get an error reply rather than a crash.
 */
export function parseWorkerRequest(data: unknown, baseUrl: string): ParsedRequest {
  if (!isRecord(data) || data['tag'] !== MESSAGE_TAG) return { kind: 'ignore' };
  if (data['v'] !== PROTOCOL_VERSION) {
    return invalid(
      DEBUG_BUILD
        ? `Protocol version ${describe(data['v'])} is unsupported (this worker speaks version ${PROTOCOL_VERSION}); load the bridge and the worker from one release.`
        : `version ${String(data['v'])}`,
    );
  }
  if (typeof data['baseUrl'] !== 'string') return invalid(DEBUG_BUILD ? 'The message has no baseUrl.' : 'baseUrl');
  if (data['baseUrl'] !== baseUrl) return { kind: 'ignore' };
  const type = data['type'];
  if (typeof type !== 'string' || !REQUEST_TYPES.has(type)) {
    return invalid(DEBUG_BUILD ? `Unknown message type ${describe(type)}; expected one of ${[...REQUEST_TYPES].join(', ')}.` : `type ${String(type)}`);
  }
  // A login carries its username and password; the other requests, nothing beyond the envelope.
  const fields = type === 'login' ? loginFields(data) : {};
  if (fields === null) return invalid(LOGIN_NEEDS);
  return { kind: 'request', request: { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, baseUrl, type, ...fields } as WorkerRequest };
}

/**
 * Names a value from a message in an error, whatever it is (a BigInt has no JSON, a Symbol no
 * template). The production worker says `String(value)`; where that throws (a cloned object whose
 * own `toString` is no function), the listener's guard answers `unreadable` (messageListener.ts).
 */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  return ['number', 'boolean', 'undefined'].includes(typeof value) || value === null ? String(value) : `a value of type ${typeof value}`;
}

/** Why a login is refused before it is sent, by the bridge and by the worker alike. */
export const LOGIN_NEEDS = 'login needs a non-empty username and password.';

/** A login's username and password, or `null` unless both are non-empty strings (the username not blank). */
export function loginFields(value: unknown): { username: string; password: string } | null {
  if (!isRecord(value)) return null;
  const { username, password } = value;
  return typeof username === 'string' && username.trim() !== '' && typeof password === 'string' && password !== '' ? { username, password } : null;
}

/** Checks a reply on the page side; anything else is a broken worker. */
export function isWorkerReply(data: unknown): data is WorkerReply {
  if (!isOurs(data)) return false;
  // A change's id, or null; a warning, if any, an error as the worker serialises one.
  if (data['ok'] === true) return isAuthState(data['state']) && (data['changeId'] === null || typeof data['changeId'] === 'string') && (data['warning'] === undefined || isErrorShape(data['warning']));
  return data['ok'] === false && isErrorShape(data['error']);
}

/** A serialised error (errors.ts `serializeError`): its code and message. */
function isErrorShape(value: unknown): value is SerializedError {
  return isRecord(value) && typeof value['code'] === 'string' && typeof value['message'] === 'string';
}

/** Checks an announcement on the page side. */
export function isAnnouncement(data: unknown, baseUrl: string): data is Announcement {
  return (
    isOurs(data) &&
    data['baseUrl'] === baseUrl &&
    ANNOUNCEMENT_TYPES.includes(data['type']) &&
    typeof data['id'] === 'string' &&
    isAuthState(data['state']) &&
    (data['type'] === 'writequeued' ? isWriteQueued(data['write']) : data['type'] === 'writesettled' ? isWriteSettled(data['write']) : true)
  );
}

function isAuthState(value: unknown): value is AuthState {
  if (!isRecord(value) || typeof value['signedIn'] !== 'boolean') return false;
  const expiresAt = value['accessTokenExpiresAt'];
  const cart = value['cart'];
  // A worker of an earlier release sends no `pendingWrites`: none of its writes are queued.
  const pending = value['pendingWrites'];
  return (
    (expiresAt === null || typeof expiresAt === 'number') &&
    (cart === null || (isRecord(cart) && typeof cart['number'] === 'string')) &&
    (pending === undefined || typeof pending === 'number')
  );
}

/** True for a message of this protocol and version. */
function isOurs(data: unknown): data is Record<string, unknown> {
  return isRecord(data) && data['tag'] === MESSAGE_TAG && data['v'] === PROTOCOL_VERSION;
}

function invalid(message: string): ParsedRequest {
  return { kind: 'invalid', error: { code: 'invalid_request', message } };
}

/** True for a plain object whose fields may be read by name. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
