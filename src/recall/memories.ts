import { entitiesInQuery, keywordSearch, loadMemories, memoriesOfEntities, neighbourEntities, vectorSearch, type Hit } from '../db/sql/recall.js';
import { byScore, fuse } from '../domain/scoring.js';
import type { RecallContext } from './context.js';
import type { RecallResult } from './schema.js';

/** Candidates per retriever: wide enough that fusion can reorder, small enough to stay fast. */
const candidates = (limit: number) => Math.max(40, limit * 4);

/**
 * Hybrid memory recall: vector, full-text, entity match and the 1–2 hop graph neighbourhood run in
 * parallel (separate connections), then every candidate is scored with the documented fusion.
 */
export async function recallMemories(ctx: RecallContext, limit: number): Promise<RecallResult[]> {
  const k = candidates(limit);
  const [vector, keyword, linked] = await Promise.all([
    ctx.run((tx) => vectorSearch(tx, 'memories', ctx.scope, ctx.vector, ctx.dims, k)),
    ctx.run((tx) => keywordSearch(tx, 'memories', ctx.scope, ctx.terms, k)),
    ctx.run(async (tx) => {
      const named = await entitiesInQuery(tx, ctx.normalizedQuery, ctx.terms, 10);
      const hops = named.length > 0 ? await neighbourEntities(tx, named, 2, 50) : new Map<string, number>();
      const rows = await memoriesOfEntities(tx, ctx.scope, [...named, ...hops.keys()], k);
      return { named: new Set(named), hops, rows };
    }),
  ]);
  const vec = toMap(vector);
  const kw = normalise(toMap(keyword));
  const entity = new Map<string, number>();
  const graph = new Map<string, number>();
  for (const r of linked.rows) {
    if (linked.named.has(r.entity_id)) entity.set(r.id, 1);
    else graph.set(r.id, Math.max(graph.get(r.id) ?? 0, 0.5 / (linked.hops.get(r.entity_id) ?? 1)));
  }
  const ids = [...new Set([...vec.keys(), ...kw.keys(), ...entity.keys(), ...graph.keys()])];
  const rows = await ctx.run((tx) => loadMemories(tx, ids));
  return rows
    .map((m): RecallResult => {
      const occurred = m.event_time ?? m.occurred_at;
      const { score, scores } = fuse(
        { vector: vec.get(m.id), keyword: kw.get(m.id), entity: entity.get(m.id), graph: graph.get(m.id), occurredAt: occurred, importance: m.importance, isCrystal: m.is_crystal, version: m.version, rankWeight: m.rank_weight },
        ctx.now,
      );
      return {
        id: m.id, type: 'memory', content: m.content, score, scores, kind: m.kind, status: m.status,
        occurred_at: occurred.toISOString(), recorded_at: m.created_at.toISOString(),
        source: { event_ids: m.event_ids, session_id: m.session_id, dataset: m.dataset },
      };
    })
    .sort(byScore)
    .slice(0, limit);
}

export function toMap(hits: Hit[]): Map<string, number> {
  return new Map(hits.map((h) => [h.id, Number(h.score)]));
}

/** Divides by the best score so the top keyword hit of any query counts 1. */
export function normalise(m: Map<string, number>): Map<string, number> {
  const max = Math.max(0, ...m.values());
  if (max <= 0) return m;
  return new Map([...m].map(([id, s]) => [id, s / max]));
}
