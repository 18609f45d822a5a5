import { keywordSearch, type TermWeight } from '../db/sql/recall-bm25.js';
import { cover, focusWeights } from './match.js';
import { entitiesInQuery, loadChunks, loadMemories, memoriesOfEntities, neighbourEntities, vectorSearch } from '../db/sql/recall.js';
import { categoryWords } from '../domain/slot-keys.js';
import { ftsQuery } from '../domain/text.js';
import { hasTimeExpression } from '../domain/query-intent.js';
import { ENTITY_SIGNAL, fusedRelevance, GRAPH, MATCH_WEAK, SUPPORT_CHUNKS, zScores } from '../domain/scoring.js';
import { candidates, floorOptions } from './chunks.js';
import type { RecallContext } from './context.js';
import { memoryResult } from './results.js';
import { preferNewerValues } from './newer.js';
import { normalise, rankWithFloor, type Candidate, type Ranked } from './rank.js';

/**
 * Hybrid memory recall: vector, BM25, entity match and the 1–2 hop graph neighbourhood run in
 * parallel (separate connections on a server), then every candidate is scored with the
 * documented fusion (src/domain/scoring.ts).
 */
export async function memoryCandidates(ctx: RecallContext, k: number): Promise<Candidate[]> {
  const stats: { weights?: TermWeight[] } = {};
  const [vector, keyword, linked] = await Promise.all([
    ctx.run((tx) => vectorSearch(tx, 'memories', ctx.scope, ctx.vector, ctx.space, k)),
    ctx.run((tx) => keywordSearch(tx, 'memories', ctx.scope, ctx.queryDoc, k, 0, { stats })),
    ctx.run(async (tx) => {
      const named = await entitiesInQuery(tx, ctx.normalizedQuery, ctx.terms, GRAPH.namedEntities, ctx.scope);
      const hops = named.length > 0 ? await neighbourEntities(tx, named, GRAPH.hops, GRAPH.fanout) : new Map<string, number>();
      const rows = await memoriesOfEntities(tx, ctx.scope, [...named, ...hops.keys()], k);
      return { named: new Set(named), hops, rows };
    }),
  ]);
  const vec = new Map(vector.map((h) => [h.id, Number(h.score)]));
  const kw = normalise(new Map(keyword.map((h) => [h.id, h.score])));
  const entity = new Map<string, number>();
  const graph = new Map<string, number>();
  for (const r of linked.rows) {
    if (linked.named.has(r.entity_id)) entity.set(r.id, ENTITY_SIGNAL.named);
    else graph.set(r.id, Math.max(graph.get(r.id) ?? 0, ENTITY_SIGNAL.hop / (linked.hops.get(r.entity_id) ?? 1)));
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
    const rel = fusedRelevance(zk.get(m.id) ?? 0, zv.get(m.id) ?? 0, {
      temporal: ctx.asksAboutTime && (m.event_time !== null || hasTimeExpression(m.content)),
    });
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
  const found = await memoryCandidates(ctx, candidates(limit));
  // Values changed in words no slot read: the newer memory about the same thing first (newer.ts).
  preferNewerValues(found, ctx.input.query, ctx.terms, ctx.input.as_of);
  return rankWithFloor(found, ctx.now, limit, { ...floorOptions(ctx), extraCover: await chunkSupport(ctx, found) });
}

/**
 * A memory is one short sentence; the turn it came from, with its neighbours in its key, often
 * holds the question's words when the memory does not ("who is my boss?" of the turn "Rachel took
 * over, I report to her now" beside "any changes at work?"). When no memory covers the query at
 * all (the match would be none), the chunks' keys are asked too: a memory's cover is at least
 * that of the chunks of its source events, and the best chunk cover counts for the match.
 */
async function chunkSupport(ctx: RecallContext, memories: Candidate[]): Promise<number> {
  if (Math.max(0, ...memories.map((c) => c.cover ?? 0)) >= MATCH_WEAK) return 0;
  const stats: { weights?: TermWeight[] } = {};
  const hits = await ctx.run((tx) => keywordSearch(tx, 'chunks', ctx.scope, ctx.queryDoc, SUPPORT_CHUNKS, 0, { stats }));
  if (hits.length === 0) return 0;
  const focus = focusWeights(ctx.terms, stats.weights ?? []);
  const rows = new Map(
    (
      await ctx.run((tx) =>
        loadChunks(
          tx,
          hits.map((h) => h.id),
        ),
      )
    ).map((c) => [c.id, c]),
  );
  const byEvent = new Map<string, number>();
  let best = 0;
  for (const h of hits) {
    const chunk = rows.get(h.id);
    if (!chunk) continue;
    const c = cover(focus, [...h.matched, ...ftsQuery(categoryWords(chunk.content))]);
    best = Math.max(best, c);
    byEvent.set(chunk.event_id, Math.max(byEvent.get(chunk.event_id) ?? 0, c));
  }
  for (const m of memories) for (const e of m.result.source.event_ids) m.cover = Math.max(m.cover ?? 0, byEvent.get(e) ?? 0);
  return best;
}
