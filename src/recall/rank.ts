import { byScore, fuse, minMax, OUTRANK_STEP, roundScore, type Signals } from '../domain/scoring.js';
import { belowFloor, matchOf } from './match.js';
import type { Match, RecallResult } from './schema.js';

/** A candidate of any retriever before the final ranking: what it returns, its signals, its relevance in z units. */
export interface Candidate {
  result: Omit<RecallResult, 'score' | 'scores' | 'current'> & { current?: boolean };
  signals: Omit<Signals, 'relevance'>;
  rel: number;
  /** Share of the query's informative terms its key holds (src/recall/match.ts); undefined: not a keyword hit. */
  cover?: number;
  /** Brought in as the statement that replaced a candidate (src/recall/current.ts): never below the floor. */
  replacing?: boolean;
  /** Older statements of the same thing this newer one must rank above (src/recall/newer.ts), whatever its boosts. */
  outranks?: Candidate[];
}

/**
 * The final ranking (src/domain/scoring.ts): relevance scaled to [0, 1] over all candidates of
 * the query, fused with the priors and boosts, best first.
 */
export function rank(candidates: Candidate[], now: Date, limit: number): RecallResult[] {
  if (candidates.length === 0) return [];
  const scale = minMax(candidates.map((c) => c.rel));
  const fused = new Map(candidates.map((c) => [c, fuse({ ...c.signals, relevance: scale(c.rel) }, now)]));
  // A newer statement of a changed value goes just above the older ones it outranks, whatever the
  // boosts and importance that set the older one higher; oldest first, so a chain ends newest first.
  const ordered = candidates.filter((c) => c.outranks?.length).sort((a, b) => a.signals.occurredAt.getTime() - b.signals.occurredAt.getTime());
  for (const c of ordered) {
    const own = fused.get(c) as ReturnType<typeof fuse>;
    const top = Math.max(own.score, ...(c.outranks ?? []).map((o) => (fused.get(o)?.score ?? -Infinity) + OUTRANK_STEP));
    if (top > own.score) fused.set(c, { ...own, score: roundScore(top) });
  }
  return candidates
    .map((c): RecallResult => {
      const { score, scores } = fused.get(c) as ReturnType<typeof fuse>;
      // cover: the absolute signal behind `match` (src/recall/match.ts), beside the scaled relevance.
      return {
        ...c.result,
        current: c.result.current ?? c.signals.current ?? true,
        score,
        scores: { ...scores, cover: roundScore(c.cover ?? 0) },
      };
    })
    .sort(byScore)
    .slice(0, limit);
}

/** Divides by the best score so the top hit of any query counts 1. */
export function normalise(m: Map<string, number>): Map<string, number> {
  const max = Math.max(0, ...m.values());
  if (max <= 0) return m;
  return new Map([...m].map(([id, s]) => [id, s / max]));
}

/** A mode's answer: its ranked results and how well anything matched. */
export interface Ranked {
  results: RecallResult[];
  match: Match;
}

/**
 * The final ranking with the relevance floor (src/recall/match.ts): the match comes from the best
 * absolute signals among all candidates; candidates below the floor are left out, and with no
 * match at all nothing is returned, unless `includeWeak`.
 */
export function rankWithFloor(
  candidates: Candidate[],
  now: Date,
  limit: number,
  opts: { vectorFloor: number | undefined; includeWeak: boolean; extraCover?: number },
): Ranked {
  const bestCover = Math.max(opts.extraCover ?? 0, ...candidates.map((c) => c.cover ?? 0));
  const bestVector = Math.max(0, ...candidates.map((c) => c.signals.vector ?? 0));
  const match = candidates.length === 0 ? 'none' : matchOf(bestCover, bestVector, opts.vectorFloor);
  if (opts.includeWeak) return { results: rank(candidates, now, limit), match };
  if (match === 'none') return { results: [], match };
  const above = candidates.filter((c) => !belowFloor({ cover: c.cover, vector: c.signals.vector, replacing: c.replacing }, opts.vectorFloor));
  // Something matched (through supporting evidence) though no candidate holds the words itself:
  // the candidates are still the best there is, so none is left out.
  return { results: rank(above.length > 0 ? above : candidates, now, limit), match };
}
