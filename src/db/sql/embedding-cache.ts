import type { Queryable } from '../pool.js';
import { MAX_VECTORS_PER_STATEMENT, fromVectorSql, vectorList } from './vector.js';

/**
 * Cached vectors by (model, sha256 of text) for the current tenant; with `dims`, only vectors of
 * that many dimensions (one model name can serve several: EMBEDDINGS_DIMENSIONS of OpenAI's
 * text-embedding-3 models), so a changed dimension is never answered from the cache.
 */
export async function getCachedVectors(tx: Queryable, model: string, hashes: string[], dims?: number): Promise<Map<string, number[]>> {
  if (hashes.length === 0) return new Map();
  const { rows } = await tx.query<{ text_hash: string; embedding: string }>(
    'SELECT text_hash, embedding::text AS embedding FROM embedding_cache WHERE model = $1 AND text_hash = ANY($2::text[]) AND ($3::int IS NULL OR dims = $3)',
    [model, hashes, dims ?? null],
  );
  return new Map(rows.map((r) => [r.text_hash, fromVectorSql(r.embedding)]));
}

/**
 * Stores vectors; idempotent (a concurrent writer of the same text wins, same vector anyway). An
 * entry of the same model and text with other dimensions (the model's dimensions were changed) is
 * replaced.
 */
export async function putCachedVectors(tx: Queryable, model: string, entries: Array<{ hash: string; vector: number[] }>): Promise<void> {
  // In key order: concurrent writers of overlapping texts wait on each other's rows in one order.
  const sorted = [...entries].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  for (let i = 0; i < sorted.length; i += MAX_VECTORS_PER_STATEMENT) {
    const slice = sorted.slice(i, i + MAX_VECTORS_PER_STATEMENT);
    const params: unknown[] = [model, slice[0]?.vector.length ?? 0, slice.map((e) => e.hash)];
    const vectors = vectorList(
      params,
      slice.map((e) => e.vector),
    );
    await tx.query(
      `INSERT INTO embedding_cache (model, text_hash, dims, embedding)
       SELECT $1, h, $2, e FROM unnest($3::text[], ${vectors}) AS x(h, e)
       ON CONFLICT (tenant_id, model, text_hash) DO UPDATE SET dims = EXCLUDED.dims, embedding = EXCLUDED.embedding, created_at = now()
         WHERE embedding_cache.dims <> EXCLUDED.dims`,
      params,
    );
  }
}
