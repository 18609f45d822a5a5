/**
 * Hard deletion following provenance (docs/architecture.md, "Storage and data model": forget is a DELETE of the row and its vector; a
 * shared object survives while another event still supports it). Every function runs inside the
 * caller's withTenant transaction, so row-level security scopes it to one tenant and a forget is
 * all or nothing. Each is idempotent: a second run finds nothing to delete.
 */
import type { Queryable } from '../pool.js';

export type ScopeKey = 'event_id' | 'session_id' | 'user_id' | 'dataset';

/** Scope key → events column; a fixed whitelist, the only text spliced into SQL here. */
const SCOPE_COLUMN: Record<ScopeKey, string> = { event_id: 'id', session_id: 'session_id', user_id: 'user_id', dataset: 'dataset' };

export interface ScopeEvents {
  ids: string[];
  /** Extraction keys of those events (to spot queued extract jobs that have nothing left). */
  extractKeys: string[];
  /** Earliest receive time among them (bounds the llm_cache purge). */
  minReceivedAt: Date | null;
  /** Their user scopes ('' for events without a user): whose working memory may change. */
  users: string[];
}

/** One forget scope: an events column and its value; a session may be narrowed to its user. */
export interface EventScope {
  key: ScopeKey;
  value: string;
  /** With key session_id: only that user's session (a session is identified within its user). */
  userId?: string | undefined;
}

type ScopeRow = { id: string; extract_key: string | null; received_at: Date; user_key: string };

/** The first `limit` events of one scope, locked so a concurrent stage cannot move them while we delete. */
export async function scopeEvents(tx: Queryable, scope: EventScope, limit: number): Promise<ScopeEvents> {
  const byUser = scope.key === 'session_id' && scope.userId !== undefined;
  const { rows } = await tx.query<ScopeRow>(
    `SELECT id, extract_key, received_at, coalesce(user_id, '') AS user_key FROM events
     WHERE ${SCOPE_COLUMN[scope.key]} = $1 ${byUser ? 'AND user_id = $3' : ''} ORDER BY seq LIMIT $2 FOR UPDATE`,
    byUser ? [scope.value, limit, scope.userId] : [scope.value, limit],
  );
  return toScopeEvents(rows);
}

/** How many user scopes ('' counting as one) have events in a session of this id. */
export async function sessionUserCount(tx: Queryable, sessionId: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(`SELECT count(DISTINCT coalesce(user_id, ''))::int AS n FROM events WHERE session_id = $1`, [sessionId]);
  return rows[0]?.n ?? 0;
}

function toScopeEvents(rows: ScopeRow[]): ScopeEvents {
  const times = rows.map((r) => r.received_at.getTime());
  return {
    ids: rows.map((r) => r.id),
    extractKeys: [...new Set(rows.map((r) => r.extract_key).filter((k): k is string => k !== null))],
    minReceivedAt: times.length > 0 ? new Date(Math.min(...times)) : null,
    users: [...new Set(rows.map((r) => r.user_key))],
  };
}

/**
 * The `feedback` events that quote these events: a positive feedback's event is the recall's
 * question plus the text of what it returned (src/memories/feedback.ts), so when a returned memory
 * has provenance from one of `eventIds`, or a returned chunk belongs to one, that event carries
 * their words and is forgotten with them. Conservative: one quoted result suffices, even when
 * another event also supports that memory. Locked like scopeEvents; `eventIds` themselves are
 * excluded. Call before the events are deleted (their chunks and provenance go by cascade).
 */
export async function feedbackEventsQuoting(tx: Queryable, eventIds: string[]): Promise<ScopeEvents> {
  const { rows } = await tx.query<ScopeRow>(
    `SELECT ev.id, ev.extract_key, ev.received_at, coalesce(ev.user_id, '') AS user_key FROM events ev
     WHERE NOT ev.id = ANY($1::uuid[]) AND ev.id IN (
       SELECT f.event_id FROM feedback f JOIN recall_log r ON r.id = f.recall_id
       WHERE f.event_id IS NOT NULL
         AND (EXISTS (SELECT 1 FROM provenance p WHERE p.object_type = 'memory' AND p.object_id = ANY(r.result_ids) AND p.event_id = ANY($1::uuid[]))
           OR EXISTS (SELECT 1 FROM chunks c WHERE c.id = ANY(r.result_ids) AND c.event_id = ANY($1::uuid[]))))
     ORDER BY ev.seq FOR UPDATE`,
    [eventIds],
  );
  return toScopeEvents(rows);
}

