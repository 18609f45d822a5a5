import type { Queryable } from '../pool.js';

export type ProvenanceType = 'memory' | 'entity' | 'edge' | 'relation';

/** Links objects to their supporting events (and the run that made the link). Idempotent by primary key. */
export async function addProvenance(tx: Queryable, type: ProvenanceType, links: Array<{ objectId: string; eventIds: string[] }>, runId: string): Promise<void> {
  const rows = links.flatMap((l) => [...new Set(l.eventIds)].map((e) => ({ o: l.objectId, e })));
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO provenance (object_type, object_id, event_id, run_id)
     SELECT $1, o, e, $2 FROM jsonb_to_recordset($3::jsonb) AS x(o uuid, e uuid)
     ON CONFLICT DO NOTHING`,
    [type, runId, JSON.stringify(rows)],
  );
}
