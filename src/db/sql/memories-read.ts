import type { Queryable } from '../pool.js';
import { Params, where } from './recall-filters.js';

/**
 * Read side of memories for GET /v1/memories and GET /v1/memories/:id. Every function runs inside
 * withTenant (row-level security scopes it to the tenant), takes no locks and writes nothing.
 */

export const MEMORY_STATUSES = ['active', 'superseded', 'archived'] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];

export interface MemoryListFilter {
  userId?: string | undefined;
  agentId?: string | undefined;
  sessionId?: string | undefined;
  dataset?: string | undefined;
  kinds?: string[] | undefined;
  /** One status, or every status. */
  status: MemoryStatus | 'all';
  /** Only active memories on either side of a `challenges` relation whose other side is active too. */
  conflicts: boolean;
  /** Substring of the content (case-insensitive) or all full-text tokens (see ftsQuery). */
  text?: { substring: string; terms: string[] } | undefined;
  /** Said at or after / before these times (occurred_at, ISO-8601). */
  since?: string | undefined;
  until?: string | undefined;
  /** Exclusive keyset position in the (created_at DESC, id DESC) order. */
  after?: { createdAt: string; id: string } | undefined;
  limit: number;
}

export interface MemoryItem {
  id: string;
  kind: string;
  content: string;
  status: string;
  importance: number;
  confidence: number;
  decay: number;
  access_count: number;
  is_crystal: boolean;
  version: number;
  /** When it was said: the time of its source event. */
  occurred_at: Date;
  /** The time it is about, when it names one (a deadline's day), at `time_precision`. */
  event_time: Date | null;
  time_precision: string | null;
  /** The interval it holds: from its statement to its successor's (null: still holds). */
  valid_from: Date;
  valid_to: Date | null;
  superseded_by: string | null;
  expires_at: Date | null;
  /** When memloom stored this version. */
  recorded_at: Date;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  dataset: string;
}

