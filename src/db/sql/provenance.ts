import type { Queryable } from '../pool.js';

export type ProvenanceType = 'memory' | 'entity' | 'edge' | 'relation';

/** An object of some type and the events that support it. */
export interface ProvenanceLink {
  type: ProvenanceType;
  objectId: string;
  eventIds: string[];
}

/** Links objects to their supporting events (and the run that made the link). Idempotent by primary key. */
export async function addProvenance(tx: Queryable, type: ProvenanceType, links: Array<{ objectId: string; eventIds: string[] }>, runId: string): Promise<void> {
  await addProvenanceLinks(
    tx,
    links.map((l) => ({ type, ...l })),
    runId,
  );
}

/** addProvenance for objects of several types in one statement (an extraction pass writes all four). */
export async function addProvenanceLinks(tx: Queryable, links: ProvenanceLink[], runId: string): Promise<void> {
  const rows = links.flatMap((l) => [...new Set(l.eventIds)].map((e) => ({ t: l.type, o: l.objectId, e })));
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO provenance (object_type, object_id, event_id, run_id)
     SELECT t, o, e, $1 FROM jsonb_to_recordset($2::jsonb) AS x(t text, o uuid, e uuid)
     ORDER BY t, o, e -- key order: concurrent passes linking the same objects never deadlock
     ON CONFLICT DO NOTHING`,
    [runId, JSON.stringify(rows)],
  );
}
