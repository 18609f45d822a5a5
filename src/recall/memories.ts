import { keywordSearch, type TermWeight } from '../db/sql/recall-bm25.js';
import { cover, focusWeights } from './match.js';
import { entitiesInQuery, loadMemories, memoriesOfEntities, neighbourEntities, vectorSearch } from '../db/sql/recall.js';
import { hasTimeExpression } from '../domain/query-intent.js';
import { INTENT, RELEVANCE, zScores } from '../domain/scoring.js';
import { candidates, floorOptions } from './chunks.js';
import type { RecallContext } from './context.js';
import { memoryResult } from './results.js';
import { normalise, rankWithFloor, type Candidate, type Ranked } from './rank.js';

/**
 * Hybrid memory recall: vector, BM25, entity match and the 1–2 hop graph neighbourhood run in
 * parallel (separate connections on a server), then every candidate is scored with the
 * documented fusion (src/domain/scoring.ts).
 */
export async function memoryCandidates(ctx: RecallContext, k: number): Promise<Candidate[]> {
  const stats: { weights?: TermWeight[] } = {};
  const [vector, keyword, linked] = await Promise.all([
    ctx.run((tx) => vectorSearch(tx, 'memories', ctx.scope, ctx.vector, ctx.dims, k)),
    ctx.run((tx) => keywordSearch(tx, 'memories', ctx.scope, ctx.queryDoc, k, 0, { stats })),
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
  const focus = focusWeights(ctx.terms, stats.weights ?? []);
  const covers = new Map(keyword.map((h) => [h.id, cover(focus, h.matched)]));
  const history = ctx.input.include_history && !ctx.input.as_of;
  return rows.map((m): Candidate => {
    const occurred = m.event_time ?? m.occurred_at;
    let rel = RELEVANCE.keyword * (zk.get(m.id) ?? 0) + RELEVANCE.vector * (zv.get(m.id) ?? 0);
    if (ctx.asksAboutTime && (m.event_time !== null || hasTimeExpression(m.content))) rel += INTENT.temporal;
    // With history asked for, a superseded version ranks below the version that replaced it.
    const current = m.status === 'active' || !history;
    return {
      rel,
      cover: covers.get(m.id) ?? 0,
      signals: {
        current,
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
      result: memoryResult(m),
    };
  });
}

export async function recallMemories(ctx: RecallContext, limit: number): Promise<Ranked> {
  return rankWithFloor(await memoryCandidates(ctx, candidates(limit)), ctx.now, limit, floorOptions(ctx));
}