/**
 * The `feedback` events whose recall returned one of these memories: such an event carries the
 * memory's words (src/memories/feedback.ts), so deleting the memory deletes it too. Locked like
 * scopeEvents. Call before the memories are deleted.
 */
export async function feedbackEventsQuotingMemories(tx: Queryable, memoryIds: string[]): Promise<ScopeEvents> {
  const { rows } = await tx.query<ScopeRow>(
    `SELECT ev.id, ev.extract_key, ev.received_at, coalesce(ev.user_id, '') AS user_key FROM events ev
     WHERE ev.id IN (SELECT f.event_id FROM feedback f JOIN recall_log r ON r.id = f.recall_id
                     WHERE f.event_id IS NOT NULL AND r.result_ids && $1::uuid[])
     ORDER BY ev.seq FOR UPDATE`,
    [memoryIds],
  );
  return toScopeEvents(rows);
}

export interface ObjectIds {
  memory: string[];
  entity: string[];
  edge: string[];
  relation: string[];
}

/** Objects the events support (the only ones a forget can orphan) and how many provenance rows link them. */
export async function supportedBy(tx: Queryable, eventIds: string[]): Promise<{ objects: ObjectIds; provenanceRows: number }> {
  const { rows } = await tx.query<{ object_type: keyof ObjectIds; ids: string[]; links: number }>(
    `SELECT object_type, array_agg(DISTINCT object_id) AS ids, count(*)::int AS links FROM provenance
     WHERE event_id = ANY($1::uuid[]) GROUP BY object_type`,
    [eventIds],
  );
  const objects: ObjectIds = { memory: [], entity: [], edge: [], relation: [] };
  for (const r of rows) objects[r.object_type] = r.ids;
  return { objects, provenanceRows: rows.reduce((n, r) => n + r.links, 0) };
}

/**
 * Entities whose description was written by these events: the description is set when the entity
 * is created (later extractions only fill an empty one), and the creating transaction stamps the
 * entity and its first provenance rows with the same now(). Call before the events are deleted.
 */
export async function entitiesDescribedBy(tx: Queryable, eventIds: string[]): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT DISTINCT e.id FROM entities e JOIN provenance p ON p.object_type = 'entity' AND p.object_id = e.id
     WHERE p.event_id = ANY($1::uuid[]) AND p.created_at = e.created_at AND e.description <> ''`,
    [eventIds],
  );
  return rows.map((r) => r.id);
}

/** Deletes the events; chunks (with their vectors) and the events' provenance rows go by cascade. */
export async function deleteEvents(tx: Queryable, ids: string[]): Promise<{ events: number; chunks: number; vectors: number; chunkHashes: string[] }> {
  const { rows } = await tx.query<{ chunks: number; vectors: number; hashes: string[] | null }>(
    `SELECT count(*)::int AS chunks, count(embedding)::int AS vectors, array_agg(DISTINCT content_hash) AS hashes
     FROM chunks WHERE event_id = ANY($1::uuid[])`,
    [ids],
  );
  const { rowCount } = await tx.query('DELETE FROM events WHERE id = ANY($1::uuid[])', [ids]);
  const c = rows[0] as { chunks: number; vectors: number; hashes: string[] | null };
  return { events: rowCount ?? 0, chunks: c.chunks, vectors: c.vectors, chunkHashes: c.hashes ?? [] };
}

/** Those of `ids` with no provenance row left. */
export async function withoutProvenance(tx: Queryable, type: keyof ObjectIds, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM unnest($2::uuid[]) AS id WHERE NOT EXISTS (SELECT 1 FROM provenance p WHERE p.object_type = $1 AND p.object_id = id)`,
    [type, ids],
  );
  return rows.map((r) => r.id);
}

export interface Removed {
  rows: number;
  provenance: number;
  vectors: number;
  /** Texts that had their own embedding_cache entry (memory content, entity name). */
  texts: string[];
}

/** Deletes relations (memory ↔ memory) and their provenance. */
export async function deleteRelations(tx: Queryable, ids: string[]): Promise<Removed> {
  if (ids.length === 0) return { rows: 0, provenance: 0, vectors: 0, texts: [] };
  const { rowCount } = await tx.query('DELETE FROM memory_relations WHERE id = ANY($1::uuid[])', [ids]);
  const prov = await tx.query(`DELETE FROM provenance WHERE object_type = 'relation' AND object_id = ANY($1::uuid[])`, [ids]);
  return { rows: rowCount ?? 0, provenance: prov.rowCount ?? 0, vectors: 0, texts: [] };
}

