import type { Queryable } from '../pool.js';
import { fromVectorSql, toVectorSql } from './vector.js';

/** Cached vectors by (model, sha256 of text) for the current tenant. */
export async function getCachedVectors(tx: Queryable, model: string, hashes: string[]): Promise<Map<string, number[]>> {
  if (hashes.length === 0) return new Map();
  const { rows } = await tx.query<{ text_hash: string; embedding: string }>(
    'SELECT text_hash, embedding::text AS embedding FROM embedding_cache WHERE model = $1 AND text_hash = ANY($2::text[])',
    [model, hashes],
  );
  return new Map(rows.map((r) => [r.text_hash, fromVectorSql(r.embedding)]));
}

/** Stores vectors; idempotent (a concurrent writer of the same text wins, same vector anyway). */
export async function putCachedVectors(tx: Queryable, model: string, entries: Array<{ hash: string; vector: number[] }>): Promise<void> {
  if (entries.length === 0) return;
  await tx.query(
    `INSERT INTO embedding_cache (model, text_hash, dims, embedding)
     SELECT $1, h, $2, e::vector FROM jsonb_to_recordset($3::jsonb) AS x(h text, e text)
     ON CONFLICT DO NOTHING`,
    [model, entries[0]?.vector.length ?? 0, JSON.stringify(entries.map((e) => ({ h: e.hash, e: toVectorSql(e.vector) })))],
  );
}
