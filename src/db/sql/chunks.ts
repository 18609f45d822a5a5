import type { Queryable } from '../pool.js';
import { MAX_VECTORS_PER_STATEMENT, vectorList } from './vector.js';

export interface EventToChunk {
  id: string;
  type: string;
  content: string;
  dataset: string;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  occurred_at: Date;
}

/** The `triaged` events among `ids`, read without a lock (the chunk stage chunks them outside any transaction). */
export async function eventsToChunk(tx: Queryable, ids: string[]): Promise<EventToChunk[]> {
  const { rows } = await tx.query<EventToChunk>(
    `SELECT id, type, content, dataset, user_id, agent_id, session_id, occurred_at FROM events
     WHERE id = ANY($1::uuid[]) AND status = 'triaged' ORDER BY seq`,
    [ids],
  );
  return rows;
}

/** Locks the events among `ids` that are still `triaged` (in the write transaction); returns their ids. */
export async function lockTriaged(tx: Queryable, ids: string[]): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(`SELECT id FROM events WHERE id = ANY($1::uuid[]) AND status = 'triaged' ORDER BY seq FOR UPDATE`, [ids]);
  return rows.map((r) => r.id);
}

export interface NewChunk {
  event_id: string;
  idx: number;
  content: string;
  start_offset: number;
  end_offset: number;
  tokens: number;
  content_hash: string;
  fts_doc: string;
  dataset: string;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  occurred_at: Date;
}

/**
 * Inserts chunks and moves their events to `chunked`, in the caller's transaction, then builds the
 * index keys of the new chunks and of their session neighbours (refreshChunkKeys).
 * Idempotent: UNIQUE (event_id, idx) with DO NOTHING, and only `triaged` events move.
 */
export async function insertChunks(tx: Queryable, chunks: NewChunk[], eventIds: string[], runId: string): Promise<void> {
  if (chunks.length > 0) {
    // The sessions' locks before any write (see refreshChunkKeys).
    await tx.query(
      `SELECT count(pg_advisory_xact_lock(k)) FROM (
         SELECT DISTINCT hashtextextended(concat_ws(chr(31), current_setting('app.tenant_id'), x.dataset, coalesce(x.user_id, ''), x.session_id), 727002) AS k
         FROM jsonb_to_recordset($1::jsonb) AS x(dataset text, user_id text, session_id text) WHERE x.session_id IS NOT NULL ORDER BY 1) s`,
      [JSON.stringify(chunks.map((c) => ({ dataset: c.dataset, user_id: c.user_id, session_id: c.session_id })))],
    );
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO chunks (event_id, event_seq, idx, content, start_offset, end_offset, tokens, content_hash, dataset, user_id, agent_id, session_id, occurred_at, fts, run_id)
       SELECT x.event_id, e.seq, x.idx, x.content, x.start_offset, x.end_offset, x.tokens, x.content_hash, x.dataset, x.user_id, x.agent_id, x.session_id, x.occurred_at,
              to_tsvector('simple', x.fts_doc), $2
       FROM jsonb_to_recordset($1::jsonb) AS x(event_id uuid, idx int, content text, start_offset int, end_offset int, tokens int,
            content_hash text, fts_doc text, dataset text, user_id text, agent_id text, session_id text, occurred_at timestamptz)
       JOIN events e ON e.id = x.event_id
       ON CONFLICT (event_id, idx) DO NOTHING
       RETURNING id`,
      [JSON.stringify(chunks), runId],
    );
    // New chunks have no vector yet, so their neighbours' key vectors do not change.
    await refreshChunkKeys(tx, rows.map((r) => r.id), 'fts');
  }
  await tx.query(`UPDATE events SET status = 'chunked' WHERE id = ANY($1::uuid[]) AND status = 'triaged'`, [eventIds]);
}

/**
 * Rebuilds the index keys (full text and vector) of `chunkIds` and of their neighbours in their
 * sessions (docs/recall.md "Index keys"). Takes each session's transaction-scoped lock first, in
 * its own statement, so the rebuild reads the chunks of any writer of the same session that
 * committed meanwhile: two turns written concurrently each end up in the other's key.
 * A caller that writes chunks (or, through the BM25 triggers, statistics rows) in the same
 * transaction takes the session locks before those writes: otherwise it holds rows the lock
 * holder's rebuild updates while it waits for that lock (`deadlock detected` on PostgreSQL 15,
 * server suite). The lock is re-entrant within a transaction.
 */
export async function refreshChunkKeys(tx: Queryable, chunkIds: string[], parts: 'fts' | 'vector' | 'all' = 'all'): Promise<void> {
  if (chunkIds.length === 0) return;
  await tx.query('SELECT memloom_lock_sessions($1::uuid[])', [chunkIds]);
  await tx.query('SELECT memloom_refresh_chunk_keys($1::uuid[], $2)', [chunkIds, parts]);
}

/**
 * Ids among `ids` that are `chunked` and whose chunks were written by a run of job `jobId` (or that
 * have no chunk at all, which no other job would move on), in `seq` order.
 */
export async function chunkedByJob(tx: Queryable, ids: string[], jobId: string): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT e.id FROM events e
     WHERE e.id = ANY($1::uuid[]) AND e.status = 'chunked'
       AND (EXISTS (SELECT 1 FROM chunks c JOIN pipeline_runs r ON r.id = c.run_id WHERE c.event_id = e.id AND r.job_id = $2)
            OR NOT EXISTS (SELECT 1 FROM chunks c WHERE c.event_id = e.id))
     ORDER BY e.seq`,
    [ids, jobId],
  );
  return rows.map((r) => r.id);
}

export interface ChunkToEmbed {
  id: string;
  event_id: string;
  content: string;
  content_hash: string;
}

export async function chunksWithoutVectors(tx: Queryable, eventIds: string[]): Promise<ChunkToEmbed[]> {
  const { rows } = await tx.query<ChunkToEmbed>(
    `SELECT id, event_id, content, content_hash FROM chunks WHERE event_id = ANY($1::uuid[]) AND embedding IS NULL ORDER BY event_id, idx`,
    [eventIds],
  );
  return rows;
}

/**
 * Writes own vectors (only where still missing: a concurrent replay cannot overwrite or double),
 * then the key vectors of these chunks and their neighbours (refreshChunkKeys).
 */
export async function writeChunkVectors(tx: Queryable, rows: Array<{ id: string; vector: number[] }>, model: string, dims: number): Promise<void> {
  if (rows.length === 0) return;
  // The sessions' locks before the vectors are written (see refreshChunkKeys).
  await tx.query('SELECT memloom_lock_sessions($1::uuid[])', [rows.map((r) => r.id)]);
  for (let i = 0; i < rows.length; i += MAX_VECTORS_PER_STATEMENT) {
    const slice = rows.slice(i, i + MAX_VECTORS_PER_STATEMENT);
    const params: unknown[] = [slice.map((r) => r.id), model, dims];
    const vectors = vectorList(params, slice.map((r) => r.vector));
    await tx.query(
      `UPDATE chunks c SET own_embedding = v.embedding, embedding = v.embedding, embedding_model = $2, embedding_dims = $3
       FROM unnest($1::uuid[], ${vectors}) AS v(id, embedding)
       WHERE c.id = v.id AND c.embedding IS NULL`,
      params,
    );
  }
  await refreshChunkKeys(tx, rows.map((r) => r.id), 'vector');
}
