import type { Deps } from '../deps.js';
import { byScore } from '../domain/scoring.js';
import { withTenant, type Queryable, type Tx } from '../db/pool.js';
import { setVectorSearch } from '../db/sql/recall.js';
import { recordRecall } from '../db/sql/recall-graph.js';
import { recallChunks } from './chunks.js';
import { recallContext, type RecallContext } from './context.js';
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
  // Outside any transaction: the query embedding may be a provider call.
  const ctx = await recallContext(deps, tenantId, input);
  const finish = async (tx: Queryable, results: RecallResult[]): Promise<RecallAnswer> => {
    const tookMs = Math.round((performance.now() - started) * 100) / 100;
    const recallId = await recordRecall(tx, { query: input.query, params: { ...input, query: undefined }, userId: input.user_id ?? null, resultIds: results.map((r) => r.id), tookMs });
    return { recall_id: recallId, results, took_ms: tookMs };
  };
  let answer: RecallAnswer;
  if (deps.embedded) {
    // PGlite has one session: "parallel" connections only queue behind each other, and each extra
    // transaction costs four statements of ~1 ms CPU each there. So the retrievers share one
    // transaction, taking turns on its client (one statement at a time), and so does the log.
    answer = await withTenant(deps.db, tenantId, async (tx) => {
      await setVectorSearch(tx, ctx.vectorSearch.iterative, ctx.vectorSearch.efSearch);
      // After a failure the later turns reject without touching the aborted transaction.
      let turn: Promise<unknown> = Promise.resolve();
      const run = <T>(fn: (t: Tx) => Promise<T>): Promise<T> => {
        const mine = turn.then(() => fn(tx));
        turn = mine;
        return mine;
      };
      return finish(tx, await retrieve({ ...ctx, run }));
    });
  } else {
    const results = await retrieve(ctx);
    answer = await withTenant(deps.db, tenantId, (tx) => finish(tx, results));
  }
  onAccess?.(answer.results.filter((r) => r.type === 'memory').map((r) => r.id));
  return answer;
}

async function retrieve(ctx: RecallContext): Promise<RecallResult[]> {
  switch (ctx.input.mode) {
    case 'memories':
      return recallMemories(ctx, ctx.input.limit);
    case 'chunks':
      return recallChunks(ctx, ctx.input.limit);
    case 'graph':
      return recallGraph(ctx, ctx.input.limit);
    case 'auto':
      return recallAuto(ctx, ctx.input.limit);
  }
}

/**
 * Memories and evidence chunks ranked together by their fused scores (chunks whose event already
 * backs a returned memory are dropped as redundant), plus up to a fifth of the slots for triplets.
 */
async function recallAuto(ctx: RecallContext, limit: number): Promise<RecallResult[]> {
  const graphSlots = Math.floor(limit / 5);
  const [memories, chunks, triplets] = await Promise.all([recallMemories(ctx, limit), recallChunks(ctx, limit), graphSlots > 0 ? recallGraph(ctx, graphSlots) : []]);
  const covered = new Set(memories.flatMap((m) => m.source.event_ids));
  const evidence = chunks.filter((c) => !c.source.event_ids.every((e) => covered.has(e)));
  const textual = [...memories, ...evidence].sort(byScore).slice(0, limit - Math.min(graphSlots, triplets.length));
  return [...textual, ...triplets.slice(0, limit - textual.length)];
}
