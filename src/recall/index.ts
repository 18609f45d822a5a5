import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import { recordRecall } from '../db/sql/recall-graph.js';
import { recallChunks } from './chunks.js';
import { recallContext } from './context.js';
import { recallGraph } from './graph.js';
import { recallMemories } from './memories.js';
import type { RecallInput, RecallResult } from './schema.js';

export interface RecallAnswer {
  recall_id: string;
  results: RecallResult[];
  took_ms: number;
}

/**
 * The fast path of DESIGN §5: no LLM call. `memories` (default), `chunks` (raw evidence), `graph`
 * (triplets) or `auto` (memories first, then evidence chunks and triplets, within the limit).
 * Recall adds no memory; it logs the recall (its id is the handle for feedback) and access signals.
 */
export async function recall(deps: Deps, tenantId: string, input: RecallInput, onAccess?: (memoryIds: string[]) => void): Promise<RecallAnswer> {
  const started = performance.now();
  const ctx = await recallContext(deps, tenantId, input);
  let results: RecallResult[];
  switch (input.mode) {
    case 'memories':
      results = await recallMemories(ctx, input.limit);
      break;
    case 'chunks':
      results = await recallChunks(ctx, input.limit);
      break;
    case 'graph':
      results = await recallGraph(ctx, input.limit);
      break;
    case 'auto':
      results = await recallAuto(ctx, input.limit);
      break;
  }
  const tookMs = Math.round((performance.now() - started) * 100) / 100;
  const recallId = await withTenant(deps.db, tenantId, (tx) =>
    recordRecall(tx, { query: input.query, params: { ...input, query: undefined }, userId: input.user_id ?? null, resultIds: results.map((r) => r.id), tookMs }),
  );
  onAccess?.(results.filter((r) => r.type === 'memory').map((r) => r.id));
  return { recall_id: recallId, results, took_ms: tookMs };
}

/**
 * Memories and evidence chunks ranked together by their fused scores (chunks whose event already
 * backs a returned memory are dropped as redundant), plus up to a fifth of the slots for triplets.
 */
async function recallAuto(ctx: Awaited<ReturnType<typeof recallContext>>, limit: number): Promise<RecallResult[]> {
  const graphSlots = Math.floor(limit / 5);
  const [memories, chunks, triplets] = await Promise.all([recallMemories(ctx, limit), recallChunks(ctx, limit), graphSlots > 0 ? recallGraph(ctx, graphSlots) : []]);
  const covered = new Set(memories.flatMap((m) => m.source.event_ids));
  const evidence = chunks.filter((c) => !c.source.event_ids.every((e) => covered.has(e)));
  const textual = [...memories, ...evidence].sort((a, b) => b.score - a.score).slice(0, limit - Math.min(graphSlots, triplets.length));
  return [...textual, ...triplets.slice(0, limit - textual.length)];
}
