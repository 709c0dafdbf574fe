// Property names that build.mjs mangles in the production worker (-304 B gzip): names of its own
// objects only, each on no object that leaves the worker's code. Never a field of a stored record
// (Credentials, Session, Backoff, RefreshKey, QueuedWrite), a message or announcement (src/shared/protocol.ts,
// AuthState, SerializedError), an option (StorefrontAuthOptions), a JSON body sent or read, nor a
// name Workbox, idb or the DOM read: terser renames a listed name on every object, wherever it stands.
// These are the dialect's members, the contexts' and the decisions' fields, and the classes' public
// methods. Only property names change: `logout` and `createCart` stay message types as string values.
// A mangled name holds within one build, not across builds: a stored record's field among these would
// be written under one name and looked for, after an upgrade, under another, and the session lost. The
// build fails on a name terser keeps (a DOM name); test/workerInternal.test.ts fails on a field of the
// stored records, messages, announcements, AuthState, SerializedError and the options.
export const WORKER_INTERNAL = [
  // dialect.ts: Dialect, WireRequest (its label, path and headers are DOM names too, so left alone), PageBody
  'routePrefixes', 'cartTokenHeader', 'cartTokenWithBearer', 'cartTokenQuery', 'tokenFields', 'cartTokenField', 'refusedRefresh',
  'revocationAnswer', 'classify', 'passwordGrant', 'refreshGrant', 'judgeTokenReply', 'readTokenBody', 'sealedTokenBody',
  'pageRefreshToken', 'pageRevokedToken', 'createCart', 'readCart', 'associate', 'revoke', 'touchAfterRefresh',
  // options.ts: ResolvedOptions' own fields (not StorefrontAuthOptions')
  'base', 'dialect',
  // requestRules.ts and requestPath.ts: a decision, the page's headers, the held flags, PageSend
  'credential', 'authorization', 'orderToken', 'sealedBearer', 'sealedCart', 'hasCart', 'addedFor',
  // outbound.ts: OwnLimits, OwnReply's own fields
  'maxChars', 'budget', 'receivedAt', 'retryAfterMs',
  // sealScanner.ts: a plan's fields, the spellings' caches
  'fields', 'by', 'leads',
  // authWorker.ts: the environment and the context; AuthWorker, HeldCredentials, the refresher, the actions, the announcer
  'toPages', 'held', 'refresher', 'keeper', 'announcer', 'newKey', 'requests', 'forgetMemoryCopy', 'settleWrites',
  'current', 'invalidate', 'cleared', 'reread', 'failed', 'superseded', 'sendable', 'settled', 'retire',
  'signIn', 'keepCart', 'logout', 'announce',
  // The offline writes: the environment's and the contexts' fields, the classes' methods, the decisions' inputs
  'writes', 'known', 'nudge', 'carry', 'dropEnded', 'sendQueued', 'associated', 'requestSync', 'wakeIn',
  'lockName', 'idempotencyKeys', 'queueableWrite', 'online', 'ownCredential', 'bodyBytes', 'keyKeptApart', 'queuedAhead',
];
