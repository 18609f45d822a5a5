import type { Queryable } from '../pool.js';

export interface EventRow {
  idem_key: string;
  dataset: string;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  type: string;
  role: string | null;
  content: string;
  content_hash: string;
  occurred_at: string | null;
  importance: number | null;
  ttl: string | null;
  metadata: Record<string, unknown>;
  source: string;
  source_ref: string | null;
}

export interface InsertedEvent {
  idem_key: string;
  id: string;
  inserted: boolean;
}

/**
 * Stores a batch of events in one statement. Takes rows with distinct idem_keys (the caller folds
 * in-batch duplicates); returns, per key, the stored id and whether this call inserted it.
 * Idempotent: ON CONFLICT (tenant_id, idem_key) DO NOTHING, then the existing ids are read back.
 * Runs inside withTenant (tenant_id comes from app.tenant_id).
 */
export async function insertEvents(tx: Queryable, rows: EventRow[]): Promise<InsertedEvent[]> {
  if (rows.length === 0) return [];
  const { rows: inserted } = await tx.query<{ idem_key: string; id: string }>(
    `INSERT INTO events (idem_key, dataset, user_id, agent_id, session_id, type, role, content, content_hash,
                         occurred_at, importance, ttl, metadata, source, source_ref)
     SELECT idem_key, dataset, user_id, agent_id, session_id, type, role, content, content_hash,
            coalesce(occurred_at, now()), importance, ttl::interval, coalesce(metadata, '{}'), source, source_ref
     FROM jsonb_to_recordset($1::jsonb) AS x(idem_key text, dataset text, user_id text, agent_id text, session_id text,
          type text, role text, content text, content_hash text, occurred_at timestamptz, importance smallint, ttl text,
          metadata jsonb, source text, source_ref text)
     ON CONFLICT (tenant_id, idem_key) DO NOTHING
     RETURNING idem_key, id`,
    [JSON.stringify(rows)],
  );
  const byKey = new Map(inserted.map((r) => [r.idem_key, r.id]));
  const missing = rows.filter((r) => !byKey.has(r.idem_key)).map((r) => r.idem_key);
  const existing = new Map<string, string>();
  if (missing.length > 0) {
    const { rows: found } = await tx.query<{ idem_key: string; id: string }>('SELECT idem_key, id FROM events WHERE idem_key = ANY($1::text[])', [missing]);
    for (const r of found) existing.set(r.idem_key, r.id);
  }
  return rows.map((r) => {
    const id = byKey.get(r.idem_key);
    return id !== undefined ? { idem_key: r.idem_key, id, inserted: true } : { idem_key: r.idem_key, id: existing.get(r.idem_key) as string, inserted: false };
  });
}

/** Marks events as handed to the queue (the reconciler re-enqueues those never marked). */
export async function markEnqueued(tx: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.query('UPDATE events SET enqueued_at = now() WHERE id = ANY($1::uuid[]) AND enqueued_at IS NULL', [ids]);
}

/** Events stored but never handed to the queue, oldest first (crash or queue outage between commit and enqueue). */
export async function findNotEnqueued(tx: Queryable, olderThanMs: number, limit: number): Promise<Array<{ id: string; priority: number | null }>> {
  const { rows } = await tx.query<{ id: string; priority: number | null }>(
    `SELECT id, priority FROM events WHERE enqueued_at IS NULL AND received_at < now() - ($1::int * interval '1 millisecond')
     ORDER BY received_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows;
}
