/**
 * What a 404 or a 401 on one of the worker's own requests says about the configuration. The worker
 * builds every URL it sends from the base URL and the preset's paths, so a 404 means nothing lives
 * there: a base URL pasted with the API path (which the worker adds itself), or the wrong preset. A
 * 401 from the Store API means its publishable key was refused; the v2 servers ask no credential of
 * cart creation or their token path, so there it means another server than the preset's. The
 * message names the URL as sent (its path, never its query, which may hold a token) and the option
 * to check, in the production build too: the developer reading it has a setting to fix.
 */
import { StorefrontAuthError } from '../shared/errors.js';
import type { PresetName } from '../shared/presetName.js';
import type { WireRequest } from './dialect.js';

/** The option that a `status` answer from the preset's server points at, or `null` when the status says nothing about the settings. */
export function settingToCheck(status: number, preset: PresetName): string | null {
  if (status === 404) return 'baseUrl (the server\'s root, without the API path) and preset';
  if (status === 401) return preset === 'spree-v3' ? 'publishableKey' : 'baseUrl and preset';
  return null;
}

/**
 * The error for a `status` answer to `wire`, sent under `baseUrl`, that points at a setting, or
 * `null` when the status does not.
 */
export function wrongSetting(wire: Pick<WireRequest, 'method' | 'label'>, baseUrl: string, status: number, preset: PresetName): StorefrontAuthError | null {
  const setting = settingToCheck(status, preset);
  if (setting === null) return null;
  return new StorefrontAuthError('bad_response', `${wire.method} ${baseUrl}${wire.label} answered ${status}; check ${setting}.`, { status });
}
