import type { Queryable } from '../pool.js';

/** Starts a pipeline run row (the provenance of what a job writes). */
export async function startRun(tx: Queryable, r: { stage: string; jobId: string | undefined; provider?: string; model?: string }): Promise<string> {
  const { rows } = await tx.query<{ id: string }>('INSERT INTO pipeline_runs (stage, job_id, provider, model) VALUES ($1, $2, $3, $4) RETURNING id', [
    r.stage,
    r.jobId ?? null,
    r.provider ?? null,
    r.model ?? null,
  ]);
  return (rows[0] as { id: string }).id;
}

export async function finishRun(tx: Queryable, id: string, stats: Record<string, number>): Promise<void> {
  await tx.query('UPDATE pipeline_runs SET finished_at = now(), stats = $2 WHERE id = $1', [id, JSON.stringify(stats)]);
}
