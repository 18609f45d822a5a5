import type { Slot } from '../../domain/slots.js';
import type { Queryable } from '../pool.js';
import { loadChunks, QUESTION_SQL, type ChunkRow } from './recall.js';
import { chunkConditions, memoryConditions, Params, where, type RecallScope } from './recall-filters.js';

export interface EventMemory {
  event_id: string;
  memory_id: string;
  status: string;
  content: string;
  /** When it stopped holding (its successor's valid_from), or null. */
  superseded_at: Date | null;
  /** The active end of its version chain (itself when active; null when the chain ends in a deleted or archived row). */
  head_id: string | null;
  /** Made by a correction (PATCH) rather than extracted from the event's words. */
  corrected: boolean;
  /** What it states a value of (src/domain/slots.ts), or null. */
  slot: Slot | null;
  /**
   * A memory of the turn this assistant turn answers, not of the event itself: an assistant turn
   * that made no memory of its own gets the memories of the session's previous (non-assistant)
   * turn, since an acknowledgement ("Noted: standup at 9:30") repeats what it answers. The caller
   * decides whether the words really repeat it.
   */
  echo: boolean;
}

/** Versions followed from a superseded memory to its current one, at most. */
const CHAIN_DEPTH = 20;

/**
 * The memories each event supports (provenance), with their status and the current head of their
 * version chain: what recall needs to tell whether a chunk's statements still hold. One statement;
 * reads provenance by event through its index, then walks superseded_by.
 */
export async function memoriesOfEvents(tx: Queryable, eventIds: string[]): Promise<EventMemory[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await tx.query<EventMemory>(
    `WITH RECURSIVE echo AS (
       -- An assistant turn without memories of its own, and the turn before it in its session.
       SELECT e.id AS event_id, prev.id AS from_event
       FROM events e
       CROSS JOIN LATERAL (
         SELECT p.id, p.role FROM events p
         WHERE p.session_id = e.session_id AND p.user_id IS NOT DISTINCT FROM e.user_id AND p.dataset = e.dataset AND p.seq < e.seq
         ORDER BY p.seq DESC LIMIT 1) prev
       WHERE e.id = ANY($1::uuid[]) AND e.role = 'assistant' AND e.session_id IS NOT NULL AND prev.role IS DISTINCT FROM 'assistant'
         AND NOT EXISTS (SELECT 1 FROM provenance o WHERE o.object_type = 'memory' AND o.event_id = e.id)),
     src AS (
       SELECT id AS event_id, id AS from_event, false AS echo FROM unnest($1::uuid[]) id
       UNION ALL
       SELECT event_id, from_event, true FROM echo),
     ev AS MATERIALIZED (
       SELECT s.event_id, s.echo, m.id AS memory_id, m.status, m.content, m.superseded_at, m.superseded_by, m.slot,
              -- A later version of a memory of this same event was made from it, not from the event's
              -- words: a correction (PATCH copies the provenance). Read from the data, so it survives export.
              m.version > 1 AND EXISTS (SELECT 1 FROM memories o JOIN provenance po ON po.object_type = 'memory' AND po.object_id = o.id AND po.event_id = p.event_id
                      WHERE o.superseded_by = m.id) AS corrected
       FROM src s JOIN provenance p ON p.object_type = 'memory' AND p.event_id = s.from_event JOIN memories m ON m.id = p.object_id),
     walk(start, id, status, next, depth) AS (
       SELECT e.memory_id, m.id, m.status, m.superseded_by, 0 FROM ev e JOIN memories m ON m.id = e.superseded_by WHERE e.status = 'superseded'
       UNION ALL
       SELECT w.start, m.id, m.status, m.superseded_by, w.depth + 1 FROM walk w JOIN memories m ON m.id = w.next
       WHERE w.status = 'superseded' AND w.depth < ${CHAIN_DEPTH})
     SELECT e.event_id, e.echo, e.memory_id, e.status, e.content, e.superseded_at, e.corrected, e.slot,
            CASE WHEN e.status = 'active' THEN e.memory_id
                 ELSE (SELECT w.id FROM walk w WHERE w.start = e.memory_id AND w.status = 'active' ORDER BY w.depth DESC LIMIT 1) END AS head_id
     FROM ev e`,
    [eventIds],
  );
  return rows;
}

/**
 * The chunks that state each memory: the chunks of its source events (provenance) within the
 * recall's scope. Returns them loaded as recall loads chunks, each with the memory it states.
 */
export async function chunksOfMemories(tx: Queryable, memoryIds: string[], scope: RecallScope): Promise<Array<{ memory_id: string; chunk: ChunkRow }>> {
  if (memoryIds.length === 0) return [];
  const p = new Params();
  const ids = p.add(memoryIds);
  const { rows } = await tx.query<{ memory_id: string; chunk_id: string }>(
    `SELECT DISTINCT p.object_id AS memory_id, c.id AS chunk_id
     FROM provenance p JOIN chunks c ON c.event_id = p.event_id
     WHERE p.object_type = 'memory' AND p.object_id = ANY(${ids}::uuid[]) AND ${where(chunkConditions(scope, p))}`,
    p.values,
  );
  const chunks = new Map((await loadChunks(tx, [...new Set(rows.map((r) => r.chunk_id))])).map((c) => [c.id, c]));
  return rows.flatMap((r) => {
    const chunk = chunks.get(r.chunk_id);
    return chunk ? [{ memory_id: r.memory_id, chunk }] : [];
  });
}

