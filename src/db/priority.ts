import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who a database statement is for, read where the statement reaches the embedded database's
 * session queue (src/db/pglite-session-queue.ts): PGlite has one session, so when API requests and
 * background work (stages, schedules, BullMQ's own polling) both wait for it, the API goes first.
 * The API marks its requests (apps/api/server.ts); everything else is background by default.
 * The mark follows the async context: a pool connection writes its statement in the context of
 * the code that issued it, and the in-process connection hands it on in that context.
 */
export type DbPriority = 'api' | 'background';

const store = new AsyncLocalStorage<DbPriority>();

/** Runs `fn` (and everything it starts) with API priority. */
export function runAsApi<T>(fn: () => T): T {
  return store.run('api', fn);
}

export function currentPriority(): DbPriority {
  return store.getStore() ?? 'background';
}
