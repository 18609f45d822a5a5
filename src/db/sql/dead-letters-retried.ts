import type { Queryable } from '../pool.js';

/**
 * Marks the dead letters of these jobs as retried, in the tenant of the transaction (RLS).
 * Idempotent: a row already marked keeps its first retry time. Returns the rows marked now.
 */
export async function markDeadLettersRetried(tx: Queryable, queue: string, jobIds: string[]): Promise<number> {
  if (jobIds.length === 0) return 0;
  const { rowCount } = await tx.query(
    `UPDATE dead_letters SET retried_at = clock_timestamp()
     WHERE source = 'job' AND queue = $1 AND job_id = ANY ($2::text[]) AND retried_at IS NULL`,
    [queue, jobIds],
  );
  return rowCount ?? 0;
}
