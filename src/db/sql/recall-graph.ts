import type { Queryable } from '../pool.js';
import { TRIPLET_RANK } from '../../domain/scoring.js';
import { Params, tsqueryOf } from './recall-filters.js';

export interface TripletRow {
  id: string;
  source: string;
  source_id: string;
  relation: string;
  target: string;
  target_id: string;
  description: string;
  valid_at: Date;
  invalid_at: Date | null;
  created_at: Date;
  rank: number;
  event_ids: string[];
  dataset: string;
  /** The session of the edge's latest supporting event, when it had one. */
  session_id: string | null;
}

/**
 * Current triplets (or, with `asOf`, those valid then) that match the query words or touch the
 * given entities, with their supporting events. An edge belongs to one (dataset, user) scope; a
 * session filter reads its provenance events.
 */
export async function searchTriplets(
  tx: Queryable,
  terms: string[],
  entityIds: string[],
  scope: { userId?: string | undefined; dataset?: string | undefined; sessionId?: string | undefined; asOf?: string | undefined },
  k: number,
): Promise<TripletRow[]> {
  const p = new Params();
  const tsq = terms.length > 0 ? tsqueryOf(p, terms) : 'NULL::tsquery';
  const ents = p.add(entityIds);
  const edgeScope: string[] = [];
  if (scope.userId !== undefined) edgeScope.push(`coalesce(ed.user_id, '') = ${p.add(scope.userId)}`);
  if (scope.dataset !== undefined) edgeScope.push(`ed.dataset = ${p.add(scope.dataset)}`);
  const scopeSql: string[] = [];
  if (scope.sessionId !== undefined) scopeSql.push(`ev.session_id = ${p.add(scope.sessionId)}`);
  const { rows } = await tx.query<TripletRow>(
    `WITH q AS (SELECT ${tsq} AS q)
     SELECT ed.id, s.name AS source, s.id AS source_id, ed.relation, t.name AS target, t.id AS target_id, ed.description,
            ed.valid_at, ed.invalid_at, ed.created_at,
            coalesce(ts_rank(ed.fts, q.q, ${TRIPLET_RANK.normalization}), 0) + CASE WHEN ed.source_entity_id = ANY(${ents}::uuid[]) OR ed.target_entity_id = ANY(${ents}::uuid[]) THEN ${TRIPLET_RANK.namedEntity} ELSE 0 END AS rank,
            ev.ids AS event_ids, ed.dataset, ev.session_id
     FROM edges ed CROSS JOIN q
     JOIN entities s ON s.id = ed.source_entity_id JOIN entities t ON t.id = ed.target_entity_id
     CROSS JOIN LATERAL (SELECT array_agg(p.event_id) AS ids,
                                (array_agg(ev.session_id ORDER BY ev.occurred_at DESC, ev.id) FILTER (WHERE ev.session_id IS NOT NULL))[1] AS session_id
                         FROM provenance p JOIN events ev ON ev.id = p.event_id
                         WHERE p.object_type = 'edge' AND p.object_id = ed.id ${scopeSql.length ? `AND ${scopeSql.join(' AND ')}` : ''}) ev
     WHERE ${edgeScope.length ? `${edgeScope.join(' AND ')} AND ` : ''} ${scope.asOf !== undefined ? `ed.valid_at <= ${p.add(scope.asOf)}::timestamptz AND (ed.invalid_at IS NULL OR ed.invalid_at > ${p.add(scope.asOf)}::timestamptz)` : 'ed.invalid_at IS NULL'} AND ev.ids IS NOT NULL
       AND ((q.q IS NOT NULL AND ed.fts @@ q.q) OR ed.source_entity_id = ANY(${ents}::uuid[]) OR ed.target_entity_id = ANY(${ents}::uuid[]))
     ORDER BY rank DESC LIMIT ${p.add(k)}`,
    p.values,
  );
  return rows;
}

/** Evidence chunks of the given events (first chunk of each), for triplets' source chunks. */
export async function chunksOfEvents(tx: Queryable, eventIds: string[]): Promise<Array<{ id: string; content: string; event_id: string }>> {
  if (eventIds.length === 0) return [];
  const { rows } = await tx.query<{ id: string; content: string; event_id: string }>(
    `SELECT DISTINCT ON (event_id) id, content, event_id FROM chunks WHERE event_id = ANY($1::uuid[]) ORDER BY event_id, idx`,
    [eventIds],
  );
  return rows;
}

export async function recordRecall(
  tx: Queryable,
  r: { query: string; params: unknown; userId: string | null; resultIds: string[]; tookMs: number },
): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO recall_log (query, params, user_id, result_ids, took_ms) VALUES ($1, $2, $3, $4::uuid[], $5) RETURNING id`,
    [r.query, JSON.stringify(r.params), r.userId, r.resultIds, r.tookMs],
  );
  return (rows[0] as { id: string }).id;
}

/** Access signals, batched off the response path: counts and last access of returned memories. */
export async function recordAccess(tx: Queryable, counts: Map<string, number>): Promise<void> {
  if (counts.size === 0) return;
  // Only memories that still exist (one may have been forgotten since it was returned).
  await tx.query(
    // In id order: two processes flushing overlapping sets lock the rows in the same order (no deadlock).
    `INSERT INTO memory_signals (memory_id, access_count, last_accessed_at)
     SELECT m.id, x.n, now() FROM unnest($1::uuid[], $2::int[]) AS x(id, n) JOIN memories m ON m.id = x.id
     ORDER BY m.id
     ON CONFLICT (memory_id) DO UPDATE SET access_count = memory_signals.access_count + excluded.access_count, last_accessed_at = excluded.last_accessed_at`,
    [[...counts.keys()], [...counts.values()]],
  );
}
