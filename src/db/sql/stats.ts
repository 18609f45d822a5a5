import { FINISHED_STATUSES, sqlStatuses } from '../../queue/flow.js';
import type { Queryable } from '../pool.js';

export interface ObjectCounts {
  events: number;
  /** Events a dead-lettered job left `failed` (not pending; POST /v1/jobs/retry puts them back). */
  events_failed: number;
  chunks: number;
  memories: number;
  memories_active: number;
  entities: number;
  edges: number;
  relations: number;
  provenance: number;
  dead_letters: number;
  recalls: number;
  feedback: number;
}

/**
 * Row counts of one tenant (call inside withTenant: RLS scopes every count) and the exact number
 * of pending events: stored, not skipped or failed, with some stage they need unfinished.
 */
export async function countObjects(tx: Queryable): Promise<{ objects: ObjectCounts; pending_events: number }> {
  const { rows } = await tx.query<ObjectCounts & { pending_events: number }>(`
    SELECT
      (SELECT count(*) FROM events)::int AS events,
      (SELECT count(*) FROM events WHERE status = 'failed')::int AS events_failed,
      (SELECT count(*) FROM chunks)::int AS chunks,
      (SELECT count(*) FROM memories)::int AS memories,
      (SELECT count(*) FROM memories WHERE status = 'active')::int AS memories_active,
      (SELECT count(*) FROM entities)::int AS entities,
      (SELECT count(*) FROM edges)::int AS edges,
      (SELECT count(*) FROM memory_relations)::int AS relations,
      (SELECT count(*) FROM provenance)::int AS provenance,
      (SELECT count(*) FROM dead_letters)::int AS dead_letters,
      (SELECT count(*) FROM recall_log)::int AS recalls,
      (SELECT count(*) FROM feedback)::int AS feedback,
      (SELECT count(*) FROM events WHERE status NOT IN (${sqlStatuses(FINISHED_STATUSES)}))::int AS pending_events`);
  const { pending_events, ...objects } = rows[0] as ObjectCounts & { pending_events: number };
  return { objects, pending_events };
}
