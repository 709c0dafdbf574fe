/** The property names build.mjs mangles in the production worker (workerInternal.mjs says which may be). */
export const WORKER_INTERNAL: readonly string[];
