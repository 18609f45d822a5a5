/**
 * The fused recall score (README "Recall scoring"). Components are each in [0, 1]:
 * - vector: cosine similarity of the query and the item (clamped at 0)
 * - keyword: full-text rank, normalised by the best rank of this query
 * - freshness: 0.5 ^ (age in days / 14), age of the item's event time
 * - importance: importance / 10 (chunks: 0.5)
 * - entity / graph: the item is linked to an entity the query names (1) or to its 1–2 hop
 *   neighbourhood (0.5 per hop distance)
 * score = 0.45·vector + 0.25·keyword + 0.20·freshness + 0.10·importance + boost, times the item's
 * rank weight (lowered by negative feedback). boost = 0.10·max(entity, graph) + 0.05 when found by
 * two or more retrievers + 0.05 for a crystal + 0.02 for a later version.
 */
export const WEIGHTS = { vector: 0.45, keyword: 0.25, freshness: 0.2, importance: 0.1 } as const;
export const BOOSTS = { entity: 0.1, multiSource: 0.05, crystal: 0.05, latestVersion: 0.02 } as const;
export const HALF_LIFE_DAYS = 14;

export interface Signals {
  vector?: number | undefined;
  keyword?: number | undefined;
  entity?: number | undefined;
  graph?: number | undefined;
  occurredAt: Date;
  importance: number;
  isCrystal?: boolean;
  version?: number;
  rankWeight?: number;
}

export function freshness(occurredAt: Date, now: Date): number {
  const days = Math.max(0, (now.getTime() - occurredAt.getTime()) / 86_400_000);
  return Math.pow(0.5, days / HALF_LIFE_DAYS);
}

export function fuse(s: Signals, now: Date) {
  const vector = Math.max(0, s.vector ?? 0);
  const keyword = s.keyword ?? 0;
  const entity = s.entity ?? 0;
  const graph = s.graph ?? 0;
  const fresh = freshness(s.occurredAt, now);
  const importance = Math.min(1, Math.max(0, s.importance / 10));
  const hits = [s.vector !== undefined && s.vector > 0, keyword > 0, entity > 0 || graph > 0].filter(Boolean).length;
  const boost = BOOSTS.entity * Math.max(entity, graph) + (hits >= 2 ? BOOSTS.multiSource : 0) + (s.isCrystal ? BOOSTS.crystal : 0) + ((s.version ?? 1) > 1 ? BOOSTS.latestVersion : 0);
  const base = WEIGHTS.vector * vector + WEIGHTS.keyword * keyword + WEIGHTS.freshness * fresh + WEIGHTS.importance * importance;
  const score = (base + boost) * (s.rankWeight ?? 1);
  const r = (x: number) => Math.round(x * 10_000) / 10_000;
  return { score: r(score), scores: { vector: r(vector), keyword: r(keyword), entity: r(entity), graph: r(graph), freshness: r(fresh), importance: r(importance), boost: r(boost) } };
}

/**
 * Highest score first; equal scores by id. A total order: results tied on score (common when only
 * freshness separates them) would otherwise come in whatever order the database returned the
 * candidates, which changes with other tenants' rows in the same tables and plans.
 */
export function byScore(a: { score: number; id: string }, b: { score: number; id: string }): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
