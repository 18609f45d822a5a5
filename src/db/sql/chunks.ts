import type { Queryable } from '../pool.js';
import { insertChunksWithKeys, lockSessionsOfRows, writeVectorsWithKeys } from './chunk-keys.js';
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
  /** `metadata.speaker` (set from a `Name: ` prefix at ingest, src/domain/speaker.ts), else `metadata.name`: the key's speaker words. */
  speaker: string | null;
}

/** The `triaged` events among `ids`, read without a lock (the chunk stage chunks them outside any transaction). */
export async function eventsToChunk(tx: Queryable, ids: string[]): Promise<EventToChunk[]> {
  const { rows } = await tx.query<EventToChunk>(
    `SELECT id, type, content, dataset, user_id, agent_id, session_id, occurred_at, coalesce(metadata->>'speaker', metadata->>'name') AS speaker FROM events
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
  /** The key's time and speaker words (metaDocument). */
  meta_doc: string;
  dataset: string;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
}

/**
 * Inserts chunks (their occurred_at is their event's, read in the statement) with their finished index keys, rewriting the keys of the existing chunks they
 * land next to, in one statement (insertChunksWithKeys) after the sessions' locks; then moves the
 * events to `chunked`, all in the caller's transaction.
 * Idempotent: existing (event_id, idx) rows are left out (UNIQUE, DO NOTHING), and only `triaged`
 * events move. Returns the number of chunks inserted.
 */
export async function insertChunks(tx: Queryable, chunks: NewChunk[], eventIds: string[], runId: string): Promise<number> {
  let inserted = 0;
  if (chunks.length > 0) {
    await lockSessionsOfRows(tx, chunks);
    inserted = await insertChunksWithKeys(tx, JSON.stringify(chunks), runId);
  }
  if (eventIds.length > 0) await tx.query(`UPDATE events SET status = 'chunked' WHERE id = ANY($1::uuid[]) AND status = 'triaged'`, [eventIds]);
  return inserted;
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
 * Ids among `ids` that are `chunked` and whose last chunk was written by a run of job `jobId` (or
 * that have no chunk at all, which no other job would move on), in `seq` order. An event written in
 * several pieces may have chunks of two overlapping jobs; its last chunk is the one written in the
 * transaction that moved it to `chunked`, so one job only moves it on.
 */
export async function chunkedByJob(tx: Queryable, ids: string[], jobId: string): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT e.id FROM events e
     WHERE e.id = ANY($1::uuid[]) AND e.status = 'chunked'
       AND (EXISTS (SELECT 1 FROM (SELECT c.run_id FROM chunks c WHERE c.event_id = e.id ORDER BY c.idx DESC LIMIT 1) l
                    JOIN pipeline_runs r ON r.id = l.run_id WHERE r.job_id = $2)
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
 * Writes own vectors (only where still missing: a concurrent replay cannot overwrite or double)
 * and the key vectors of these chunks and their neighbours: one statement (writeVectorsWithKeys)
 * after the sessions' locks; a batch larger than one statement takes two passes.
 */
export async function writeChunkVectors(tx: Queryable, rows: Array<{ id: string; vector: number[] }>, model: string, dims: number): Promise<void> {
  if (rows.length === 0) return;
  // The sessions' locks before the vectors are written (see refreshChunkKeys).
  await tx.query('SELECT memloom_lock_sessions($1::uuid[])', [rows.map((r) => r.id)]);
  if (rows.length <= MAX_VECTORS_PER_STATEMENT) {
    await writeVectorsWithKeys(tx, rows, model, dims);
    return;
  }
  for (let i = 0; i < rows.length; i += MAX_VECTORS_PER_STATEMENT) {
    const slice = rows.slice(i, i + MAX_VECTORS_PER_STATEMENT);
    const params: unknown[] = [slice.map((r) => r.id), model, dims];
    const vectors = vectorList(
      params,
      slice.map((r) => r.vector),
    );
    await tx.query(
      `UPDATE chunks c SET own_embedding = v.embedding, embedding = v.embedding, embedding_model = $2, embedding_dims = $3
       FROM unnest($1::uuid[], ${vectors}) AS v(id, embedding)
       WHERE c.id = v.id AND c.embedding IS NULL`,
      params,
    );
  }
  await refreshChunkKeys(
    tx,
    rows.map((r) => r.id),
    'vector',
  );
}
