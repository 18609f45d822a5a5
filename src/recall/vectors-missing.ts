import { withTenant } from '../db/pool.js';
import { countStale } from '../db/sql/reembed.js';
import type { VectorSpace } from '../db/sql/vector.js';
import type { Deps } from '../deps.js';

/** How long one count serves the recalls of a tenant (per process) while some rows are missing. */
export const VECTORS_MISSING_TTL_MS = 60_000;
/**
 * How long a count of zero serves: rows are written with the configured model of the process that
 * writes them, so once none is of another model, only a process still configured with another
 * model (a rolling deploy) adds one; the count is a scan of the tenant's chunks and memories.
 */
export const VECTORS_COMPLETE_TTL_MS = 3_600_000;
/** The count stops here: recall reports "at least" this many rather than scanning further. */
export const VECTORS_MISSING_CAP = 10_000;

interface Entry {
  at: number;
  missing: Promise<number>;
  /** The count once known. */
  value?: number;
}

/** Per deps (so per process and per test), per tenant: the last count and when it was taken. */
const counts = new WeakMap<Deps, Map<string, Entry>>();

/**
 * Chunks and memories of the tenant whose vector is of another model than the configured one
 * (the vector retriever does not compare them until `memloom reembed` or the `reembed` task gives
 * them one), counted up to VECTORS_MISSING_CAP. Recall asks on every call, so the count is taken
 * at most once per VECTORS_MISSING_TTL_MS (VECTORS_COMPLETE_TTL_MS after a zero) per tenant and
 * process, in its own short transaction outside recall's; concurrent recalls share it. It lags a
 * reembed by up to the TTL (a reembed in this process drops it: forgetVectorsMissing).
 */
export function vectorsMissing(deps: Deps, tenantId: string, space: VectorSpace): Promise<number> {
  let byTenant = counts.get(deps);
  if (!byTenant) {
    byTenant = new Map();
    counts.set(deps, byTenant);
  }
  const now = Date.now();
  const hit = byTenant.get(tenantId);
  if (hit && now - hit.at < (hit.value === 0 ? VECTORS_COMPLETE_TTL_MS : VECTORS_MISSING_TTL_MS)) return hit.missing;
  const missing = withTenant(deps.db, tenantId, async (tx) => {
    const chunks = await countStale(tx, 'chunks', space, VECTORS_MISSING_CAP);
    return chunks + (await countStale(tx, 'memories', space, VECTORS_MISSING_CAP - chunks));
  });
  const entry: Entry = { at: now, missing };
  byTenant.set(tenantId, entry);
  missing.then(
    (n) => (entry.value = n),
    // A failed count is not kept: the next recall asks again.
    () => byTenant.delete(tenantId),
  );
  return missing;
}

/** Forgets the cached counts of `deps` (after a reembed run in this process). */
export function forgetVectorsMissing(deps: Deps): void {
  counts.delete(deps);
}