/** The supporting events of memories (provenance), as (memory, event) pairs. */
export async function eventsOfMemories(tx: Queryable, memoryIds: string[]): Promise<Array<{ memory_id: string; event_id: string }>> {
  if (memoryIds.length === 0) return [];
  const { rows } = await tx.query<{ memory_id: string; event_id: string }>(
    `SELECT object_id AS memory_id, event_id FROM provenance WHERE object_type = 'memory' AND object_id = ANY($1::uuid[])`,
    [memoryIds],
  );
  return rows;
}

/** A (chunk, memory) pair of currentMemoriesOfChunks. */
export interface ChunkMemory {
  chunk_id: string;
  memory_id: string;
  restates: boolean;
}

/**
 * The memories the given chunks are evidence of (provenance by the chunk's event) as they hold
 * now: a superseded memory is followed along superseded_by to the current version of its chain
 * (at most CHAIN_DEPTH versions), as a stale chunk brings in the statement that replaced it in
 * `chunks` mode; an assistant turn that made no memory of its own and asks nothing stands for the
 * turn it answers ("Understood: code hosting is GitHub now"). One that asks ("Noted. When do you
 * ship?") does not: its words are the next question, not a repetition of the turn before. Only
 * memories within the recall's memory scope are returned; a chain that ends in a deleted or
 * archived version gives none. (chunk, memory) pairs, one statement, each saying whether the
 * chunk `restates` the memory: it is an assistant turn that repeats a memory stated before it (it
 * stands for the turn it answers, or the memory has an earlier source event: "Noted: Redis for
 * caching, releases on Tuesday" confirms "our service caches with Redis").
 */
export async function currentMemoriesOfChunks(tx: Queryable, chunkIds: string[], scope: RecallScope): Promise<ChunkMemory[]> {
  if (chunkIds.length === 0) return [];
  const p = new Params();
  const ids = p.add(chunkIds);
  const { rows } = await tx.query<ChunkMemory>(
    `WITH RECURSIVE src AS (
       SELECT c.id AS chunk_id, c.event_id FROM chunks c WHERE c.id = ANY(${ids}::uuid[])
       UNION ALL
       -- An assistant turn without memories of its own that asks nothing stands for the turn it answers (as in memoriesOfEvents).
       SELECT c.id, prev.id
       FROM chunks c JOIN events e ON e.id = c.event_id
       CROSS JOIN LATERAL (
         SELECT q.id, q.role FROM events q
         WHERE q.session_id = e.session_id AND q.user_id IS NOT DISTINCT FROM e.user_id AND q.dataset = e.dataset AND q.seq < e.seq
         ORDER BY q.seq DESC LIMIT 1) prev
       WHERE c.id = ANY(${ids}::uuid[]) AND e.role = 'assistant' AND e.session_id IS NOT NULL AND prev.role IS DISTINCT FROM 'assistant'
         AND c.content !~ ${p.add(QUESTION_SQL)}
         AND NOT EXISTS (SELECT 1 FROM provenance o WHERE o.object_type = 'memory' AND o.event_id = e.id)),
     walk(chunk_id, id, status, next, depth, restates) AS (
       SELECT s.chunk_id, m.id, m.status, m.superseded_by, 0,
              ce.role IS NOT DISTINCT FROM 'assistant' AND (s.event_id <> c.event_id OR EXISTS (
                SELECT 1 FROM provenance o JOIN events oe ON oe.id = o.event_id
                WHERE o.object_type = 'memory' AND o.object_id = m.id AND oe.occurred_at < ce.occurred_at))
       FROM src s JOIN chunks c ON c.id = s.chunk_id JOIN events ce ON ce.id = c.event_id
       JOIN provenance p ON p.object_type = 'memory' AND p.event_id = s.event_id JOIN memories m ON m.id = p.object_id
       UNION ALL
       SELECT w.chunk_id, m.id, m.status, m.superseded_by, w.depth + 1, w.restates FROM walk w JOIN memories m ON m.id = w.next
       WHERE w.status = 'superseded' AND w.depth < ${CHAIN_DEPTH})
     SELECT w.chunk_id, w.id AS memory_id, bool_or(w.restates) AS restates FROM walk w JOIN memories m ON m.id = w.id
     WHERE w.status <> 'superseded' AND ${where(memoryConditions(scope, p))} GROUP BY 1, 2`,
    p.values,
  );
  return rows;
}

/**
 * The query lexemes (`lexemes`, synonyms included) each memory's key holds: which of a chunk's
 * matched words a memory of that chunk states itself (src/recall/evidence.ts). One statement,
 * the keys read by primary key; (memory, lexeme) pairs.
 */
export async function memoryKeyTerms(tx: Queryable, memoryIds: string[], lexemes: string[]): Promise<Array<{ id: string; term: string }>> {
  if (memoryIds.length === 0 || lexemes.length === 0) return [];
  const { rows } = await tx.query<{ id: string; term: string }>(
    `SELECT m.id, u.lexeme AS term
     FROM memories m, unnest(ts_delete(m.fts, tsvector_to_array(ts_delete(m.fts, $2::text[])))) u
     WHERE m.id = ANY($1::uuid[])`,
    [memoryIds, lexemes],
  );
  return rows;
}
