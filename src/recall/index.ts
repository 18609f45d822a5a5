import type { Deps } from '../deps.js';
import { AUTO_MEMORY_SCALE, AUTO_TRIPLET_EVERY, INTENT } from '../domain/scoring.js';
import { withTenant, type Queryable, type Tx } from '../db/pool.js';
import { setVectorSearch } from '../db/sql/recall.js';
import { recordRecall } from '../db/sql/recall-graph.js';
import { candidates, chunkCandidates, floorOptions, recallChunks } from './chunks.js';
import { recallContext, type RecallContext } from './context.js';
import { recallGraph } from './graph.js';
import { memoryCandidates, recallMemories } from './memories.js';
import { preferNewerValues } from './newer.js';
import { rankWithFloor, type Candidate, type Ranked } from './rank.js';
import type { Match, RecallInput, RecallResult } from './schema.js';
import { VECTORS_MISSING_CAP, vectorsMissing } from './vectors-missing.js';

export interface RecallAnswer {
  recall_id: string;
  /** How well anything stored matched (src/recall/match.ts): "none" means nothing relevant is stored. */
  match: Match;
  results: RecallResult[];
  took_ms: number;
  /**
   * Present when some chunks or memories of the tenant have no vector of the configured model yet
   * (after a model change, until `memloom reembed` or the `reembed` task): the vector retriever
   * does not compare them; keyword and entity retrievers still find them. `missing` is counted up
   * to VECTORS_MISSING_CAP and may lag by a minute.
   */
  vectors?: { model: string; missing: number; capped: boolean };
}

/**
 * The fast path, no LLM call (docs/recall.md). `chunks` (raw evidence, the default), `memories`, `graph`
 * (triplets) or `auto` (memories first, then evidence chunks and triplets, within the limit).
 * Recall adds no memory; it logs the recall (its id is the handle for feedback) and access signals.
 */
export interface RecallOptions {
  /**
   * The retrievers share one transaction and take turns on its connection. Default: embedded mode
   * only. On a server they run in parallel, each in a tenant transaction of its own on its own
   * pooled connection; the results are the same either way (test/recall-parallel.test.ts).
   */
  oneTransaction?: boolean;
}

export async function recall(
  deps: Deps,
  tenantId: string,
  input: RecallInput,
  onAccess?: (memoryIds: string[]) => void,
  opts: RecallOptions = {},
): Promise<RecallAnswer> {
  return recallWith(deps, tenantId, input, retrieve, onAccess, opts);
}

/**
 * One recall with a retrieval of the caller's choosing (recall's modes, or the context block's
 * memories and chunks together, src/context): one query embedding, the retrievers in one
 * transaction (embedded) or in parallel (server), one logged recall and its access signals.
 */
export async function recallWith(
  deps: Deps,
  tenantId: string,
  input: RecallInput,
  retrieveWith: (ctx: RecallContext) => Promise<Ranked>,
  onAccess?: (memoryIds: string[]) => void,
  opts: RecallOptions = {},
): Promise<RecallAnswer> {
  const started = performance.now();
  // Outside any transaction: the query embedding may be a provider call; the count of rows of
  // another model is cached (vectors-missing.ts) and, when taken, runs in its own short transaction.
  const [ctx, missing] = await Promise.all([recallContext(deps, tenantId, input), vectorsMissing(deps, tenantId, spaceOf(deps))]);
  const finish = async (tx: Queryable, { results, match }: Ranked): Promise<RecallAnswer> => {
    const tookMs = Math.round((performance.now() - started) * 100) / 100;
    const recallId = await recordRecall(tx, {
      query: input.query,
      params: { ...input, query: undefined },
      userId: input.user_id ?? null,
      resultIds: results.map((r) => r.id),
      tookMs,
    });
    return { recall_id: recallId, match, results, took_ms: tookMs };
  };
  let answer: RecallAnswer;
  if (opts.oneTransaction ?? deps.embedded !== undefined) {
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
      return finish(tx, await retrieveWith({ ...ctx, run }));
    });
  } else {
    const results = await retrieveWith(ctx);
    answer = await withTenant(deps.db, tenantId, (tx) => finish(tx, results));
  }
  onAccess?.(answer.results.filter((r) => r.type === 'memory').map((r) => r.id));
  if (missing > 0) answer.vectors = { model: ctx.space.model, missing, capped: missing >= VECTORS_MISSING_CAP };
  return answer;
}