/** Deletes edges and their provenance. */
export async function deleteEdges(tx: Queryable, ids: string[]): Promise<Removed> {
  if (ids.length === 0) return { rows: 0, provenance: 0, vectors: 0, texts: [] };
  const { rowCount } = await tx.query('DELETE FROM edges WHERE id = ANY($1::uuid[])', [ids]);
  const prov = await tx.query(`DELETE FROM provenance WHERE object_type = 'edge' AND object_id = ANY($1::uuid[])`, [ids]);
  return { rows: rowCount ?? 0, provenance: prov.rowCount ?? 0, vectors: 0, texts: [] };
}

export interface RemovedMemories extends Removed {
  relations: Removed;
  /** User scopes ('' for none) of the deleted memories: whose working memory changes. */
  users: string[];
  /** Predecessors made current again. */
  reactivated: string[];
}

/**
 * Deletes memories with their vectors, provenance, memory_entities and relations (the last two
 * by cascade; the relations' provenance explicitly). A memory that superseded an older version
 * which survives makes that version current again (status 'active', superseded_by NULL): the
 * correction it carried is gone, so what was known before it is what memory says now. A
 * predecessor whose content is already active again in the same user scope stays superseded (the
 * unique active-content key would refuse it, and the active copy says the same).
 */
export async function deleteMemories(tx: Queryable, ids: string[]): Promise<RemovedMemories> {
  const none = { rows: 0, provenance: 0, vectors: 0, texts: [] };
  if (ids.length === 0) return { ...none, relations: none, reactivated: [], users: [] };
  const { rows: preds } = await tx.query<{ id: string }>(
    `SELECT id FROM memories WHERE superseded_by = ANY($1::uuid[]) AND status = 'superseded' AND NOT id = ANY($1::uuid[])`,
    [ids],
  );
  const { rows: rels } = await tx.query<{ id: string }>(
    'SELECT id FROM memory_relations WHERE from_memory_id = ANY($1::uuid[]) OR to_memory_id = ANY($1::uuid[])',
    [ids],
  );
  const relations = await deleteRelations(
    tx,
    rels.map((r) => r.id),
  );
  const { rows: gone } = await tx.query<{ content: string; has_vector: boolean; user_key: string }>(
    `DELETE FROM memories WHERE id = ANY($1::uuid[]) RETURNING content, embedding IS NOT NULL AS has_vector, coalesce(user_id, '') AS user_key`,
    [ids],
  );
  const prov = await tx.query(`DELETE FROM provenance WHERE object_type = 'memory' AND object_id = ANY($1::uuid[])`, [ids]);
  const { rows: back } = await tx.query<{ id: string }>(
    `WITH cand AS (
       SELECT DISTINCT ON (coalesce(m.user_id, ''), m.content_hash) m.id FROM memories m
       WHERE m.id = ANY($1::uuid[]) AND m.status = 'superseded'
         AND NOT EXISTS (SELECT 1 FROM memories a WHERE a.status = 'active' AND coalesce(a.user_id, '') = coalesce(m.user_id, '') AND a.content_hash = m.content_hash)
       ORDER BY coalesce(m.user_id, ''), m.content_hash, m.valid_from DESC)
     UPDATE memories m SET status = 'active', superseded_by = NULL, superseded_at = NULL, updated_at = now()
     FROM cand WHERE m.id = cand.id RETURNING m.id`,
    [preds.map((p) => p.id)],
  );
  return {
    rows: gone.length,
    provenance: prov.rowCount ?? 0,
    vectors: gone.filter((g) => g.has_vector).length,
    texts: gone.map((g) => g.content),
    relations,
    reactivated: back.map((b) => b.id),
    users: [...new Set(gone.map((g) => g.user_key))],
  };
}

/** Deletes entities with their vectors and provenance; their edges (and the edges' provenance) go too. */
export async function deleteEntities(tx: Queryable, ids: string[]): Promise<Removed & { edges: Removed }> {
  const none = { rows: 0, provenance: 0, vectors: 0, texts: [] };
  if (ids.length === 0) return { ...none, edges: none };
  const { rows: touching } = await tx.query<{ id: string }>(
    'SELECT id FROM edges WHERE source_entity_id = ANY($1::uuid[]) OR target_entity_id = ANY($1::uuid[])',
    [ids],
  );
  const edges = await deleteEdges(
    tx,
    touching.map((e) => e.id),
  );
  const { rows: gone } = await tx.query<{ name: string; has_vector: boolean }>(
    'DELETE FROM entities WHERE id = ANY($1::uuid[]) RETURNING name, embedding IS NOT NULL AS has_vector',
    [ids],
  );
  const prov = await tx.query(`DELETE FROM provenance WHERE object_type = 'entity' AND object_id = ANY($1::uuid[])`, [ids]);
  return { rows: gone.length, provenance: prov.rowCount ?? 0, vectors: gone.filter((g) => g.has_vector).length, texts: gone.map((g) => g.name), edges };
}

