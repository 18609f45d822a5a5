import type { Queryable } from '../pool.js';

export interface RecallLogRow {
  id: string;
  query: string;
  params: Record<string, unknown>;
  user_id: string | null;
  result_ids: string[];
}

export async function getRecall(tx: Queryable, id: string): Promise<RecallLogRow | undefined> {
  const { rows } = await tx.query<RecallLogRow>('SELECT id, query, params, user_id, result_ids FROM recall_log WHERE id = $1', [id]);
  return rows[0];
}

/**
 * Stores the feedback of one recall. Idempotent by the unique recall_id: a second call inserts
 * nothing and returns the stored row with `inserted: false`.
 */
export async function insertFeedback(
  tx: Queryable,
  f: { recallId: string; score: number; text: string | null },
): Promise<{ id: string; inserted: boolean; score: number; event_id: string | null }> {
  const { rows } = await tx.query<{ id: string }>(
    'INSERT INTO feedback (recall_id, score, text) VALUES ($1, $2, $3) ON CONFLICT (recall_id) DO NOTHING RETURNING id',
    [f.recallId, f.score, f.text],
  );
  if (rows[0]) return { id: rows[0].id, inserted: true, score: f.score, event_id: null };
  const { rows: existing } = await tx.query<{ id: string; score: number; event_id: string | null }>(
    'SELECT id, score, event_id FROM feedback WHERE recall_id = $1',
    [f.recallId],
  );
  return { ...(existing[0] as { id: string; score: number; event_id: string | null }), inserted: false };
}

export async function setFeedbackEvent(tx: Queryable, feedbackId: string, eventId: string): Promise<void> {
  await tx.query('UPDATE feedback SET event_id = $2 WHERE id = $1', [feedbackId, eventId]);
}

/** Contents of a recall's returned memories and chunks, in the order they were returned. */
export async function resultContents(tx: Queryable, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await tx.query<{ content: string }>(
    `SELECT x.content FROM unnest($1::uuid[]) WITH ORDINALITY AS r(id, ord)
     JOIN (SELECT id, content FROM memories WHERE id = ANY($1::uuid[]) UNION ALL SELECT id, content FROM chunks WHERE id = ANY($1::uuid[])) x ON x.id = r.id
     ORDER BY r.ord`,
    [ids],
  );
  return rows.map((r) => r.content);
}

/**
 * Negative feedback lowers the ranking signal of the returned memories (never their content or
 * confidence): rank_weight × factor, not below floor. Called once per recall (feedback is unique).
 */
export async function lowerRankWeight(tx: Queryable, memoryIds: string[], factor: number, floor: number): Promise<number> {
  if (memoryIds.length === 0) return 0;
  const { rowCount } = await tx.query(
    `UPDATE memories SET rank_weight = greatest($3::real, rank_weight * $2::real), updated_at = now() WHERE id = ANY($1::uuid[]) AND rank_weight > $3::real`,
    [memoryIds, factor, floor],
  );
  return rowCount ?? 0;
}
