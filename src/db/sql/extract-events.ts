import type { Queryable } from '../pool.js';

export interface EventToExtract {
  id: string;
  type: string;
  role: string | null;
  content: string;
  occurred_at: Date;
  dataset: string;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  importance: number | null;
  metadata: Record<string, unknown>;
}

/** The oldest events of one extraction key still waiting for extraction. */
export async function eventsToExtract(tx: Queryable, extractKey: string, limit: number): Promise<EventToExtract[]> {
  const { rows } = await tx.query<EventToExtract>(
    `SELECT id, type, role, content, occurred_at, dataset, user_id, agent_id, session_id, importance, metadata FROM events
     WHERE extract_key = $1 AND extract_pending AND status = 'embedded' ORDER BY seq LIMIT $2`,
    [extractKey, limit],
  );
  return rows;
}

/** Extraction done: the events are recallable as memory. Idempotent. */
export async function markExtracted(tx: Queryable, ids: string[]): Promise<void> {
  await tx.query(`UPDATE events SET status = 'done', extract_pending = false, processed_at = now() WHERE id = ANY($1::uuid[]) AND status = 'embedded'`, [ids]);
}

export async function hasPendingExtraction(tx: Queryable, extractKey: string): Promise<{ pending: number; oldest: Date | null }> {
  const { rows } = await tx.query<{ pending: number; oldest: Date | null }>(
    `SELECT count(*)::int AS pending, min(received_at) AS oldest FROM events WHERE extract_key = $1 AND extract_pending AND status = 'embedded'`,
    [extractKey],
  );
  return rows[0] as { pending: number; oldest: Date | null };
}
