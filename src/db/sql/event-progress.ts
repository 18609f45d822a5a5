import { UNEMBEDDED_STATUSES } from '../../queue/flow.js';
import type { Queryable } from '../pool.js';

/**
 * How far these events are on the way to recall, for POST /v1/events?wait=searchable. Takes event
 * ids of the caller's tenant (row-level security scopes the read); returns how many are not yet
 * searchable (`received`, `triaged`, `chunked`: their chunks or vectors are not all stored yet)
 * and how many `failed` (a dead letter: never searchable without a retry). Read-only, no locks:
 * one index scan on the primary key, cheap enough to poll.
 */
export async function searchProgress(tx: Queryable, ids: readonly string[]): Promise<{ waiting: number; failed: number }> {
  const { rows } = await tx.query<{ waiting: number; failed: number }>(
    `SELECT count(*) FILTER (WHERE status = ANY($2::text[]))::int AS waiting,
            count(*) FILTER (WHERE status = 'failed')::int AS failed
     FROM events WHERE id = ANY($1::uuid[])`,
    [ids, UNEMBEDDED_STATUSES],
  );
  return rows[0] ?? { waiting: 0, failed: 0 };
}