function spaceOf(deps: Deps): { model: string; dims: number } {
  return { model: deps.providers.embeddings.model, dims: deps.providers.embeddings.dimensions };
}

async function retrieve(ctx: RecallContext): Promise<Ranked> {
  switch (ctx.input.mode) {
    case 'memories':
      return recallMemories(ctx, ctx.input.limit);
    case 'chunks':
      return recallChunks(ctx, ctx.input.limit);
    case 'graph': {
      const results = await recallGraph(ctx, ctx.input.limit);
      // A triplet is found by the words or the entities the query names: named is a strong match.
      const match = results.length === 0 ? 'none' : results.some((r) => r.triplet?.direction !== 'none') ? 'strong' : 'weak';
      return { results, match };
    }
    case 'auto':
      return recallAuto(ctx, ctx.input.limit);
  }
}

/**
 * Memories and evidence chunks ranked together on one relevance scale (each pool's retrievers are
 * z-scored, so the pools compare); a chunk supporting a memory the query found is lifted
 * (INTENT.provenance times the memory's relevance); chunks whose events all back a returned memory
 * are dropped as redundant; up to one slot in AUTO_TRIPLET_EVERY (a fifth) goes to triplets.
 */
async function recallAuto(ctx: RecallContext, limit: number): Promise<Ranked> {
  const graphSlots = Math.floor(limit / AUTO_TRIPLET_EVERY);
  const k = candidates(limit);
  const [memories, chunks, triplets] = await Promise.all([
    memoryCandidates(ctx, k),
    chunkCandidates(ctx, k),
    graphSlots > 0 ? recallGraph(ctx, graphSlots) : [],
  ]);
  const support = new Map<string, number>();
  for (const m of memories) for (const e of m.result.source.event_ids) support.set(e, Math.max(support.get(e) ?? 0, m.rel));
  for (const m of memories) m.rel *= AUTO_MEMORY_SCALE;
  for (const c of chunks) c.rel += INTENT.provenance * Math.max(0, ...c.result.source.event_ids.map((e) => support.get(e) ?? 0));
  const slots = limit - Math.min(graphSlots, triplets.length);
  const textual: RecallResult[] = [];
  const covered = new Set<string>();
  // A corrected memory can come both as a memory and as the evidence that replaced a chunk: once,
  // with the better relevance of the two.
  const byId = new Map<string, Candidate>();
  for (const c of [...memories, ...chunks]) {
    const had = byId.get(c.result.id);
    if (!had || c.rel > had.rel) byId.set(c.result.id, had ? { ...c, cover: Math.max(c.cover ?? 0, had.cover ?? 0) } : c);
  }
  const pool = [...byId.values()];
  // Memories and chunks together: a newer statement of either kind goes before an older one (newer.ts).
  preferNewerValues(pool, ctx.input.query, ctx.terms, ctx.input.as_of);
  const { results, match } = rankWithFloor(pool, ctx.now, pool.length, floorOptions(ctx));
  for (const r of results) {
    if (textual.length >= slots) break;
    if (r.type === 'chunk' && r.source.event_ids.every((e) => covered.has(e))) continue;
    if (r.type === 'memory') for (const e of r.source.event_ids) covered.add(e);
    textual.push(r);
  }
  if (match === 'none' && !ctx.input.include_weak) return { results: [], match };
  return { results: [...textual, ...triplets.slice(0, limit - textual.length)], match };
}
