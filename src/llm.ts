import { createHash } from 'node:crypto';
import { withTenant } from './db/pool.js';
import { getLlmCache, putLlmCache } from './db/sql/llm-cache.js';
import type { Deps } from './deps.js';
import { ExtractionResult, type ExtractInput } from './providers/llm/types.js';

/**
 * Extraction through the tenant's answer cache: a paid answer is stored before it is applied, so
 * a job replayed after a crash (or twice at once) never pays for the same messages twice. The local
 * heuristic extractor is free and deterministic; it is cached the same way for uniformity.
 */
export async function extractWithCache(deps: Deps, tenantId: string, input: ExtractInput): Promise<ExtractionResult> {
  const llm = deps.providers.llm;
  // Keyed by the messages alone: the known-entity list in the prompt changes whenever another
  // session writes entities, and a retry must still find the answer it already paid for.
  const inputHash = createHash('sha256').update(JSON.stringify(input.messages)).digest('hex');
  const cached = await withTenant(deps.db, tenantId, (tx) => getLlmCache<unknown>(tx, llm.model, 'extract', inputHash));
  if (cached !== undefined) {
    const parsed = ExtractionResult.safeParse(cached);
    if (parsed.success) return parsed.data;
  }
  const { result, usage } = await llm.extract(input);
  if (llm.paid) {
    await withTenant(deps.db, tenantId, (tx) =>
      putLlmCache(tx, { model: llm.model, task: 'extract', inputHash, output: result, tokensIn: usage?.input ?? 0, tokensOut: usage?.output ?? 0 }),
    );
  }
  return result;
}
