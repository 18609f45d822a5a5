import type { Queryable } from '../pool.js';
import { refreshChunkKeys } from './chunks.js';
import { vectorList, type VectorSpace } from './vector.js';

/** The tables whose rows carry a vector, and the text each row's vector is made from. */
export const VECTOR_TABLES = ['chunks', 'memories', 'entities'] as const;
export type VectorTable = (typeof VECTOR_TABLES)[number];
const TEXT: Record<VectorTable, string> = { chunks: 'content', memories: 'content', entities: 'name' };

/** A row whose vector is of another model than the configured one (`embedding_model` differs). */
const stale = (a = '') => `${a}embedding IS NOT NULL AND (${a}embedding_model IS DISTINCT FROM $1 OR ${a}embedding_dims IS DISTINCT FROM $2)`;

export interface StaleRow {
  id: string;
  text: string;
}

/**
 * Up to `limit` rows of `table` (the tenant's, by RLS) whose vector is not of `space`, in id order
 * after `after` (keyset paging: a run does not rescan the rows it already wrote).
 * Rows without any vector are not stale: the pipeline has not embedded them yet (the embed and
 * extract stages write them with the configured model). Reads without a lock: the write
 * (writeReembedded) only touches rows still stale, so two runs never double a row.
 */
export async function staleRows(tx: Queryable, table: VectorTable, space: VectorSpace, limit: number, after: string | null = null): Promise<StaleRow[]> {
  const { rows } = await tx.query<StaleRow>(
    `SELECT id, ${TEXT[table]} AS text FROM ${table} WHERE ${stale()} AND ($4::uuid IS NULL OR id > $4) ORDER BY id LIMIT $3`,
    [space.model, space.dims, limit, after],
  );
  return rows;
}

/** Rows of `table` with a vector of another model, counted up to `cap` (a bounded scan). */
export async function countStale(tx: Queryable, table: VectorTable, space: VectorSpace, cap: number): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table} WHERE ${stale()} LIMIT $3) s`, [
    space.model,
    space.dims,
    cap,
  ]);
  return rows[0]?.n ?? 0;
}

/**
 * Writes vectors of `space` over the rows of `rows` that are still stale; returns how many it
 * wrote. Chunks: the new vector is the chunk's own, and its key vector and its neighbours' are
 * rebuilt (memloom_refresh_chunk_keys: own + 0.5 previous + 0.3 next, neighbours of the same model
 * only), after the sessions' locks, as the embed stage's writes. Idempotent: a row already of
 * `space` is left alone, so a rerun after a kill or a concurrent run writes nothing twice.
 * At most MAX_VECTORS_PER_STATEMENT rows.
 */
export async function writeReembedded(tx: Queryable, table: VectorTable, rows: Array<{ id: string; vector: number[] }>, space: VectorSpace): Promise<number> {
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => r.id);
  if (table === 'chunks') await tx.query('SELECT memloom_lock_sessions($1::uuid[])', [ids]);
  const params: unknown[] = [space.model, space.dims, ids];
  const vectors = vectorList(
    params,
    rows.map((r) => r.vector),
  );
  const set = table === 'chunks' ? 'own_embedding = v.embedding, embedding = v.embedding' : 'embedding = v.embedding';
  const { rows: written } = await tx.query<{ id: string }>(
    `UPDATE ${table} t SET ${set}, embedding_model = $1, embedding_dims = $2
     FROM unnest($3::uuid[], ${vectors}) AS v(id, embedding)
     WHERE t.id = v.id AND ${stale('t.')}
     RETURNING t.id`,
    params,
  );
  if (table === 'chunks')
    await refreshChunkKeys(
      tx,
      written.map((r) => r.id),
      'vector',
    );
  return written.length;
}

/** Rows with a vector per table and model (GET /v1/stats `vectors`). A full count: for stats, not for recall. */
export async function vectorsByModel(tx: Queryable): Promise<Array<{ table: VectorTable; model: string; dims: number; rows: number }>> {
  const { rows } = await tx.query<{ table: VectorTable; model: string; dims: number; rows: number }>(
    VECTOR_TABLES.map(
      (t) =>
        `SELECT '${t}' AS table, coalesce(embedding_model, '') AS model, embedding_dims AS dims, count(*)::int AS rows FROM ${t} WHERE embedding IS NOT NULL GROUP BY 2, 3`,
    ).join(' UNION ALL '),
  );
  return rows;
}
