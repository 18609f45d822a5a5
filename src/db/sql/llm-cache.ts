import type { Queryable } from '../pool.js';

/** A stored paid answer for (model, task, input hash) of the current tenant. */
export async function getLlmCache<T>(tx: Queryable, model: string, task: string, inputHash: string): Promise<T | undefined> {
  const { rows } = await tx.query<{ output: T }>('SELECT output FROM llm_cache WHERE model = $1 AND task = $2 AND input_hash = $3', [model, task, inputHash]);
  return rows[0]?.output;
}

export async function putLlmCache(
  tx: Queryable,
  e: { model: string; task: string; inputHash: string; output: unknown; tokensIn: number; tokensOut: number },
): Promise<void> {
  await tx.query(`INSERT INTO llm_cache (model, task, input_hash, output, tokens_in, tokens_out) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, [
    e.model,
    e.task,
    e.inputHash,
    JSON.stringify(e.output),
    e.tokensIn,
    e.tokensOut,
  ]);
}
