import type { Queryable } from '../pool.js';

export interface TokenUsageRow {
  provider: string;
  model: string;
  /** The operation: `extract`, `embed`, … */
  task: string;
  jobId: string | null;
  tokensIn: number;
  tokensOut: number;
}

/**
 * One row per paid provider call, in the tenant of the transaction (RLS). Not idempotent on
 * purpose: a call that was paid twice is billed twice.
 */
export async function insertTokenUsage(tx: Queryable, u: TokenUsageRow): Promise<void> {
  await tx.query('INSERT INTO token_usage (provider, model, task, job_id, tokens_in, tokens_out) VALUES ($1, $2, $3, $4, $5, $6)', [
    u.provider,
    u.model,
    u.task,
    u.jobId,
    Math.round(u.tokensIn),
    Math.round(u.tokensOut),
  ]);
}
