import { listTenants, withTenant } from '../../src/db/pool.js';
import { foldTermDeltas } from '../../src/db/sql/bm25-fold.js';
import type { Deps } from '../../src/deps.js';

/**
 * Folds every tenant's pending term deltas, however few. The chunk stage folds them once enough
 * wait; other writers (forget, the TTL sweep, corrections, dream, import) only log theirs, and
 * keyword recall reads whatever is pending, so this keeps what it reads small between chunk jobs.
 * Runs with the requeue task (every REQUEUE_INTERVAL_MS).
 */
export async function foldAllTermDeltas(deps: Deps): Promise<number> {
  let folded = 0;
  for (const tenantId of await listTenants(deps.db)) folded += await withTenant(deps.db, tenantId, (tx) => foldTermDeltas(tx, 1));
  return folded;
}
