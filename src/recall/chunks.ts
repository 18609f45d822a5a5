import { keywordSearch, type TermWeight } from '../db/sql/recall-bm25.js';
import { CATEGORY_TERMS, categoryWords } from '../domain/slot-keys.js';
import { dayOfTime, overlaps, resolveRelativeDates, type DateSpan } from '../domain/dates.js';
import { ftsQuery } from '../domain/text.js';
import { cover, focusWeights, vectorFloor } from './match.js';
import { eventsOfMemories } from '../db/sql/recall-evidence.js';
import { loadChunks, vectorSearch, type ChunkRow } from '../db/sql/recall.js';
import { supersedeEvidence } from './current.js';
import { preferNewerValues } from './newer.js';
import {
  answerLifts,
  CANDIDATES,
  DEFAULT_IMPORTANCE,
  fusedRelevance,
  INTENT,
  MATCH_WEAK,
  SESSION_WEIGHT,
  STALE_REACH,
  SUPPORT_MEMORIES,
  zScores,
} from '../domain/scoring.js';
import { asksAssistant, asksOnly, expectedShapes, hasTimeExpression, holdsShape, namesParticipant } from '../domain/query-intent.js';
import type { RecallContext } from './context.js';
import { normalise, rankWithFloor, type Candidate, type Ranked } from './rank.js';

export type ChunkRetrievers = 'hybrid' | 'vector' | 'keyword';

/** Candidates per retriever (CANDIDATES): wide enough that fusion can reorder, small enough to stay fast. */
export const candidates = (limit: number) => Math.max(CANDIDATES.min, limit * CANDIDATES.perResult);

/**
 * Raw evidence: chunks by key vector and BM25 over their keys (with the session prior), fused on
 * z-scores, with the query-intent adjustments (src/domain/scoring.ts INTENT): the query names the
 * chunk's speaker, or asks about time and the chunk holds a time expression, or asks for a value of
 * a shape the chunk's own text holds; a short own text, a turn that only asks, and an assistant's
 * turn lower it; the reply to a candidate that asks a question gains a share of its relevance.
 * Baselines (`vector`, `keyword`) rank by that one signal alone, so they measure that retriever
 * and nothing else.
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
  // The user's own words are first-hand evidence of the user's life; an assistant's turn repeats them or says something general.
  const secondHand = !asksAssistant(ctx.input.query);
  const shapes = expectedShapes(ctx.input.query);
  const out = rows.map((c): Candidate => {
    let rel: number;
    if (retrievers === 'keyword') rel = kw.get(c.id) ?? 0;
    else if (retrievers === 'vector') rel = vec.get(c.id) ?? 0;
    else
      rel = fusedRelevance(zk.get(c.id) ?? 0, zv.get(c.id) ?? 0, {
        speaker: namesParticipant(ctx.queryWords, c.speaker),
        temporal: ctx.asksAboutTime && hasTimeExpression(c.content),
        date: ctx.dates.length > 0 && isFrom(ctx.dates, c),
        // Very short turns ("Thanks!", "Wow") rarely hold evidence but match through their neighbours.
        tokens: c.tokens,
        asks: asksOnly(c.content),
        assistant: secondHand && c.role === 'assistant',
        shape: shapes.size > 0 && holdsShape(c.content, shapes),
      });
    relOf.set(c.id, rel);
    const cand = chunkCandidate(c, vec.get(c.id), kw.get(c.id));
    cand.rel = rel;
    cand.cover = cover(focus, matched.get(c.id) ?? []);
    return cand;
  });
  if (retrievers === 'hybrid') {
    // A turn that asks a question is often found by the query's words while the turn after it
    // holds the answer: that turn, when a candidate too, gains a share of the question's relevance.
    const lift = answerLifts(rows, relOf);
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
    const reach = [...out].sort((a, b) => b.rel - a.rel).slice(0, Math.max(STALE_REACH.min, STALE_REACH.perResult * ctx.input.limit));
    out.push(...(await supersedeEvidence(ctx, reach, (c) => chunkCandidate(c, undefined, undefined))));
    // Values changed in words no slot read: the newer statement about the same thing first.
    preferNewerValues(out, ctx.input.query, ctx.terms, ctx.input.as_of);
  }
  return out;
}

/**
 * True when the chunk is evidence from a date the query names: its event time's day, or a
 * relative date its text names ("yesterday" said on 4 October is 3 October), falls in one of them.
 */
export function isFrom(dates: DateSpan[], c: { occurred_at: Date; content: string }): boolean {
  const own = [dayOfTime(c.occurred_at), ...resolveRelativeDates(c.content, c.occurred_at)];
  return dates.some((q) => own.some((e) => overlaps(q, e)));
}

/** A chunk as a ranking candidate (relevance 0 until the caller scores it). */
function chunkCandidate(c: ChunkRow, vector: number | undefined, keyword: number | undefined): Candidate {
  return {
    rel: 0,
    signals: { vector, keyword, occurredAt: c.occurred_at, importance: c.importance ?? DEFAULT_IMPORTANCE },
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
