import type { Queryable } from '../pool.js';

/**
 * Term deltas a writer lets wait before it folds them into bm25_terms (foldTermDeltas). A fold's
 * cost grows with the distinct (term, user) pairs it touches, not with the deltas, and a user's
 * consecutive turns share most of their terms (each turn's words enter four keys), so waiting
 * longer folds more deltas per upsert; but keyword recall reads every pending delta of the query's
 * scope. bench:cost (1,000 LoCoMo turns of 10 users, ~2.3 deltas per event): chosen, not fitted,
 * about 100 events of a tenant per fold; other values not measured.
 */
export const TERM_DELTAS_PER_FOLD = 256;

/**
 * Folds the tenant's pending term deltas into bm25_terms (memloom_bm25_fold, migration
 * 20261210000000_bm25_term_deltas) when at least `min` wait, in the caller's transaction; returns
 * the number folded (0 when fewer wait or another transaction is folding them). Locks: the
 * bm25_terms rows it changes, in term order, and a transaction-scoped advisory lock per tenant
 * (tried, never waited for). Idempotent: the deltas are deleted in the transaction that adds them,
 * and statistics readers add the pending ones (termWeights), so when a fold runs changes no result.
 */
export async function foldTermDeltas(tx: Queryable, min = TERM_DELTAS_PER_FOLD): Promise<number> {
  const { rows } = await tx.query<{ n: number }>('SELECT memloom_bm25_fold($1) AS n', [min]);
  return rows[0]?.n ?? 0;
}
