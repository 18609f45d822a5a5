import { keywordSearch, loadChunks, vectorSearch } from '../db/sql/recall.js';
import { byScore, fuse } from '../domain/scoring.js';
import type { RecallContext } from './context.js';
import { normalise, toMap } from './memories.js';
import type { RecallResult } from './schema.js';

export type ChunkRetrievers = 'hybrid' | 'vector' | 'keyword';

/** Raw evidence: chunks by vector and full text, fused like memories (importance from the event, 5 by default). */
export async function recallChunks(ctx: RecallContext, limit: number, retrievers: ChunkRetrievers = 'hybrid'): Promise<RecallResult[]> {
  const k = Math.max(40, limit * 4);
  const [vector, keyword] = await Promise.all([
    retrievers === 'keyword' ? [] : ctx.run((tx) => vectorSearch(tx, 'chunks', ctx.scope, ctx.vector, ctx.dims, k)),
    retrievers === 'vector' ? [] : ctx.run((tx) => keywordSearch(tx, 'chunks', ctx.scope, ctx.terms, k)),
  ]);
  const vec = toMap(vector);
  const kw = normalise(toMap(keyword));
  const rows = await ctx.run((tx) => loadChunks(tx, [...new Set([...vec.keys(), ...kw.keys()])]));
  return rows
    .map((c): RecallResult => {
      const signals = { vector: vec.get(c.id), keyword: kw.get(c.id), occurredAt: c.occurred_at, importance: c.importance ?? 5 };
      const { score, scores } = fuse(signals, ctx.now);
      // Baselines rank by their single signal alone, so they measure that retriever and nothing else.
      const ranked = retrievers === 'vector' ? scores.vector : retrievers === 'keyword' ? scores.keyword : score;
      return {
        id: c.id, type: 'chunk', content: c.content, score: ranked, scores,
        occurred_at: c.occurred_at.toISOString(), recorded_at: c.created_at.toISOString(),
        source: { event_ids: [c.event_id], session_id: c.session_id, dataset: c.dataset },
      };
    })
    .sort(byScore)
    .slice(0, limit);
}
