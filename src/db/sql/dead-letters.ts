import type { Queryable } from '../pool.js';
import { dollarQuoted } from './insert-events.js';

export interface DeadLetter {
  id: string;
  source: string;
  queue: string | null;
  job_id: string | null;
  file: string | null;
  line: number | null;
  code: string;
  message: string;
  payload: string | null;
  /** ISO-8601 in UTC with microseconds: exact enough to be the `before` cursor of the next page. */
  created_at: string;
  /** When its job was sent back to the queue (null: not retried since it failed). */
  retried_at: Date | null;
}

/**
 * PostgreSQL text cannot hold NUL and jsonb rejects lone surrogates (a clipped pair): a bad line
 * must never make its own dead letter unwritable, or the file would stall on it.
 */
function storable(s: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL and control characters are what this expression is for
  return s.slice(0, max).replace(/\u0000|[\uD800-\uDFFF]/gu, '\uFFFD');
}

// clock_timestamp(), not now(), plus a microsecond per row of a statement: rows written in one
// transaction (a file slice with several bad lines) get distinct times, so the created_at cursor of
// listDeadLetters rarely meets ties (PGlite's clock ticks in milliseconds); ties it does meet are
// returned whole.

/** Records a job that exhausted its attempts. Idempotent per (queue, job id): a later failure updates the message. */
export async function insertJobDeadLetter(tx: Queryable, d: { queue: string; jobId: string; message: string; payload: string }): Promise<void> {
  const code = /^([A-Z_]+):/.exec(d.message)?.[1] ?? 'JOB_FAILED';
  await tx.query(
    `INSERT INTO dead_letters (source, queue, job_id, code, message, payload, created_at) VALUES ('job', $1, $2, $3, $4, $5, clock_timestamp())
     ON CONFLICT (tenant_id, queue, job_id) WHERE source = 'job' DO UPDATE SET message = EXCLUDED.message, created_at = clock_timestamp(), retried_at = NULL`,
    [d.queue, d.jobId, code, storable(d.message, 4000), storable(d.payload, 100_000)],
  );
}

export interface FileDeadLetter {
  file: string;
  line: number;
  code: string;
  message: string;
  payload: string;
}

function fileDeadLettersStatement(source: string): string {
  return `INSERT INTO dead_letters (source, file, line, code, message, payload, created_at)
     SELECT 'file', file, line, code, message, payload, clock_timestamp() + n * interval '1 microsecond'
     FROM jsonb_to_recordset(${source}) AS x(file text, line bigint, code text, message text, payload text, n int)
     ON CONFLICT (tenant_id, file, line, md5(coalesce(payload, ''))) WHERE source = 'file' DO NOTHING`;
}

function fileDeadLettersJson(rows: FileDeadLetter[]): string {
  return JSON.stringify(rows.map((d, n) => ({ ...d, message: storable(d.message, 4000), payload: storable(d.payload, 100_000), n })));
}

/**
 * Records malformed lines of an events file, in one statement. Idempotent per (file, line,
 * content): a replayed file (truncation, restart) dead-letters each bad line once.
 */
export async function insertFileDeadLetters(tx: Queryable, rows: FileDeadLetter[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(fileDeadLettersStatement('$1::jsonb'), [fileDeadLettersJson(rows)]);
}

/** insertFileDeadLetters as a statement for runInOneTransaction (after setTenantStatement); undefined when there is nothing to write. */
export function insertFileDeadLettersStatement(rows: FileDeadLetter[]): string | undefined {
  return rows.length === 0 ? undefined : fileDeadLettersStatement(`${dollarQuoted(fileDeadLettersJson(rows))}::jsonb`);
}

export type DeadLetterSource = 'file' | 'job' | 'http';

/**
 * Newest first, for the tenant of the transaction (RLS). `before` is an exclusive created_at
 * cursor (text, passed to PostgreSQL as is so microseconds survive). A page never splits rows that
 * share its oldest timestamp: all of them are returned, so `created_at < last` loses nothing.
 */
export async function listDeadLetters(
  tx: Queryable,
  opts: { limit: number; before?: string | undefined; source?: DeadLetterSource | undefined },
): Promise<DeadLetter[]> {
  const { rows } = await tx.query<DeadLetter>(
    `WITH matching AS (
       SELECT * FROM dead_letters WHERE ($2::timestamptz IS NULL OR created_at < $2::timestamptz) AND ($3::text IS NULL OR source = $3)
     ), page AS (
       SELECT created_at FROM matching ORDER BY created_at DESC LIMIT $1
     )
     SELECT id, source, queue, job_id, file, line, code, message, payload,
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at, retried_at
     FROM matching WHERE created_at >= (SELECT min(created_at) FROM page)
     ORDER BY matching.created_at DESC, id`,
    [opts.limit, opts.before ?? null, opts.source ?? null],
  );
  return rows;
}

/** One dead letter of the tenant (RLS), or undefined. */
export async function findDeadLetter(tx: Queryable, id: string): Promise<Pick<DeadLetter, 'id' | 'source' | 'queue' | 'job_id'> | undefined> {
  const { rows } = await tx.query<Pick<DeadLetter, 'id' | 'source' | 'queue' | 'job_id'>>('SELECT id, source, queue, job_id FROM dead_letters WHERE id = $1', [
    id,
  ]);
  return rows[0];
}
