/**
 * The drop-in, `dist/storefront-auth.js`: one classic script tag that registers the worker and
 * creates `window.storefrontAuth` from the tag's data attributes (docs/behaviour.md,
 * "Configuration").
 */
import { isStorefrontAuthError, StorefrontAuthError } from '../shared/errors.js';
import type { PresetName } from '../shared/presetName.js';
import { StorefrontAuth, type BridgeOptions } from './StorefrontAuth.js';

// Shipped as dist/storefront-auth.d.ts, so a TypeScript page that loads the drop-in gets these too.
// Each is a `var`, as a script tag's globals are: page code may write the bare name or `window.…`.
declare global {
  var storefrontAuth: StorefrontAuth;
  var StorefrontAuth: BridgeClass;
  var StorefrontAuthError: ErrorClass;
  var isStorefrontAuthError: IsError;
}
// Named apart, since a global `var StorefrontAuth` cannot have the type `typeof StorefrontAuth` in its own scope.
type BridgeClass = typeof StorefrontAuth;
type ErrorClass = typeof StorefrontAuthError;
type IsError = typeof isStorefrontAuthError;

/** The attribute of each option a configuration error names first. */
const ATTRIBUTES = { baseUrl: 'data-base-url', preset: 'data-preset', publishableKey: 'data-publishable-key', swUrl: 'data-sw', scope: 'data-scope' };

/**
 * The tag that loaded the drop-in. `currentScript` is set only while a classic script first runs,
 * which is when this reads it. A module script (`type="module"`) has none: its tag is the one script
 * named `storefront-auth.js` or carrying `data-base-url`, when one alone is; else its settings cannot
 * be told apart (undefined), and registering with the defaults could replace the site's worker.
 */
function ownTag(): HTMLScriptElement | undefined {
  const current = document.currentScript as HTMLScriptElement | null;
  if (current !== null) return current;
  const tags = [...document.querySelectorAll<HTMLScriptElement>('script[src]')].filter((tag) => /\/storefront-auth\.js(?:[?#]|$)/.test(tag.src) || tag.dataset['baseUrl'] !== undefined);
  return tags.length === 1 ? tags[0] : undefined;
}

const tag = ownTag();
const data = tag?.dataset ?? {};
const options: BridgeOptions = {};
// An attribute present but empty (a template or environment value left unset) is passed on as
// written, for the bridge to refuse as it refuses the option: taken for absent, data-base-url=""
// would quietly mean the page's origin, and every call would go to the API without credentials.
if (data['baseUrl'] !== undefined) options.baseUrl = data['baseUrl'];
// An unknown preset is passed on as written: the bridge refuses it with a message naming the valid ones.
if (data['preset'] !== undefined) options.preset = data['preset'] as PresetName;
if (data['publishableKey'] !== undefined) options.publishableKey = data['publishableKey'];
if (data['sw'] !== undefined) options.swUrl = data['sw'];
if (data['scope'] !== undefined) options.scope = data['scope'];
if (data['debug'] !== undefined && data['debug'] !== 'false') options.debug = true;
if (data['sealTokens'] === 'false') options.sealTokens = false;
if (data['offlineWrites'] !== undefined && data['offlineWrites'] !== 'false') options.offlineWrites = true;

window.StorefrontAuth = StorefrontAuth;
window.StorefrontAuthError = StorefrontAuthError;
window.isStorefrontAuthError = isStorefrontAuthError;
if (tag === undefined) console.error('storefront-auth: no script tag to read data-* settings from; load the drop-in by a classic <script src>, not type="module".');
else window.storefrontAuth = new StorefrontAuth(options);
// A configuration error (an unknown preset, a missing publishable key) is the site's to fix: say it
// where its developer looks, as well as in every method's rejection.
// Named by its attribute, as the site wrote it: `data-base-url "…"`, not the bridge's `baseUrl "…"`.
window.storefrontAuth?.ready.catch((error: unknown) => {
  if (isStorefrontAuthError(error) && error.code === 'invalid_request') console.error(`storefront-auth: ${error.message.replace(/^(baseUrl|preset|publishableKey|swUrl|scope)(?= ")/, (name) => ATTRIBUTES[name as keyof typeof ATTRIBUTES])}`);
});