/** created_at with microseconds in UTC: a Date would round to milliseconds and break the keyset. */
const CURSOR_AT = `to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const ITEM_COLUMNS = `m.id, m.kind, m.content, m.status, m.importance, m.confidence, coalesce(s.decay, 1) AS decay, coalesce(s.access_count, 0) AS access_count,
  m.is_crystal, m.version, m.occurred_at, m.event_time, m.time_precision, m.valid_from, m.superseded_at AS valid_to, m.superseded_by, m.expires_at,
  m.created_at AS recorded_at, m.user_id, m.agent_id, m.session_id, m.dataset`;
/** The memory's mutable signals (no row: decay 1, never accessed). */
const WITH_SIGNALS = 'LEFT JOIN memory_signals s ON s.memory_id = m.id';

/** `%`, `_` and `\` match themselves in a LIKE pattern built from user text. */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * One page of memories, newest first, keyset-paged on (created_at, id) so concurrent inserts never
 * shift a page. Returns up to `limit + 1` rows: the extra row only tells the caller a next page exists.
 */
export async function listMemories(tx: Queryable, f: MemoryListFilter): Promise<Array<MemoryItem & { cursor_at: string }>> {
  const p = new Params();
  const c: string[] = [];
  if (f.userId !== undefined) c.push(`m.user_id = ${p.add(f.userId)}`);
  if (f.agentId !== undefined) c.push(`m.agent_id = ${p.add(f.agentId)}`);
  if (f.sessionId !== undefined) c.push(`m.session_id = ${p.add(f.sessionId)}`);
  if (f.dataset !== undefined) c.push(`m.dataset = ${p.add(f.dataset)}`);
  if (f.kinds && f.kinds.length > 0) c.push(`m.kind = ANY(${p.add(f.kinds)}::text[])`);
  if (f.status !== 'all') c.push(`m.status = ${p.add(f.status)}`);
  if (f.conflicts) {
    // An open conflict: both sides still active (a superseded side means it was resolved). Driven
    // from the (few) challenges relations, so a large memory table is not probed row by row.
    c.push(`m.status = 'active' AND m.id IN (
      SELECT r.from_memory_id FROM memory_relations r JOIN memories o ON o.id = r.to_memory_id WHERE r.relation = 'challenges' AND o.status = 'active'
      UNION
      SELECT r.to_memory_id FROM memory_relations r JOIN memories o ON o.id = r.from_memory_id WHERE r.relation = 'challenges' AND o.status = 'active')`);
  }
  if (f.text) {
    const like = p.add(`%${likeEscape(f.text.substring)}%`);
    const tsq = `(SELECT string_agg('(' || q::text || ')', ' & ')::tsquery
                  FROM (SELECT plainto_tsquery('simple', t) AS q FROM unnest(${p.add(f.text.terms)}::text[]) t) x WHERE q::text <> '')`;
    c.push(`(m.content ILIKE ${like} ESCAPE '\\' OR m.fts @@ ${tsq})`);
  }
  if (f.since !== undefined) c.push(`m.occurred_at >= ${p.add(f.since)}::timestamptz`);
  if (f.until !== undefined) c.push(`m.occurred_at < ${p.add(f.until)}::timestamptz`);
  if (f.after) c.push(`(m.created_at, m.id) < (${p.add(f.after.createdAt)}::timestamptz, ${p.add(f.after.id)}::uuid)`);
  const { rows } = await tx.query<MemoryItem & { cursor_at: string }>(
    `SELECT ${ITEM_COLUMNS}, ${CURSOR_AT} AS cursor_at FROM memories m ${WITH_SIGNALS}
     WHERE ${where(c)} ORDER BY m.created_at DESC, m.id DESC LIMIT ${p.add(f.limit + 1)}`,
    p.values,
  );
  return rows;
}

export interface MemoryRecord extends MemoryItem {
  last_accessed_at: Date | null;
  rank_weight: number;
  subject_entity_id: string | null;
  run_id: string | null;
  updated_at: Date;
}

export async function findMemory(tx: Queryable, id: string): Promise<MemoryRecord | undefined> {
  const { rows } = await tx.query<MemoryRecord>(
    `SELECT ${ITEM_COLUMNS}, s.last_accessed_at, m.rank_weight, m.subject_entity_id, m.run_id, m.updated_at
     FROM memories m ${WITH_SIGNALS} WHERE m.id = $1`,
    [id],
  );
  return rows[0];
}

export interface ProvenanceEvent {
  id: string;
  session_id: string | null;
  dataset: string;
  occurred_at: Date;
  type: string;
  source: string;
}

export interface ProvenanceRun {
  id: string;
  stage: string;
  model: string | null;
  started_at: Date;
}

/** The events that support a memory, and the pipeline runs that wrote it or linked its evidence. */
export async function memoryProvenance(tx: Queryable, id: string): Promise<{ events: ProvenanceEvent[]; runs: ProvenanceRun[] }> {
  const { rows: events } = await tx.query<ProvenanceEvent>(
    `SELECT e.id, e.session_id, e.dataset, e.occurred_at, e.type, e.source
     FROM provenance p JOIN events e ON e.id = p.event_id
     WHERE p.object_type = 'memory' AND p.object_id = $1 ORDER BY e.occurred_at, e.seq`,
    [id],
  );
  const { rows: runs } = await tx.query<ProvenanceRun>(
    `SELECT r.id, r.stage, r.model, r.started_at FROM pipeline_runs r
     WHERE r.id IN (SELECT p.run_id FROM provenance p WHERE p.object_type = 'memory' AND p.object_id = $1
                    UNION SELECT m.run_id FROM memories m WHERE m.id = $1)
     ORDER BY r.started_at, r.id`,
    [id],
  );
  return { events, runs };
}

export interface MemoryVersion {
  id: string;
  version: number;
  content: string;
  status: string;
  valid_from: Date;
  valid_to: Date | null;
  superseded_by: string | null;
  recorded_at: Date;
}

/**
 * The version chain of a memory, oldest first: follow superseded_by forward to the newest version,
 * then collect everything whose superseded_by path leads there (merges give several predecessors).
 * Bounded depth guards against a cycle that a hand edit could create.
 */
export async function memoryVersions(tx: Queryable, id: string): Promise<MemoryVersion[]> {
  const { rows } = await tx.query<MemoryVersion>(
    `WITH RECURSIVE fwd AS (
       SELECT m.id, m.superseded_by, 0 AS step FROM memories m WHERE m.id = $1
       UNION ALL
       SELECT m.id, m.superseded_by, f.step + 1 FROM fwd f JOIN memories m ON m.id = f.superseded_by WHERE f.step < 1000
     ), head AS (
       SELECT id FROM fwd ORDER BY step DESC LIMIT 1
     ), back AS (
       SELECT h.id, 0 AS depth FROM head h
       UNION ALL
       SELECT m.id, b.depth + 1 FROM back b JOIN memories m ON m.superseded_by = b.id WHERE b.depth < 1000
     )
     SELECT m.id, m.version, m.content, m.status, m.valid_from, m.superseded_at AS valid_to, m.superseded_by, m.created_at AS recorded_at
     FROM (SELECT id, max(depth) AS depth FROM back GROUP BY id) b JOIN memories m ON m.id = b.id
     ORDER BY b.depth DESC, m.valid_from, m.created_at, m.id`,
    [id],
  );
  return rows;
}

export interface MemoryRelationView {
  id: string;
  relation: string;
  direction: 'out' | 'in';
  other_memory_id: string;
  other_content: string;
  other_status: string;
  is_progression: boolean;
  created_at: Date;
}

/** Relations in both directions: `out` when this memory is the relation's source. */
export async function memoryRelations(tx: Queryable, id: string): Promise<MemoryRelationView[]> {
  const { rows } = await tx.query<MemoryRelationView>(
    `SELECT r.id, r.relation, 'out' AS direction, o.id AS other_memory_id, o.content AS other_content, o.status AS other_status, r.is_progression, r.created_at
     FROM memory_relations r JOIN memories o ON o.id = r.to_memory_id WHERE r.from_memory_id = $1
     UNION ALL
     SELECT r.id, r.relation, 'in', o.id, o.content, o.status, r.is_progression, r.created_at
     FROM memory_relations r JOIN memories o ON o.id = r.from_memory_id WHERE r.to_memory_id = $1
     ORDER BY created_at, id`,
    [id],
  );
  return rows;
}

export interface LinkedEntity {
  id: string;
  name: string;
  type: string;
  description: string;
  is_subject: boolean;
}

export async function memoryEntities(tx: Queryable, id: string): Promise<LinkedEntity[]> {
  const { rows } = await tx.query<LinkedEntity>(
    `SELECT e.id, e.name, e.type, e.description, e.id IS NOT DISTINCT FROM (SELECT subject_entity_id FROM memories WHERE id = $1) AS is_subject
     FROM entities e
     WHERE e.id IN (SELECT me.entity_id FROM memory_entities me WHERE me.memory_id = $1 UNION SELECT m.subject_entity_id FROM memories m WHERE m.id = $1)
     ORDER BY is_subject DESC, e.name, e.id`,
    [id],
  );
  return rows;
}
