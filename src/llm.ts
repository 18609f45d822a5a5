import { createHash } from 'node:crypto';
import { z } from 'zod';
import { withTenant } from './db/pool.js';
import { getLlmCache, putLlmCache } from './db/sql/llm-cache.js';
import type { Deps } from './deps.js';
import { isMemloomError } from './errors.js';
import { ExtractionResult, RECONCILE_INVALID, ReconcileAnswer, type ExtractInput, type ReconcileInput } from './providers/llm/types.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Extraction through the tenant's answer cache: a paid answer is stored before it is applied, so
 * a job replayed after a crash (or twice at once) never pays for the same messages twice. The local
 * heuristic extractor is free and deterministic: its answers are neither stored nor looked up.
 */
export async function extractWithCache(deps: Deps, tenantId: string, input: ExtractInput): Promise<ExtractionResult> {
  const llm = deps.providers.llm;
  if (!llm.paid) return (await llm.extract(input)).result;
  // Keyed by the messages alone: the known-entity list in the prompt changes whenever another
  // session writes entities, and a retry must still find the answer it already paid for.
  const inputHash = sha256(JSON.stringify(input.messages));
  const cached = await withTenant(deps.db, tenantId, (tx) => getLlmCache<unknown>(tx, llm.model, 'extract', inputHash));
  if (cached !== undefined) {
    const parsed = ExtractionResult.safeParse(cached);
    if (parsed.success) return parsed.data;
  }
  const { result, usage } = await llm.extract(input);
  await withTenant(deps.db, tenantId, (tx) =>
    putLlmCache(tx, { model: llm.model, task: 'extract', inputHash, output: result, tokensIn: usage?.input ?? 0, tokensOut: usage?.output ?? 0 }),
  );
  return result;
}

/** The model's decisions, or why there are none (the offline rules decide then). */
export type ReconcileOutcome = { answer: ReconcileAnswer } | { answer: undefined; code: string };

/** A stored reconcile outcome: the answer, or the mark of an answer that was paid for and invalid. */
const StoredReconcile = z.union([ReconcileAnswer, z.object({ invalid: z.literal(true) })]);

/**
 * One batched reconcile decision through the tenant's answer cache, keyed by a hash of the whole
 * question (the units and their candidates, as texts, kinds and dates; memory ids are only in the
 * caller's numbering, so the same question asked for another user gets the same answer, rightly):
 * stored before it is applied, so a pass replayed
 * after a crash asks nothing again. An answer still invalid after the provider's corrective turn
 * is stored as `{invalid: true}` for the same reason: it was paid for, and the rules decide.
 *
 * A reconcile opinion is an optimisation: the extraction must land without it. So an answer the
 * model cannot get right, or any other error that a retry would not cure (a call over
 * TOKEN_BUDGET_PER_TASK, a rejected request), yields no decisions and the offline rules decide;
 * only retryable errors (rate limits, budgets, timeouts, 5xx) are thrown, so the job waits and
 * retries as for the extraction call.
 */
export async function reconcileWithCache(deps: Deps, tenantId: string, input: ReconcileInput): Promise<ReconcileOutcome> {
  const llm = deps.providers.llm;
  if (!llm.paid || !llm.reconcile) return { answer: undefined, code: 'RECONCILE_UNSUPPORTED' };
  const inputHash = sha256(JSON.stringify(input));
  const cached = await withTenant(deps.db, tenantId, (tx) => getLlmCache<unknown>(tx, llm.model, 'reconcile', inputHash));
  const stored = cached === undefined ? undefined : StoredReconcile.safeParse(cached);
  if (stored?.success) return 'invalid' in stored.data ? { answer: undefined, code: RECONCILE_INVALID } : { answer: stored.data };
  const put = (output: unknown, tokensIn: number, tokensOut: number) =>
    withTenant(deps.db, tenantId, (tx) => putLlmCache(tx, { model: llm.model, task: 'reconcile', inputHash, output, tokensIn, tokensOut }));
  try {
    const { result, usage } = await llm.reconcile(input);
    await put(result, usage?.input ?? 0, usage?.output ?? 0);
    return { answer: result };
  } catch (err) {
    if (!isMemloomError(err) || err.retryable) throw err;
    if (err.code === RECONCILE_INVALID) {
      const tokens = (v: unknown) => (typeof v === 'number' ? v : 0);
      await put({ invalid: true }, tokens(err.details?.inputTokens), tokens(err.details?.outputTokens));
    }
    return { answer: undefined, code: err.code };
  }
}
