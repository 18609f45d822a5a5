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

/**
 * Starts the run of one piece of a pass written in several transactions (workers/extract/pieces.ts),
 * or returns undefined when a run with this piece key exists already: that piece was committed
 * (a resumed pass skips it). Unique on (tenant, piece_key); a concurrent writer of the same piece
 * waits for the first to commit, then sees the conflict.
 */
export async function startPieceRun(
  tx: Queryable,
  r: { stage: string; jobId: string | undefined; provider?: string; model?: string; pieceKey: string },
): Promise<string | undefined> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO pipeline_runs (stage, job_id, provider, model, piece_key) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id, piece_key) WHERE piece_key IS NOT NULL DO NOTHING RETURNING id`,
    [r.stage, r.jobId ?? null, r.provider ?? null, r.model ?? null, r.pieceKey],
  );
  return rows[0]?.id;
}
