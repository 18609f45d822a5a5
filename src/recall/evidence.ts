import { keywordSearch, type KeywordHit, type TermWeight } from '../db/sql/recall-bm25.js';
import { currentMemoriesOfChunks } from '../db/sql/recall-evidence.js';
import { SESSION_WEIGHT } from '../domain/scoring.js';
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
  pairs: Array<{ chunk_id: string; memory_id: string }>;
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
    return { hits, weights: stats.weights ?? [], pairs };
  });
}

/**
 * What each memory takes from its source chunks: `score`, the best normalised keyword score of
 * its chunks (the best chunk of the query 1), and `cover`, the best share of the query's
 * informative weight their keys hold (the match floor, src/recall/match.ts).
 */
export function inheritedFromChunks(ctx: RecallContext, evidence: ChunkEvidence): { score: Map<string, number>; cover: Map<string, number> } {
  const focus = focusWeights(ctx.terms, evidence.weights);
  const scoreOf = normalise(new Map(evidence.hits.map((h) => [h.id, h.score])));
  const coverOf = new Map(evidence.hits.map((h) => [h.id, cover(focus, h.matched)]));
  const score = new Map<string, number>();
  const covers = new Map<string, number>();
  for (const { chunk_id, memory_id } of evidence.pairs) {
    score.set(memory_id, Math.max(score.get(memory_id) ?? 0, scoreOf.get(chunk_id) ?? 0));
    covers.set(memory_id, Math.max(covers.get(memory_id) ?? 0, coverOf.get(chunk_id) ?? 0));
  }
  return { score, cover: covers };
}

/**
 * One unit per turn inherits: of the memories with the same source events, only the one its own
 * signals rank best keeps its chunk's score; the others keep their own relevance only. A turn
 * often yields several units ("Caroline is researching adoption agencies", "Caroline wants to
 * give a loving home…"), and with the same inherited relevance they would fill the top results
 * with one turn. Pure; returns the scores that count.
 */
export function onePerTurn(
  inherited: ReadonlyMap<string, number>,
  memories: ReadonlyArray<{ id: string; event_ids: readonly string[] }>,
  ownRelevance: (id: string) => number,
): Map<string, number> {
  const best = new Map<string, string>();
  for (const m of memories) {
    if (!inherited.has(m.id)) continue;
    const turn = [...m.event_ids].sort().join(',');
    const had = best.get(turn);
    if (had === undefined || ownRelevance(m.id) > ownRelevance(had) || (ownRelevance(m.id) === ownRelevance(had) && m.id < had)) best.set(turn, m.id);
  }
  const keep = new Set(best.values());
  return new Map([...inherited].filter(([id]) => keep.has(id)));
}
