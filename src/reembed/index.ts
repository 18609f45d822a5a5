import { listTenants, withTenant } from '../db/pool.js';
import { countStale, staleRows, VECTOR_TABLES, writeReembedded, type VectorTable } from '../db/sql/reembed.js';
import type { VectorSpace } from '../db/sql/vector.js';
import type { Deps } from '../deps.js';
import { embedDocuments } from '../embeddings.js';
import { runInGateScope } from '../providers/gate-scope.js';
import { forgetVectorsMissing } from '../recall/vectors-missing.js';

/** Texts per batch: one provider call (or a few, under the provider's batch size) and one transaction. */
export const REEMBED_BATCH = 256;

export interface ReembedProgress {
  tenantId: string;
  table: VectorTable;
  /** Rows of this table written so far in this run. */
  done: number;
  /** Rows of this table that had a vector of another model when the run reached the table. */
  total: number;
}

export interface ReembedOptions {
  /** Rows per batch (default REEMBED_BATCH). */
  batch?: number;
  /** At most this many batches in all (the maintenance tick runs one); default: until none is left. */
  maxBatches?: number;
  /** Only this tenant (default: every tenant). */
  tenantId?: string;
  onProgress?: (p: ReembedProgress) => void;
}

export interface ReembedResult {
  /** Rows given a vector of the configured model, per table. */
  reembedded: Record<VectorTable, number>;
  /** False when the run stopped at `maxBatches` (rows of another model may be left). */
  finished: boolean;
}

/**
 * Gives every chunk, memory and entity whose vector is of another model than the configured
 * embedder (`embedding_model`/`embedding_dims` differ) a vector of the configured one, in batches:
 * read a batch (no lock), embed it outside any transaction (through the gate and the vector
 * cache, charged to the tenant's `reembed` scope), write it in one short transaction. Each batch
 * commits, so a kill loses at most the batch in flight and a rerun continues with the rows still
 * stale; a row already re-embedded (by a concurrent run) is not written again.
 */
export async function reembed(deps: Deps, opts: ReembedOptions = {}): Promise<ReembedResult> {
  const embeddings = deps.providers.embeddings;
  const space: VectorSpace = { model: embeddings.model, dims: embeddings.dimensions };
  const batch = opts.batch ?? REEMBED_BATCH;
  const result: ReembedResult = { reembedded: { chunks: 0, memories: 0, entities: 0 }, finished: true };
  let batches = 0;
  const tenants = opts.tenantId !== undefined ? [opts.tenantId] : await listTenants(deps.db);
  for (const tenantId of tenants) {
    for (const table of VECTOR_TABLES) {
      const total = opts.onProgress ? await withTenant(deps.db, tenantId, (tx) => countStale(tx, table, space, Number.MAX_SAFE_INTEGER)) : 0;
      if (opts.onProgress && total > 0) opts.onProgress({ tenantId, table, done: 0, total });
      let done = 0;
      let after: string | null = null;
      for (;;) {
        if (opts.maxBatches !== undefined && batches >= opts.maxBatches) {
          result.finished = false;
          return done > 0 ? settled(deps, result) : result;
        }
        const rows = await withTenant(deps.db, tenantId, (tx) => staleRows(tx, table, space, batch, after));
        if (rows.length === 0) break;
        batches++;
        const vectors = await runInGateScope({ tenantId, queue: 'reembed' }, () =>
          embedDocuments(
            deps.db,
            tenantId,
            embeddings,
            rows.map((r) => r.text),
          ),
        );
        const written = await withTenant(deps.db, tenantId, (tx) =>
          writeReembedded(
            tx,
            table,
            rows.map((r, i) => ({ id: r.id, vector: vectors[i] as number[] })),
            space,
          ),
        );
        done += written;
        result.reembedded[table] += written;
        after = rows[rows.length - 1]?.id ?? null;
        opts.onProgress?.({ tenantId, table, done, total });
        if (rows.length < batch) break;
      }
    }
  }
  return settled(deps, result);
}

/**
 * After a tick that found no row of another model, the next ticks of this process skip the scans
 * (each reads every row with a vector) for this long: rows are written with the configured model
 * of the process that writes them, so only a process configured otherwise (a rolling deploy of a
 * model change) adds rows of another model, and a restart with a new model starts scanning again.
 */
export const REEMBED_CLEAN_RECHECK_MS = 3_600_000;
const cleanAt = new WeakMap<Deps, number>();

/** The scheduled `reembed` task: one batch, unless a recent tick found nothing to do. */
export async function reembedTick(deps: Deps): Promise<ReembedResult & { skipped?: true }> {
  const clean = cleanAt.get(deps);
  if (clean !== undefined && Date.now() - clean < REEMBED_CLEAN_RECHECK_MS)
    return { reembedded: { chunks: 0, memories: 0, entities: 0 }, finished: true, skipped: true };
  const result = await reembed(deps, { maxBatches: 1 });
  const n = result.reembedded.chunks + result.reembedded.memories + result.reembedded.entities;
  if (result.finished && n === 0) cleanAt.set(deps, Date.now());
  else cleanAt.delete(deps);
  return result;
}

/** Recall's cached count of rows of another model (vectors-missing.ts) is taken again after a write. */
function settled(deps: Deps, result: ReembedResult): ReembedResult {
  if (result.reembedded.chunks + result.reembedded.memories + result.reembedded.entities > 0) forgetVectorsMissing(deps);
  return result;
}
