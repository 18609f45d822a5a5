import { keywordSearch, type TermWeight } from '../db/sql/recall-bm25.js';
import { CATEGORY_TERMS, categoryWords } from '../domain/slots.js';
import { ftsQuery } from '../domain/text.js';
import { cover, focusWeights, MATCH_WEAK, vectorFloor } from './match.js';
import { eventsOfMemories } from '../db/sql/recall-evidence.js';
import { loadChunks, vectorSearch, type ChunkRow } from '../db/sql/recall.js';
import { supersedeEvidence } from './current.js';
import { INTENT, RELEVANCE, SESSION_WEIGHT, zScores } from '../domain/scoring.js';
import { hasTimeExpression, namesParticipant } from '../domain/query-intent.js';
import type { RecallContext } from './context.js';
import { normalise, rankWithFloor, type Candidate, type Ranked } from './rank.js';

export type ChunkRetrievers = 'hybrid' | 'vector' | 'keyword';

/** Chunks looked at for staleness at least (twice the limit otherwise). */
const STALE_REACH_MIN = 20;

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
  const stats: { weights?: TermWeight[] } = {};
  const [vector, keyword] = await Promise.all([
    retrievers === 'keyword' ? [] : ctx.run((tx) => vectorSearch(tx, 'chunks', ctx.scope, ctx.vector, ctx.space, k)),
    retrievers === 'vector' ? [] : ctx.run((tx) => keywordSearch(tx, 'chunks', ctx.scope, ctx.queryDoc, k, SESSION_WEIGHT, { stats })),
  ]);
  const focus = focusWeights(ctx.terms, stats.weights ?? []);
  const vec = new Map(vector.map((h) => [h.id, Number(h.score)]));
  const kw = normalise(new Map(keyword.map((h) => [h.id, h.score])));
  const ids = [...new Set([...vec.keys(), ...kw.keys()])];
  const rows = await ctx.run((tx) => loadChunks(tx, ids));
  const zk = zScores(ids, kw);
  const zv = zScores(ids, vec);
  const relOf = new Map<string, number>();
  const matched = new Map(keyword.map((h) => [h.id, h.matched]));
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
    const cand = chunkCandidate(c, vec.get(c.id), kw.get(c.id));
    cand.rel = rel;
    cand.cover = cover(focus, matched.get(c.id) ?? []);
    return cand;
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
    // Evidence whose statements were superseded goes below the statements that replaced it. Only
    // the candidates that can reach the answer are looked at: a chunk ranked below twice the limit
    // by relevance stays below it (a stale one only falls), and the lookups cost per chunk.
    // A chunk that names a known value answers a question about its category ("which database?" of
    // "we picked PostgreSQL"): when the question names a category, such chunks gain INTENT.category
    // and count the category's words in their cover.
    if ([...focus.keys()].some((t) => CATEGORY_TERMS.has(t))) {
      for (const c of out) {
        const asked = ftsQuery(categoryWords(c.result.content)).filter((t) => focus.has(t));
        if (asked.length === 0) continue;
        c.rel += INTENT.category;
        c.cover = cover(focus, [...(matched.get(c.result.id) ?? []), ...asked]);
      }
    }
    const reach = [...out].sort((a, b) => b.rel - a.rel).slice(0, Math.max(STALE_REACH_MIN, 2 * ctx.input.limit));
    out.push(...(await supersedeEvidence(ctx, reach, (c) => chunkCandidate(c, undefined, undefined))));
  }
  return out;
}

/** A chunk as a ranking candidate (relevance 0 until the caller scores it). */
function chunkCandidate(c: ChunkRow, vector: number | undefined, keyword: number | undefined): Candidate {
  return {
    rel: 0,
    signals: { vector, keyword, occurredAt: c.occurred_at, importance: c.importance ?? 5 },
    result: {
      id: c.id,
      type: 'chunk',
      content: c.content,
      occurred_at: c.occurred_at.toISOString(),
      recorded_at: c.created_at.toISOString(),
      source: { event_ids: [c.event_id], session_id: c.session_id, dataset: c.dataset },
    },
  };
}

export async function recallChunks(ctx: RecallContext, limit: number, retrievers: ChunkRetrievers = 'hybrid'): Promise<Ranked> {
  const found = await chunkCandidates(ctx, candidates(limit), retrievers);
  const support = retrievers === 'hybrid' ? await memorySupport(ctx, found) : 0;
  return rankWithFloor(found, ctx.now, limit, { ...floorOptions(ctx), extraCover: support });
}

/** Memories asked for the match when the chunks' own words cover less than a strong match. */
const SUPPORT_MEMORIES = 10;

/**
 * A chunk's words may not name what the question asks ("which shell?" of "I no longer use bash,
 * zsh now"), while the memories extracted from it carry their category and attribute words
 * (src/domain/slots.ts slotKeyText). When no chunk covers the query at all (the match would be
 * none), the memories' keys are asked too: a chunk's cover is at least that of the memories its event supports, and the
 * best memory cover counts for the match. Returns that best memory cover (0 when not asked).
 */
async function memorySupport(ctx: RecallContext, chunks: Candidate[]): Promise<number> {
  if (Math.max(0, ...chunks.map((c) => c.cover ?? 0)) >= MATCH_WEAK) return 0;
  const stats: { weights?: TermWeight[] } = {};
  const hits = await ctx.run((tx) => keywordSearch(tx, 'memories', ctx.scope, ctx.queryDoc, SUPPORT_MEMORIES, 0, { stats }));
  if (hits.length === 0) return 0;
  const focus = focusWeights(ctx.terms, stats.weights ?? []);
  const covers = new Map(hits.map((h) => [h.id, cover(focus, h.matched)]));
  const events = await ctx.run((tx) => eventsOfMemories(tx, [...covers.keys()]));
  const byEvent = new Map<string, number>();
  for (const { memory_id, event_id } of events) byEvent.set(event_id, Math.max(byEvent.get(event_id) ?? 0, covers.get(memory_id) ?? 0));
  for (const c of chunks) for (const e of c.result.source.event_ids) c.cover = Math.max(c.cover ?? 0, byEvent.get(e) ?? 0);
  return Math.max(0, ...covers.values());
}

/** The floor's settings for a recall: the embedder's vector floor and whether weak results are wanted. */
export function floorOptions(ctx: RecallContext): { vectorFloor: number | undefined; includeWeak: boolean } {
  return { vectorFloor: vectorFloor(ctx.deps.providers.embeddings.model), includeWeak: ctx.input.include_weak };
}
