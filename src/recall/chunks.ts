import { keywordSearch } from '../db/sql/recall-bm25.js';
import { loadChunks, vectorSearch } from '../db/sql/recall.js';
import { INTENT, RELEVANCE, SESSION_WEIGHT, zScores } from '../domain/scoring.js';
import { hasTimeExpression, namesParticipant } from '../domain/query-intent.js';
import type { RecallContext } from './context.js';
import { normalise, rank, type Candidate } from './rank.js';
import type { RecallResult } from './schema.js';

export type ChunkRetrievers = 'hybrid' | 'vector' | 'keyword';

/** Candidates per retriever: wide enough that fusion can reorder, small enough to stay fast. */
export const candidates = (limit: number) => Math.max(40, limit * 4);

/**
 * Raw evidence: chunks by key vector and BM25 over their keys (with the session prior), fused on
 * z-scores, with the query-intent adjustments: the query names the chunk's speaker, or asks about
 * time and the chunk holds a time expression; a short own text lowers it; the reply to a candidate
 * that asks a question gains a share of its relevance (src/domain/scoring.ts). Baselines (`vector`, `keyword`) rank by that one
 * signal alone, so they measure that retriever and nothing else.
 */
export async function chunkCandidates(ctx: RecallContext, k: number, retrievers: ChunkRetrievers = 'hybrid'): Promise<Candidate[]> {
  const [vector, keyword] = await Promise.all([
    retrievers === 'keyword' ? [] : ctx.run((tx) => vectorSearch(tx, 'chunks', ctx.scope, ctx.vector, ctx.dims, k)),
    retrievers === 'vector' ? [] : ctx.run((tx) => keywordSearch(tx, 'chunks', ctx.scope, ctx.queryDoc, k, SESSION_WEIGHT)),
  ]);
  const vec = new Map(vector.map((h) => [h.id, Number(h.score)]));
  const kw = normalise(new Map(keyword.map((h) => [h.id, h.score])));
  const ids = [...new Set([...vec.keys(), ...kw.keys()])];
  const rows = await ctx.run((tx) => loadChunks(tx, ids));
  const zk = zScores(ids, kw);
  const zv = zScores(ids, vec);
  const relOf = new Map<string, number>();
  const out = rows.map((c): Candidate => {
    let rel: number;
    if (retrievers === 'keyword') rel = kw.get(c.id) ?? 0;
    else if (retrievers === 'vector') rel = vec.get(c.id) ?? 0;
    else {
      rel = RELEVANCE.keyword * (zk.get(c.id) ?? 0) + RELEVANCE.vector * (zv.get(c.id) ?? 0);
      if (namesParticipant(ctx.queryWords, c.speaker)) rel += INTENT.speaker;
      if (ctx.asksAboutTime && hasTimeExpression(c.content)) rel += INTENT.temporal;
      // Very short turns ("Thanks!", "Wow") rarely hold evidence but match through their neighbours.
      rel += INTENT.length * (Math.min(c.tokens, 24) / 24 - 1);
    }
    relOf.set(c.id, rel);
    return {
      rel,
      signals: { vector: vec.get(c.id), keyword: kw.get(c.id), occurredAt: c.occurred_at, importance: c.importance ?? 5 },
      result: {
        id: c.id,
        type: 'chunk',
        content: c.content,
        occurred_at: c.occurred_at.toISOString(),
        recorded_at: c.created_at.toISOString(),
        source: { event_ids: [c.event_id], session_id: c.session_id, dataset: c.dataset },
      },
    };
  });
  if (retrievers === 'hybrid') {
    // A turn that asks a question is often found by the query's words while the turn after it
    // holds the answer: that turn, when a candidate too, gains a share of the question's relevance.
    const lift = new Map<string, number>();
    for (const c of rows) {
      const q = relOf.get(c.id) ?? 0;
      if (c.next_id !== null && relOf.has(c.next_id) && q > 0) lift.set(c.next_id, Math.max(lift.get(c.next_id) ?? 0, INTENT.answer * q));
    }
    for (const cand of out) cand.rel += lift.get(cand.result.id) ?? 0;
  }
  return out;
}

export async function recallChunks(ctx: RecallContext, limit: number, retrievers: ChunkRetrievers = 'hybrid'): Promise<RecallResult[]> {
  return rank(await chunkCandidates(ctx, candidates(limit), retrievers), ctx.now, limit);
}
