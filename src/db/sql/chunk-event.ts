import type { Queryable } from '../pool.js';

/**
 * The event a chunk was cut from, or undefined when the tenant has no such chunk (row-level
 * security scopes the read to the caller's tenant). Read-only: forget({chunk_id}) then forgets
 * that event like forget({event_id}).
 */
export async function chunkEventId(tx: Queryable, chunkId: string): Promise<string | undefined> {
  const { rows } = await tx.query<{ event_id: string }>('SELECT event_id FROM chunks WHERE id = $1', [chunkId]);
  return rows[0]?.event_id;
}
