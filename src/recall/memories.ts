import { keywordSearch, type TermWeight } from '../db/sql/recall-bm25.js';
import { cover, focusWeights } from './match.js';
import { entitiesInQuery, loadChunks, loadMemories, memoriesOfEntities, neighbourEntities, vectorSearch } from '../db/sql/recall.js';
import { categoryWords } from '../domain/slot-keys.js';
import { ftsQuery } from '../domain/text.js';
import { hasTimeExpression } from '../domain/query-intent.js';
import { ENTITY_SIGNAL, EVIDENCE_WEIGHT, fusedRelevance, GRAPH, MATCH_WEAK, SUPPORT_CHUNKS, zScores } from '../domain/scoring.js';
import { candidates, floorOptions } from './chunks.js';
import type { RecallContext } from './context.js';
import { chunkEvidence, inheritedFromChunks, onePerTurn, type ChunkEvidence } from './evidence.js';
import { memoryResult } from './results.js';
import { preferNewerValues } from './newer.js';
import { normalise, rankWithFloor, type Candidate, type Ranked } from './rank.js';

/**
 * Hybrid memory recall: vector, BM25, entity match and the 1–2 hop graph neighbourhood run in
 * parallel (separate connections on a server), then every candidate is scored with the
 * documented fusion (src/domain/scoring.ts). With `evidence` (the chunks' keyword hits and the
 * memories they are evidence of, src/recall/evidence.ts), the memories of the chunks found are
 * candidates too, and a memory's relevance adds EVIDENCE_WEIGHT × the z-score of its best source
 * chunk's keyword score (one unit per turn: onePerTurn); its cover is at least its chunks'.
 */
export async function memoryCandidates(ctx: RecallContext, k: number, chunks?: Promise<ChunkEvidence>): Promise<Candidate[]> {
  const stats: { weights?: TermWeight[] } = {};
  const [vector, keyword, linked, evidence] = await Promise.all([
    ctx.run((tx) => vectorSearch(tx, 'memories', ctx.scope, ctx.vector, ctx.space, k)),
    ctx.run((tx) => keywordSearch(tx, 'memories', ctx.scope, ctx.queryDoc, k, 0, { stats })),
    ctx.run(async (tx) => {
      const named = await entitiesInQuery(tx, ctx.normalizedQuery, ctx.terms, GRAPH.namedEntities, ctx.scope);
      const hops = named.length > 0 ? await neighbourEntities(tx, named, GRAPH.hops, GRAPH.fanout) : new Map<string, number>();
      const rows = await memoriesOfEntities(tx, ctx.scope, [...named, ...hops.keys()], k);
      return { named: new Set(named), hops, rows };
    }),
    chunks,
  ]);
  const vec = new Map(vector.map((h) => [h.id, Number(h.score)]));
  const kw = normalise(new Map(keyword.map((h) => [h.id, h.score])));
  const entity = new Map<string, number>();
  const graph = new Map<string, number>();
  for (const r of linked.rows) {
    if (linked.named.has(r.entity_id)) entity.set(r.id, ENTITY_SIGNAL.named);
    else graph.set(r.id, Math.max(graph.get(r.id) ?? 0, ENTITY_SIGNAL.hop / (linked.hops.get(r.entity_id) ?? 1)));
  }
  const inherited = evidence ? inheritedFromChunks(ctx, evidence) : { score: new Map<string, number>(), cover: new Map<string, number>() };
  const ids = [...new Set([...vec.keys(), ...kw.keys(), ...entity.keys(), ...graph.keys(), ...inherited.score.keys()])];
  const rows = await ctx.run((tx) => loadMemories(tx, ids));
  const zk = zScores(ids, kw);
  const zv = zScores(ids, vec);
  const own = (id: string) => fusedRelevance(zk.get(id) ?? 0, zv.get(id) ?? 0, {});
  // A memory no hit chunk supports scores 0 (not the lowest hit's score): the chunks' scores are absolute shares of the best.
  const kept = onePerTurn(inherited.score, rows, own);
  const ze = evidence ? zScores(ids, new Map(ids.map((id) => [id, kept.get(id) ?? 0]))) : new Map<string, number>();
  const focus = focusWeights(ctx.terms, stats.weights ?? []);
  const covers = new Map(keyword.map((h) => [h.id, cover(focus, h.matched)]));
  const history = ctx.input.include_history && !ctx.input.as_of;
  return rows.map((m): Candidate => {
    const occurred = m.event_time ?? m.occurred_at;
    const rel =
      fusedRelevance(zk.get(m.id) ?? 0, zv.get(m.id) ?? 0, {
        temporal: ctx.asksAboutTime && (m.event_time !== null || hasTimeExpression(m.content)),
      }) +
      EVIDENCE_WEIGHT * (ze.get(m.id) ?? 0);
    // With history asked for, a superseded version ranks below the version that replaced it.
    const current = m.status === 'active' || !history;
    return {
      rel,
      cover: Math.max(covers.get(m.id) ?? 0, inherited.cover.get(m.id) ?? 0),
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
  const k = candidates(limit);
  // A recall of the past (as_of, include_history) ranks versions by their own words: the chunks'
  // evidence counts for the current version of what they said.
  const past = ctx.input.as_of !== undefined || ctx.input.include_history;
  const evidence = chunkEvidence(ctx, k);
  const found = await memoryCandidates(ctx, k, past ? undefined : evidence);
  // Values changed in words no slot read: the newer memory about the same thing first (newer.ts).
  preferNewerValues(found, ctx.input.query, ctx.terms, ctx.input.as_of);
  return rankWithFloor(found, ctx.now, limit, { ...floorOptions(ctx), extraCover: await chunkSupport(ctx, found, await evidence) });
}

/**
 * A memory is one short sentence; the turn it came from, with its neighbours in its key, often
 * holds the question's words when the memory does not ("who is my boss?" of the turn "Rachel took
 * over, I report to her now" beside "any changes at work?"). A memory's cover is at least that of
 * its source chunks (memoryCandidates). When no memory covers the query at all (the match would
 * be none), the best SUPPORT_CHUNKS chunks by their own BM25 count the category words of their
 * text too, for their memories' cover and for the match, whether or not a memory was extracted
 * from them.
 */
async function chunkSupport(ctx: RecallContext, memories: Candidate[], evidence: ChunkEvidence): Promise<number> {
  if (Math.max(0, ...memories.map((c) => c.cover ?? 0)) >= MATCH_WEAK) return 0;
  const hits = [...evidence.hits].sort((a, b) => b.bm25 - a.bm25).slice(0, SUPPORT_CHUNKS);
  if (hits.length === 0) return 0;
  const focus = focusWeights(ctx.terms, evidence.weights);
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
