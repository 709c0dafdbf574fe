/** The stable codes a `StorefrontAuthError` carries (docs/behaviour.md, "When things go wrong"). */
export type StorefrontAuthErrorCode =
  | 'invalid_grant'
  | 'invalid_request'
  | 'network_error'
  | 'bad_response'
  | 'timeout'
  | 'no_service_worker'
  /** Only in a `storageunavailable` event: IndexedDB failed, credentials last until the worker stops. */
  | 'storage_unavailable';

/** The plain shape of an error as it crosses `postMessage`. */
export interface SerializedError {
  code: StorefrontAuthErrorCode;
  message: string;
  status?: number;
}

/** The one error every method rejects with; match it by `name` or `code`, never `instanceof`. */
export class StorefrontAuthError extends Error {
  override readonly name = 'StorefrontAuthError';
  readonly code: StorefrontAuthErrorCode;
  readonly status: number | undefined;

  constructor(code: StorefrontAuthErrorCode, message: string, options: { status?: number | undefined; cause?: unknown } = {}) {
    // Error takes `cause` from the options (and only when present), and ignores `status`.
    super(message, options);
    this.code = code;
    this.status = options.status;
  }
}

/**
 * Tells a `StorefrontAuthError` by its name, so that one from another realm (an iframe, another
 * copy of this library) is recognised where `instanceof` would miss it. The bridge rebuilds errors
 * from their serialized form, since a structured clone of an Error keeps neither `name` nor `code`.
 */
export function isStorefrontAuthError(error: unknown): error is StorefrontAuthError {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'StorefrontAuthError';
}

/** `error` itself when it is a `StorefrontAuthError`, else a `network_error` naming it: a request that failed unexpectedly. */
export function asStorefrontAuthError(error: unknown): StorefrontAuthError {
  return isStorefrontAuthError(error) ? error : new StorefrontAuthError('network_error', String(error));
}

/** Reduces an error to what may cross `postMessage`: no cause, since a cause may hold a response body. */
export function serializeError(error: StorefrontAuthError): SerializedError {
  const plain: SerializedError = { code: error.code, message: error.message };
  if (error.status !== undefined) plain.status = error.status;
  return plain;
}

/** The codes a method rejects with: `storage_unavailable` is an event's only. */
const REJECTION_CODES: readonly string[] = ['invalid_grant', 'invalid_request', 'network_error', 'bad_response', 'timeout', 'no_service_worker'];

/**
 * Rebuilds a `StorefrontAuthError` on the page from its serialized form. A worker of another release
 * may send a code this one does not document, or a status that is no HTTP status: the app gets a
 * `bad_response` and no status instead, as for any reply it cannot read.
 */
export function deserializeError({ code, message, status }: SerializedError): StorefrontAuthError {
  return new StorefrontAuthError(REJECTION_CODES.includes(code) ? code : 'bad_response', message, { status: Number.isInteger(status) && status! > 99 && status! < 600 ? status : undefined });
}
