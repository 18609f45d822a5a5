import { byScore, fuse, minMax, type Signals } from '../domain/scoring.js';
import type { RecallResult } from './schema.js';

/** A candidate of any retriever before the final ranking: what it returns, its signals, its relevance in z units. */
export interface Candidate {
  result: Omit<RecallResult, 'score' | 'scores'>;
  signals: Omit<Signals, 'relevance'>;
  rel: number;
}

/**
 * The final ranking (src/domain/scoring.ts): relevance scaled to [0, 1] over all candidates of
 * the query, fused with the priors and boosts, best first.
 */
export function rank(candidates: Candidate[], now: Date, limit: number): RecallResult[] {
  if (candidates.length === 0) return [];
  const scale = minMax(candidates.map((c) => c.rel));
  return candidates
    .map((c): RecallResult => ({ ...c.result, ...fuse({ ...c.signals, relevance: scale(c.rel) }, now) }))
    .sort(byScore)
    .slice(0, limit);
}

/** Divides by the best score so the top hit of any query counts 1. */
export function normalise(m: Map<string, number>): Map<string, number> {
  const max = Math.max(0, ...m.values());
  if (max <= 0) return m;
  return new Map([...m].map(([id, s]) => [id, s / max]));
}