/**
 * Of `ids` (surviving entities described by forgotten events), those whose description no
 * remaining support explains: no provenance row from the creating transaction is left, and no
 * remaining supporting event's content contains the description. The caller clears them.
 */
export async function staleDescriptions(tx: Queryable, ids: string[]): Promise<Array<{ id: string; name: string }>> {
  if (ids.length === 0) return [];
  const { rows } = await tx.query<{ id: string; name: string }>(
    `SELECT e.id, e.name FROM entities e
     WHERE e.id = ANY($1::uuid[]) AND e.description <> ''
       AND NOT EXISTS (SELECT 1 FROM provenance p WHERE p.object_type = 'entity' AND p.object_id = e.id AND p.created_at = e.created_at)
       AND NOT EXISTS (SELECT 1 FROM provenance p JOIN events ev ON ev.id = p.event_id
                       WHERE p.object_type = 'entity' AND p.object_id = e.id AND strpos(lower(ev.content), lower(e.description)) > 0)`,
    [ids],
  );
  return rows;
}

/** Clears descriptions; `ftsDoc` is the entity's full-text document without the description. */
export async function clearDescriptions(tx: Queryable, rows: Array<{ id: string; ftsDoc: string }>): Promise<number> {
  if (rows.length === 0) return 0;
  const { rowCount } = await tx.query(
    `UPDATE entities e SET description = '', fts = to_tsvector('simple', x.f), updated_at = now()
     FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, f text) WHERE e.id = x.id`,
    [JSON.stringify(rows.map((r) => ({ id: r.id, f: r.ftsDoc })))],
  );
  return rowCount ?? 0;
}

/** sha256(text) in SQL, the same hex digest as contentHash in src/domain/text.ts. */
export const SQL_TEXT_HASH = (col: string): string => `encode(sha256(convert_to(${col}, 'UTF8')), 'hex')`;

/**
 * Deletes embedding_cache entries (any model) among `hashes` whose text no remaining chunk,
 * memory or entity has: the cache is keyed by sha256 of the embedded text, and a forgotten text
 * must not survive as its vector.
 */
export async function purgeEmbeddingCache(tx: Queryable, hashes: string[]): Promise<number> {
  if (hashes.length === 0) return 0;
  const { rowCount } = await tx.query(
    `DELETE FROM embedding_cache ec WHERE ec.text_hash = ANY($1::text[])
       AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.content_hash = ec.text_hash)
       AND NOT EXISTS (SELECT 1 FROM memories m WHERE ${SQL_TEXT_HASH('m.content')} = ec.text_hash)
       AND NOT EXISTS (SELECT 1 FROM entities e WHERE ${SQL_TEXT_HASH('e.name')} = ec.text_hash)`,
    [hashes],
  );
  return rowCount ?? 0;
}

/**
 * llm_cache is keyed by a hash of its input, with no link to events, so we cannot tell which
 * answers quoted the forgotten events. Conservative: purge every answer stored since the earliest
 * forgotten event arrived (no extraction before that could have seen it). It only costs a
 * re-extraction if one of them is ever replayed.
 */
export async function purgeLlmCache(tx: Queryable, since: Date): Promise<number> {
  const { rowCount } = await tx.query('DELETE FROM llm_cache WHERE created_at >= $1', [since]);
  return rowCount ?? 0;
}

/** A forgotten user's recall questions (and, by cascade, the feedback on them). */
export async function deleteUserRecalls(tx: Queryable, userId: string): Promise<number> {
  const { rowCount } = await tx.query('DELETE FROM recall_log WHERE user_id = $1', [userId]);
  return rowCount ?? 0;
}

/** Locks one memory row; undefined when it does not exist (in this tenant). */
export async function lockMemory(tx: Queryable, id: string): Promise<{ id: string } | undefined> {
  const { rows } = await tx.query<{ id: string }>('SELECT id FROM memories WHERE id = $1 FOR UPDATE', [id]);
  return rows[0];
}

/** Those of `keys` that some remaining event still has (an extract job for them has work left). */
export async function liveExtractKeys(tx: Queryable, keys: string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const { rows } = await tx.query<{ extract_key: string }>('SELECT DISTINCT extract_key FROM events WHERE extract_key = ANY($1::text[])', [keys]);
  return rows.map((r) => r.extract_key);
}
