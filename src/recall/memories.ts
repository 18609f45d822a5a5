import { keywordSearch } from '../db/sql/recall-bm25.js';
import { entitiesInQuery, loadMemories, memoriesOfEntities, neighbourEntities, vectorSearch } from '../db/sql/recall.js';
import { hasTimeExpression } from '../domain/query-intent.js';
import { INTENT, RELEVANCE, zScores } from '../domain/scoring.js';
import { candidates } from './chunks.js';
import type { RecallContext } from './context.js';
import { normalise, rank, type Candidate } from './rank.js';
import type { RecallResult } from './schema.js';

/**
 * Hybrid memory recall: vector, BM25, entity match and the 1–2 hop graph neighbourhood run in
 * parallel (separate connections on a server), then every candidate is scored with the
 * documented fusion (src/domain/scoring.ts).
 */
export async function memoryCandidates(ctx: RecallContext, k: number): Promise<Candidate[]> {
  const [vector, keyword, linked] = await Promise.all([
    ctx.run((tx) => vectorSearch(tx, 'memories', ctx.scope, ctx.vector, ctx.dims, k)),
    ctx.run((tx) => keywordSearch(tx, 'memories', ctx.scope, ctx.queryDoc, k)),
    ctx.run(async (tx) => {
      const named = await entitiesInQuery(tx, ctx.normalizedQuery, ctx.terms, 10);
      const hops = named.length > 0 ? await neighbourEntities(tx, named, 2, 50) : new Map<string, number>();
      const rows = await memoriesOfEntities(tx, ctx.scope, [...named, ...hops.keys()], k);
      return { named: new Set(named), hops, rows };
    }),
  ]);
  const vec = new Map(vector.map((h) => [h.id, Number(h.score)]));
  const kw = normalise(new Map(keyword.map((h) => [h.id, h.score])));
  const entity = new Map<string, number>();
  const graph = new Map<string, number>();
  for (const r of linked.rows) {
    if (linked.named.has(r.entity_id)) entity.set(r.id, 1);
    else graph.set(r.id, Math.max(graph.get(r.id) ?? 0, 0.5 / (linked.hops.get(r.entity_id) ?? 1)));
  }
  const ids = [...new Set([...vec.keys(), ...kw.keys(), ...entity.keys(), ...graph.keys()])];
  const rows = await ctx.run((tx) => loadMemories(tx, ids));
  const zk = zScores(ids, kw);
  const zv = zScores(ids, vec);
  return rows.map((m): Candidate => {
    const occurred = m.event_time ?? m.occurred_at;
    let rel = RELEVANCE.keyword * (zk.get(m.id) ?? 0) + RELEVANCE.vector * (zv.get(m.id) ?? 0);
    if (ctx.asksAboutTime && (m.event_time !== null || hasTimeExpression(m.content))) rel += INTENT.temporal;
    return {
      rel,
      signals: {
        vector: vec.get(m.id),
        keyword: kw.get(m.id),
        entity: entity.get(m.id),
        graph: graph.get(m.id),
        occurredAt: occurred,
        importance: m.importance,
        isCrystal: m.is_crystal,
        version: m.version,
        rankWeight: m.rank_weight,
      },
      result: {
        id: m.id,
        type: 'memory',
        content: m.content,
        kind: m.kind,
        status: m.status,
        occurred_at: occurred.toISOString(),
        recorded_at: m.created_at.toISOString(),
        source: { event_ids: m.event_ids, session_id: m.session_id, dataset: m.dataset },
      },
    };
  });
}

export async function recallMemories(ctx: RecallContext, limit: number): Promise<RecallResult[]> {
  return rank(await memoryCandidates(ctx, candidates(limit)), ctx.now, limit);
}
