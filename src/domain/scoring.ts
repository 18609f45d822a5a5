/**
 * The fused recall score (docs/recall.md "Scoring"). Per query, over the candidates of all
 * retrievers:
 * - keyword: Okapi BM25 of the item's key (for chunks plus a share of its session's BM25),
 *   divided by the best of the query, so in [0, 1]
 * - vector: cosine similarity of the query and the item's key vector (clamped at 0)
 * - relevance: the z-scores of keyword and vector over the candidates, weighted
 *   (RELEVANCE), plus query-intent adjustments in the same units (INTENT: the query names the
 *   item's speaker, asks "when" and the item holds a time expression, a memory found by the
 *   query is supported by the item, a chunk's own text is short, a chunk replies to a candidate
 *   turn that asks a question: `answer` times that turn's relevance), then scaled to [0, 1] over the
 *   candidates (best = 1)
 * - freshness: 0.5 ^ (age in days / 14); importance: importance / 10 (chunks: the event's, 5 by default)
 * - entity / graph: the item is linked to an entity the query names (1) or to its 1–2 hop
 *   neighbourhood (0.5 per hop distance)
 * score = (0.90·relevance + 0.05·freshness + 0.05·importance + boost) × rank weight (lowered by
 * negative feedback) × STALE_WEIGHT when the item no longer holds; boost = 0.10·max(entity, graph) + 0.05 when found by two or more retrievers
 * + 0.05 for a crystal + 0.02 for a later version. Freshness and importance only break near-ties:
 * together they move an item at most 0.10, a tenth of the relevance scale, on old data as on new.
 */
export const WEIGHTS = { relevance: 0.9, freshness: 0.05, importance: 0.05 } as const;
export const BOOSTS = { entity: 0.1, multiSource: 0.05, crystal: 0.05, latestVersion: 0.02 } as const;
/** Weights of the z-scored retrievers in relevance. */
export const RELEVANCE = { keyword: 0.7, vector: 0.3 } as const;
/** Query-intent adjustments of relevance, in standard deviations. */
export const INTENT = { speaker: 0.6, temporal: 0.3, provenance: 0.5, length: 0.4, answer: 0.3, category: 0.3 } as const;
/** `auto`: memories' relevance is scaled by this before it meets the chunks' (extracted statements repeat their turns). */
export const AUTO_MEMORY_SCALE = 0.6;
/** Share of the session's normalised BM25 added to a chunk's normalised BM25. */
export const SESSION_WEIGHT = 0.3;
export const HALF_LIFE_DAYS = 14;
/**
 * A result that no longer holds (its statements were superseded by a newer value, or corrected)
 * keeps this share of its score, and the statement that replaced it is brought in with at least
 * its relevance (src/recall/current.ts), so the current value ranks first whatever the share. The
 * share sets how far old evidence falls behind other results: on the LoCoMo dev file's held-out
 * pair (conv-44, conv-47), whose questions often ask about what held before, 0.5 lost 2.1 points
 * of R@5 and 0.9 lost 0.6 against the code before; the truth scenarios scored the same at 0.5,
 * 0.8 and 0.9 (docs/performance.md, 2026-12-06).
 */
export const STALE_WEIGHT = 0.9;

export interface Signals {
  relevance: number;
  vector?: number | undefined;
  keyword?: number | undefined;
  entity?: number | undefined;
  graph?: number | undefined;
  occurredAt: Date;
  importance: number;
  isCrystal?: boolean;
  version?: number;
  rankWeight?: number;
  /** false: its statements no longer hold (STALE_WEIGHT). */
  current?: boolean;
}

export function freshness(occurredAt: Date, now: Date): number {
  const days = Math.max(0, (now.getTime() - occurredAt.getTime()) / 86_400_000);
  return 0.5 ** (days / HALF_LIFE_DAYS);
}

export function fuse(s: Signals, now: Date) {
  const vector = Math.max(0, s.vector ?? 0);
  const keyword = s.keyword ?? 0;
  const entity = s.entity ?? 0;
  const graph = s.graph ?? 0;
  const relevance = Math.min(1, Math.max(0, s.relevance));
  const fresh = freshness(s.occurredAt, now);
  const importance = Math.min(1, Math.max(0, s.importance / 10));
  const hits = [s.vector !== undefined && s.vector > 0, keyword > 0, entity > 0 || graph > 0].filter(Boolean).length;
  const boost =
    BOOSTS.entity * Math.max(entity, graph) +
    (hits >= 2 ? BOOSTS.multiSource : 0) +
    (s.isCrystal ? BOOSTS.crystal : 0) +
    ((s.version ?? 1) > 1 ? BOOSTS.latestVersion : 0);
  const base = WEIGHTS.relevance * relevance + WEIGHTS.freshness * fresh + WEIGHTS.importance * importance;
  const score = (base + boost) * (s.rankWeight ?? 1) * (s.current === false ? STALE_WEIGHT : 1);
  const r = (x: number) => Math.round(x * 10_000) / 10_000;
  return {
    score: r(score),
    scores: {
      relevance: r(relevance),
      vector: r(vector),
      keyword: r(keyword),
      entity: r(entity),
      graph: r(graph),
      freshness: r(fresh),
      importance: r(importance),
      boost: r(boost),
    },
  };
}

/**
 * z-scores of a retriever's scores over all candidate ids. A candidate the retriever did not
 * return scores as its lowest returned score (it ranked below all of them); a retriever that
 * returned nothing, or the same score for all, contributes 0.
 */
export function zScores(ids: string[], scores: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  if (scores.size === 0) return out;
  const floor = Math.min(...scores.values());
  const xs = ids.map((id) => scores.get(id) ?? floor);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
  if (sd === 0) return out;
  ids.forEach((id, i) => out.set(id, ((xs[i] as number) - mean) / sd));
  return out;
}

/** Scales values to [0, 1] by the best and worst of them (all 1 when they are equal). */
export function minMax(values: number[]): (x: number) => number {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return (x) => (hi > lo ? (x - lo) / (hi - lo) : 1);
}

/**
 * Highest score first; equal scores by id. A total order: results tied on score (common when only
 * freshness separates them) would otherwise come in whatever order the database returned the
 * candidates, which changes with other tenants' rows in the same tables and plans.
 */
export function byScore(a: { score: number; id: string }, b: { score: number; id: string }): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
