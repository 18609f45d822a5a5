import type { Queryable } from '../pool.js';
import { SQL_TEXT_HASH } from './forget.js';

/** Invariant violations of one tenant; every count should be 0. */
export interface DoctorChecks {
  memories_without_provenance: number;
  entities_without_provenance: number;
  edges_without_provenance: number;
  relations_without_provenance: number;
  provenance_without_object: number;
  chunks_without_event: number;
  /** Extra rows beyond the first per (type, normalized_name). */
  duplicate_entity_names: number;
  active_memories_superseded: number;
  superseded_memories_without_successor: number;
}

/** Reported, not a violation: cached vectors are a cache, re-creatable and harmless to drop. */
export interface DoctorReport {
  embedding_cache_unmatched: number;
}

/**
 * Counts invariant violations of the current tenant (call inside withTenant: RLS scopes every
 * count). Read-only; the anti-joins scan whole tables, so this is an operator tool, not a hot path.
 */
export async function checkInvariants(tx: Queryable): Promise<{ checks: DoctorChecks; report: DoctorReport }> {
  const noProv = (table: string, type: string, alias: string): string =>
    `(SELECT count(*) FROM ${table} ${alias} WHERE NOT EXISTS (SELECT 1 FROM provenance p WHERE p.object_type = '${type}' AND p.object_id = ${alias}.id))::int`;
  const { rows } = await tx.query<DoctorChecks & DoctorReport>(`
    SELECT
      ${noProv('memories', 'memory', 'm')} AS memories_without_provenance,
      ${noProv('entities', 'entity', 'e')} AS entities_without_provenance,
      ${noProv('edges', 'edge', 'g')} AS edges_without_provenance,
      ${noProv('memory_relations', 'relation', 'r')} AS relations_without_provenance,
      (SELECT count(*) FROM provenance p WHERE NOT CASE p.object_type
          WHEN 'memory' THEN EXISTS (SELECT 1 FROM memories m WHERE m.id = p.object_id)
          WHEN 'entity' THEN EXISTS (SELECT 1 FROM entities e WHERE e.id = p.object_id)
          WHEN 'edge' THEN EXISTS (SELECT 1 FROM edges g WHERE g.id = p.object_id)
          WHEN 'relation' THEN EXISTS (SELECT 1 FROM memory_relations r WHERE r.id = p.object_id)
          ELSE false END)::int AS provenance_without_object,
      (SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM events ev WHERE ev.id = c.event_id))::int AS chunks_without_event,
      (SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM entities GROUP BY dataset, coalesce(user_id, ''), type, normalized_name HAVING count(*) > 1) d)::int AS duplicate_entity_names,
      (SELECT count(*) FROM memories WHERE status = 'active' AND superseded_by IS NOT NULL)::int AS active_memories_superseded,
      (SELECT count(*) FROM memories m WHERE m.status = 'superseded'
          AND (m.superseded_by IS NULL OR NOT EXISTS (SELECT 1 FROM memories s WHERE s.id = m.superseded_by)))::int AS superseded_memories_without_successor,
      (SELECT count(*) FROM embedding_cache ec
        WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.content_hash = ec.text_hash)
          AND NOT EXISTS (SELECT 1 FROM memories m WHERE ${SQL_TEXT_HASH('m.content')} = ec.text_hash)
          AND NOT EXISTS (SELECT 1 FROM entities e WHERE ${SQL_TEXT_HASH('e.name')} = ec.text_hash))::int AS embedding_cache_unmatched`);
  const { embedding_cache_unmatched, ...checks } = rows[0] as DoctorChecks & DoctorReport;
  return { checks, report: { embedding_cache_unmatched } };
}
