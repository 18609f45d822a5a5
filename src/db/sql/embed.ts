import type { Queryable } from '../pool.js';

/**
 * Events of `ids` that are `chunked` and whose chunks all have vectors move on: to `embedded` when
 * extraction is pending, else to `done`. Idempotent by the status check.
 */
export async function markEmbedded(tx: Queryable, ids: string[]): Promise<void> {
  await tx.query(
    `UPDATE events e SET status = CASE WHEN e.extract_pending THEN 'embedded' ELSE 'done' END,
       processed_at = CASE WHEN e.extract_pending THEN NULL ELSE now() END
     WHERE e.id = ANY($1::uuid[]) AND e.status = 'chunked'
       AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.event_id = e.id AND c.embedding IS NULL)`,
    [ids],
  );
}

export interface PendingExtraction {
  extract_key: string;
  /** Oldest waiting event of that key (for the max-wait guarantee). */
  oldest: Date;
}

/** Extraction keys with events waiting for extraction, among `ids` (or among all when ids is null). */
export async function pendingExtractions(tx: Queryable, ids: string[] | null): Promise<PendingExtraction[]> {
  const { rows } = await tx.query<PendingExtraction>(
    `SELECT extract_key, min(received_at) AS oldest FROM events
     WHERE extract_pending AND status = 'embedded' AND ($1::uuid[] IS NULL OR id = ANY($1::uuid[]))
     GROUP BY extract_key`,
    [ids],
  );
  return rows;
}
