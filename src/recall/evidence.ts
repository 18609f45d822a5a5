import { keywordSearch, type KeywordHit, type TermWeight } from '../db/sql/recall-bm25.js';
import { currentMemoriesOfChunks, memoryKeyTerms, type ChunkMemory } from '../db/sql/recall-evidence.js';
import { SESSION_WEIGHT } from '../domain/scoring.js';
import { withSynonyms } from '../domain/synonyms.js';
import type { RecallContext } from './context.js';
import { cover, focusWeights } from './match.js';
import { normalise } from './rank.js';

/**
 * A memory unit is as relevant as the evidence it came from. Its own key is one short sentence
 * ("Caroline went to a LGBTQ support group"), while the chunk of its turn is keyed with the
 * turn's neighbours, its time and speaker, and its session (docs/recall.md "Index keys"): the
 * chunks' keyword ranking finds the turns a question is about more often than the memories' own
 * retrievers do (LoCoMo dev file, 2026-12-07: R@10 77.0 for chunks, 54.3 for memories).
 */
export interface ChunkEvidence {
  /** The chunk keyword hits, best first (BM25 of the chunk's key with the session prior, as `chunks` mode ranks them). */
  hits: KeywordHit[];
  /** The chunks' focus weights (src/recall/match.ts), for their cover. */
  weights: TermWeight[];
  /** (chunk, memory) pairs: the memories in the recall's scope each hit is evidence of, superseded ones followed to their current version. */
  pairs: ChunkMemory[];
  /** Per memory of `pairs`, the query's terms its own key holds (synonyms as the query word they stand for, as in `matched`). */
  stated: Map<string, Set<string>>;
}

/**
 * One BM25 query of the chunks' keys (with the session prior, as in `chunks` mode) and one
 * provenance lookup of the memories of the chunks found, as they hold now: the evidence of a
 * statement that was replaced counts for the statement that replaced it, never for the other
 * units of its turn (in "CI runs on our Jenkins box, a full build is about 12 minutes", later
 * moved, the chunk's words are about the CI, and "~12 minute builds" would take them over).
 */
export async function chunkEvidence(ctx: RecallContext, k: number): Promise<ChunkEvidence> {
  return ctx.run(async (tx) => {
    const stats: { weights?: TermWeight[] } = {};
    const hits = await keywordSearch(tx, 'chunks', ctx.scope, ctx.queryDoc, k, SESSION_WEIGHT, { stats });
    const pairs = await currentMemoriesOfChunks(
      tx,
      hits.map((h) => h.id),
      ctx.scope,
    );
    const weights = stats.weights ?? [];
    // Only an assistant's repetition passes a share (evidenceShare): the key terms of those memories alone are read.
    const keyTerms = await memoryKeyTerms(
      tx,
      [...new Set(pairs.filter((p) => p.restates).map((p) => p.memory_id))],
      weights.map((w) => w.term),
    );
    const { origin } = withSynonyms(ctx.terms);
    const stated = new Map<string, Set<string>>();
    for (const { id, term } of keyTerms) stated.set(id, (stated.get(id) ?? new Set<string>()).add(origin.get(term) ?? term));
    return { hits, weights, pairs, stated };
  });
}

/**
 * What each memory takes from its source chunks: `score`, the best normalised keyword score of
 * its chunks (the best chunk of the query 1) times the share of that chunk's matched words the
 * memory may take (evidenceShare: all of them, unless the chunk is an assistant's repetition), and `cover`, the best share of the query's informative weight
 * their keys hold (the match floor, src/recall/match.ts).
 */
export function inheritedFromChunks(ctx: RecallContext, evidence: ChunkEvidence): { score: Map<string, number>; cover: Map<string, number> } {
  const focus = focusWeights(ctx.terms, evidence.weights);
  const scoreOf = normalise(new Map(evidence.hits.map((h) => [h.id, h.score])));
  const matchedOf = new Map(evidence.hits.map((h) => [h.id, h.matched]));
  const coverOf = new Map(evidence.hits.map((h) => [h.id, cover(focus, h.matched)]));
  const score = new Map<string, number>();
  const covers = new Map<string, number>();
  for (const { chunk_id, memory_id, restates } of evidence.pairs) {
    const share = evidenceShare(focus, matchedOf.get(chunk_id) ?? [], evidence.stated.get(memory_id) ?? new Set<string>(), restates);
    score.set(memory_id, Math.max(score.get(memory_id) ?? 0, (scoreOf.get(chunk_id) ?? 0) * share));
    covers.set(memory_id, Math.max(covers.get(memory_id) ?? 0, coverOf.get(chunk_id) ?? 0));
  }
  return { score, cover: covers };
}

/**
 * The share of a chunk's matched query weight (focus weights of `matched`) a memory of that chunk
 * inherits, 0..1. An assistant turn that repeats a memory stated before (`restates`: "Noted: Redis
 * for caching, releases on Tuesday" confirming "our service caches with Redis", or "Hi Ana! Nice
 * to meet you." standing for "I lead the mobile team", with "our standup is at 9:45" next in its
 * key) passes that memory only the words the memory's own key holds (`stated`): the rest are the
 * assistant's, its neighbours' or another statement's ("releases", "meet", "standup"). Any other
 * chunk passes all it matched: a user's turn is keyed with the question it answers ("How was the
 * concert?" before "Matt Patterson sang"), which its units rarely repeat (taking only the stated
 * words there cost the LoCoMo dev file 11 points of R@10, docs/performance-history.md).
 * No constant: the weights are the query's focus weights (idf in the scope); 1 when nothing
 * informative matched. Pure.
 */
export function evidenceShare(focus: ReadonlyMap<string, number>, matched: readonly string[], stated: ReadonlySet<string>, restates: boolean): number {
  if (!restates) return 1;
  let all = 0;
  let own = 0;
  for (const t of new Set(matched)) {
    const w = focus.get(t) ?? 0;
    all += w;
    if (stated.has(t)) own += w;
  }
  return all > 0 ? own / all : 1;
}

/**
 * One unit per turn inherits: of the memories with the same source events, only the one that
 * inherits most (inheritedFromChunks: the one stating the chunk's matched words), then the one its
 * own signals rank best, keeps its chunk's score; the others keep their own relevance only. A turn
 * often yields several units ("Caroline is researching adoption agencies", "Caroline wants to give
 * a loving home…"), and with the same inherited relevance they would fill the top results with one
 * turn. Pure; returns the scores that count.
 */
export function onePerTurn(
  inherited: ReadonlyMap<string, number>,
  memories: ReadonlyArray<{ id: string; event_ids: readonly string[] }>,
  ownRelevance: (id: string) => number,
): Map<string, number> {
  const best = new Map<string, string>();
  const order = (a: string, b: string) =>
    (inherited.get(a) ?? 0) - (inherited.get(b) ?? 0) || ownRelevance(a) - ownRelevance(b) || (a < b ? 1 : a > b ? -1 : 0);
  for (const m of memories) {
    if (!inherited.has(m.id)) continue;
    const turn = [...m.event_ids].sort().join(',');
    const had = best.get(turn);
    if (had === undefined || order(m.id, had) > 0) best.set(turn, m.id);
  }
  const keep = new Set(best.values());
  return new Map([...inherited].filter(([id]) => keep.has(id)));
}
