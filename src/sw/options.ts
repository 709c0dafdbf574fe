import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { baseUrlRefusal, mixedContentRefusal, normalizeBaseUrl, notABooleanRefusal, notAStringRefusal } from '../shared/baseUrl.js';
import { StorefrontAuthError } from '../shared/errors.js';
import { publishableKeyRefusal } from '../shared/publishableKey.js';
import type { Dialect } from './dialect.js';
import { dialectFor, isPresetName, PRESET_NAMES, type PresetName } from './presets.js';

/** What `installStorefrontAuth` and the standalone worker's URL accept. */
export interface StorefrontAuthOptions {
  /**
   * The API's base: an `http://` or `https://` URL, or a path from the site's root; may be
   * another origin and may carry a path. Default: the worker's origin.
   */
  baseUrl?: string;
  /** `store` (default), `spree` or `spree-v3`; other values are refused with `invalid_request`. */
  preset?: PresetName;
  /**
   * The Store API's publishable key (`pk_…`), required by `spree-v3` (dialects/spreeV3.ts). Trimmed; a
   * placeholder left unfilled or a key with whitespace inside is refused, whatever the preset.
   */
  publishableKey?: string;
  /** Log each decision (path, credential, refresh, capture) to the console; never a token value. */
  debug?: boolean;
  /** Replace tokens by placeholders in the responses the page reads (docs/security.md, "How sealing works"); default `true`. */
  sealTokens?: boolean;
  /** Queue the cart writes that cannot reach the server and send them when it can; default `false`. */
  offlineWrites?: boolean;
}

/** Options after validation, as the worker uses them. */
export interface ResolvedOptions {
  /** Normalised: origin plus path, no trailing slash. */
  baseUrl: string;
  /**
   * The base as a URL, for matching requests against it; `sameOrigin` when it is on the worker's own
   * origin, where a page's `no-cors` request to it gets a response the page can read.
   */
  base: { origin: string; path: string; sameOrigin: boolean };
  /** The server's wire protocol, named by the preset. */
  dialect: Dialect;
  debug: boolean;
  sealTokens: boolean;
  offlineWrites: boolean;
}

/** Validates options against the worker's own URL; throws `invalid_request` naming the bad one. */
export function resolveOptions(options: StorefrontAuthOptions, workerUrl: string): ResolvedOptions {
  // The default '/' normalises to the worker's origin.
  const baseUrl = normalizeBaseUrl(options.baseUrl ?? '/', workerUrl);
  // Named in the production build too: the developer who reads it has a setting to fix, not a bug.
  if (baseUrl === null) throw new StorefrontAuthError('invalid_request', `storefront-auth: ${baseUrlRefusal(options.baseUrl ?? '/')}`);
  const refusal = mixedContentRefusal(baseUrl, workerUrl) ?? notAStringRefusal('publishableKey', options.publishableKey) ?? notABooleanRefusal(options, 'sealTokens', 'offlineWrites', 'debug');
  if (refusal !== null) throw new StorefrontAuthError('invalid_request', `storefront-auth: ${refusal}`);
  const presetName: string = options.preset ?? 'store';
  if (!isPresetName(presetName)) {
    throw new StorefrontAuthError(
      'invalid_request',
      DEBUG_BUILD
        ? `storefront-auth: preset ${JSON.stringify(presetName)} is unknown; use one of ${PRESET_NAMES.join(', ')}.`
        : `storefront-auth: preset ${JSON.stringify(presetName)}`,
    );
  }
  const publishableKey = options.publishableKey?.trim() ?? '';
  const keyRefusal = publishableKeyRefusal(publishableKey);
  if (keyRefusal !== null) throw new StorefrontAuthError('invalid_request', `storefront-auth: ${keyRefusal}`);
  const url = new URL(baseUrl);
  return {
    baseUrl,
    base: { origin: url.origin, path: url.pathname.replace(/\/+$/, ''), sameOrigin: url.origin === new URL(workerUrl).origin },
    // The dialect checks what its server needs of the options (spree-v3: a publishable key).
    dialect: dialectFor(presetName, publishableKey),
    debug: options.debug === true,
    sealTokens: options.sealTokens !== false,
    offlineWrites: options.offlineWrites === true,
  };
}

/** Reads the standalone worker's options from its URL query (`?base=…&preset=…&key=…&debug=1&seal=0&offline=1`). */
export function optionsFromQuery(search: string): StorefrontAuthOptions {
  const params = new URLSearchParams(search);
  const options: StorefrontAuthOptions = {};
  const base = params.get('base');
  const preset = params.get('preset');
  const key = params.get('key');
  // Absent and empty alike leave the default.
  if (base) options.baseUrl = base;
  // Checked by resolveOptions, which names the valid presets when this one is not.
  if (preset) options.preset = preset as PresetName;
  if (key) options.publishableKey = key;
  if (['1', 'true'].includes(params.get('debug') ?? '')) options.debug = true;
  if (['0', 'false'].includes(params.get('seal') ?? '')) options.sealTokens = false;
  if (['1', 'true'].includes(params.get('offline') ?? '')) options.offlineWrites = true;
  return options;
}
