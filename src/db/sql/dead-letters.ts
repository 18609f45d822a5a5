import type { Queryable } from '../pool.js';

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
  created_at: Date;
}

/** Records a job that exhausted its attempts. Idempotent per (queue, job id): a later failure updates the message. */
export async function insertJobDeadLetter(tx: Queryable, d: { queue: string; jobId: string; message: string; payload: string }): Promise<void> {
  const code = /^([A-Z_]+):/.exec(d.message)?.[1] ?? 'JOB_FAILED';
  await tx.query(
    `INSERT INTO dead_letters (source, queue, job_id, code, message, payload) VALUES ('job', $1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id, queue, job_id) WHERE source = 'job' DO UPDATE SET message = EXCLUDED.message, created_at = now(), retried_at = NULL`,
    [d.queue, d.jobId, code, d.message.slice(0, 4000), d.payload.slice(0, 100_000)],
  );
}

/** Records a malformed line of an events file. Idempotent per (file, line, content). */
export async function insertFileDeadLetter(tx: Queryable, d: { file: string; line: number; code: string; message: string; payload: string }): Promise<void> {
  await tx.query(
    `INSERT INTO dead_letters (source, file, line, code, message, payload) VALUES ('file', $1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id, file, line, md5(coalesce(payload, ''))) WHERE source = 'file' DO NOTHING`,
    [d.file, d.line, d.code, d.message.slice(0, 4000), d.payload.slice(0, 100_000)],
  );
}

export async function listDeadLetters(tx: Queryable, opts: { limit: number; before?: Date | undefined; source?: string | undefined }): Promise<DeadLetter[]> {
  const { rows } = await tx.query<DeadLetter>(
    `SELECT id, source, queue, job_id, file, line, code, message, payload, created_at FROM dead_letters
     WHERE ($2::timestamptz IS NULL OR created_at < $2) AND ($3::text IS NULL OR source = $3)
     ORDER BY created_at DESC LIMIT $1`,
    [opts.limit, opts.before ?? null, opts.source ?? null],
  );
  return rows;
}
