import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { MemloomError } from '../../errors.js';
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

const COLUMNS = `idem_key text, dataset text, user_id text, agent_id text, session_id text, type text, role text, content text,
  content_hash text, occurred_at timestamptz, importance smallint, ttl text, metadata jsonb, source text, source_ref text`;
const COLUMN_NAMES = COLUMNS.split(',')
  .map((c) => c.trim().split(/\s+/)[0])
  .join(', ');

/**
 * The one INSERT of events, from a JSON array of EventRow (`source`: a parameter or a literal).
 * Idempotent: ON CONFLICT (tenant_id, idem_key) DO NOTHING; RETURNING names the rows it inserted,
 * and a key it does not name is a duplicate whose id is read back afterwards (rare: retries).
 * Rows go in in the request's order, which `seq` keeps (triage's "repeated in the session", chunk
 * neighbours and extraction follow it); so on a server two writers with the same keys in other
 * orders can deadlock, and EventWriter writes the victim again (test/server-writes.test.ts).
 * An event sent without occurred_at gets the receive time plus its place in the batch in
 * microseconds: events of one batch keep their order in time, so which of two statements is newer
 * (src/domain/slots.ts) never depends on how a batch or a file was split.
 * A single plain statement on purpose: a CTE that also looked up duplicates cost more to plan than
 * a small insert costs to run, and its join scanned the tenant's events. tenant_id comes from
 * app.tenant_id (RLS checks it too).
 */
function insertStatement(source: string): string {
  return `INSERT INTO events (idem_key, dataset, user_id, agent_id, session_id, type, role, content, content_hash,
                      occurred_at, importance, ttl, metadata, source, source_ref)
  SELECT idem_key, dataset, user_id, agent_id, session_id, type, role, content, content_hash,
         coalesce(occurred_at, now() + (n - 1) * interval '1 microsecond'), importance, ttl::interval, coalesce(metadata, '{}'), source, source_ref
  FROM ROWS FROM (jsonb_to_recordset(${source}) AS (${COLUMNS})) WITH ORDINALITY AS x(${COLUMN_NAMES}, n)
  ORDER BY n
  ON CONFLICT (tenant_id, idem_key) DO NOTHING
  RETURNING idem_key, id, true AS inserted`;
}

/** Orders the statement's answer like `rows`; keys it did not return (duplicates) are read back. */
async function inRowOrder(
  _tx: Queryable,
  rows: EventRow[],
  found: InsertedEvent[],
  readBack: (keys: string[]) => Promise<InsertedEvent[]>,
): Promise<InsertedEvent[]> {
  const byKey = new Map(found.map((r) => [r.idem_key, r]));
  const missing = rows.filter((r) => !byKey.has(r.idem_key)).map((r) => r.idem_key);
  if (missing.length > 0) for (const r of await readBack(missing)) byKey.set(r.idem_key, r);
  return rows.map((r) => {
    const hit = byKey.get(r.idem_key);
    if (!hit) throw new MemloomError('EVENT_NOT_STORED', 'An event was neither inserted nor found.', { kind: 'internal', details: { idem_key: r.idem_key } });
    return hit;
  });
}

/**
 * Stores a batch of events in one statement, inside the caller's transaction (withTenant). Takes
 * rows with distinct idem_keys (the caller folds in-batch duplicates); returns, in row order, the
 * stored id and whether this call inserted it.
 */
export async function insertEvents(tx: Queryable, rows: EventRow[]): Promise<InsertedEvent[]> {
  if (rows.length === 0) return [];
  const { rows: found } = await tx.query<InsertedEvent>(insertStatement('$1::jsonb'), [JSON.stringify(rows)]);
  return inRowOrder(
    tx,
    rows,
    found,
    async (keys) =>
      (
        await tx.query<InsertedEvent>(
          `SELECT idem_key, id, false AS inserted FROM events WHERE tenant_id = current_setting('app.tenant_id') AND idem_key = ANY($1::text[])`,
          [keys],
        )
      ).rows,
  );
}

// ---------------------------------------------------------------------------------------------
// One round trip per write. PGlite takes one call per batch of protocol messages (a round trip
// to its thread), and a parameterised statement costs several messages (Parse, Bind, Describe,
// Execute, Sync) where a simple query costs one; BEGIN, set_config and COMMIT are three more.
// A simple-protocol message holding several statements runs as ONE implicit transaction, so
// `set_config(…, true)` + the writes + the implicit commit take a single round trip. Values go in
// as dollar-quoted JSON literals (the tag is chosen so the text cannot close it) and tenant ids
// are checked against their pattern: nothing user-supplied is spliced in any other way.
// ---------------------------------------------------------------------------------------------

const TENANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A dollar-quoted literal of `text` whose tag does not occur in it. */
export function dollarQuoted(text: string): string {
  let tag = '$j$';
  while (text.includes(tag)) tag = `$j${randomBytes(6).toString('hex')}$`;
  return `${tag}${text}${tag}`;
}

/** The statement that scopes the following ones (to the end of the message's transaction) to a tenant. */
export function setTenantStatement(tenantId: string): string {
  if (!TENANT_ID.test(tenantId)) throw new MemloomError('TENANT_INVALID', 'A tenant id is letters, digits, _ or -.', { kind: 'input', retryable: false });
  return `SELECT set_config('app.tenant_id', '${tenantId}', true)`;
}

/** Sends the statements as one simple-protocol message (one implicit transaction); one result per statement. */
export async function runInOneTransaction(db: Queryable, statements: string[]): Promise<pg.QueryResult[]> {
  const result = (await db.query(statements.join(';\n'))) as pg.QueryResult | pg.QueryResult[];
  return Array.isArray(result) ? result : [result];
}

/** The INSERT of `rows` as a self-contained statement, for runInOneTransaction after setTenantStatement. */
export function insertEventsStatement(rows: EventRow[]): string {
  return insertStatement(`${dollarQuoted(JSON.stringify(rows))}::jsonb`);
}

/** Reads the answer of insertEventsStatement; duplicates' ids are read back in a second round trip. */
export async function insertedEvents(db: Queryable, tenantId: string, rows: EventRow[], result: pg.QueryResult | undefined): Promise<InsertedEvent[]> {
  return inRowOrder(db, rows, (result?.rows ?? []) as InsertedEvent[], async (keys) => {
    const results = await runInOneTransaction(db, [
      setTenantStatement(tenantId),
      `SELECT idem_key, id, false AS inserted FROM events
       WHERE tenant_id = current_setting('app.tenant_id') AND idem_key = ANY(ARRAY(SELECT jsonb_array_elements_text(${dollarQuoted(JSON.stringify(keys))}::jsonb)))`,
    ]);
    return (results[1]?.rows ?? []) as InsertedEvent[];
  });
}

/**
 * Deletes the events_unqueued rows of events handed to the queue (migration
 * 20261205010000_events_unqueued: a trigger adds a row for every event stored as `received`).
 * Touches no `events` row, so it never waits on triage's claim, and costs a delete of a narrow row
 * instead of a new version of the event.
 */
function markStatement(ids: string): string {
  return `DELETE FROM events_unqueued WHERE event_id = ANY(${ids})`;
}

/** Marks events as handed to the queue (the requeue task enqueues those never marked). */
export async function markEnqueued(tx: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.query(markStatement('$1::uuid[]'), [ids]);
}

/** markEnqueued as a statement for runInOneTransaction (after setTenantStatement). */
export function markEnqueuedStatement(ids: string[]): string {
  return markStatement(`ARRAY(SELECT jsonb_array_elements_text(${dollarQuoted(JSON.stringify(ids))}::jsonb)::uuid)`);
}

/**
 * Events stored but never handed to the queue (crash or queue outage between commit and enqueue),
 * oldest first: of the `limit` oldest events_unqueued rows older than `olderThanMs`, those whose
 * event is still `received`. The others (a job claimed the event before its mark, or it was
 * forgotten) are dropped in the same statement. `scanned` counts the rows looked at, so a caller
 * knows whether more may be left.
 */
export async function findNotEnqueued(
  tx: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<{ events: Array<{ id: string; priority: number | null }>; scanned: number }> {
  const { rows } = await tx.query<{ id: string; priority: number | null; waiting: boolean }>(
    `WITH old AS MATERIALIZED (
       SELECT u.event_id, e.priority, e.received_at, e.status = 'received' AS waiting
       FROM (SELECT event_id FROM events_unqueued WHERE tenant_id = current_setting('app.tenant_id')
               AND received_at < now() - ($1::int * interval '1 millisecond') ORDER BY received_at LIMIT $2) u
       LEFT JOIN events e ON e.id = u.event_id),
     stale AS (DELETE FROM events_unqueued u USING old WHERE u.event_id = old.event_id AND old.waiting IS NOT TRUE)
     SELECT event_id AS id, priority, coalesce(waiting, false) AS waiting FROM old ORDER BY received_at`,
    [olderThanMs, limit],
  );
  return { events: rows.filter((r) => r.waiting).map((r) => ({ id: r.id, priority: r.priority })), scanned: rows.length };
}
