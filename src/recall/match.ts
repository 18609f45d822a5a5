/**
 * How well anything stored matches a query, from absolute signals rather than the per-query
 * scaling of relevance (docs/recall.md "Match"). Relevance is scaled so the best candidate of
 * any query scores 1, which says nothing about whether it answers; these signals do:
 * - cover: the share of the query's informative weight a candidate's key holds, each term
 *   weighted by its idf in the scope (a word never stored weighs most), with generic question
 *   words left out;
 * - vector: the best cosine similarity of the query and a candidate, for embedders whose
 *   similarity means something beyond shared words (MATCH_VECTOR).
 */
import type { TermWeight } from '../db/sql/recall-bm25.js';
import { MATCH_STRONG, MATCH_WEAK, VECTOR_FLOOR } from '../domain/scoring.js';
import { ftsQuery } from '../domain/text.js';
import type { Match } from './schema.js';

/**
 * Cosine similarity at which a semantic embedder's vector alone says "related" (weak at least).
 * The local hashing embedder is lexical (its similarity is shared words and character n-grams,
 * which cover already counts), so it has none.
 */
export function vectorFloor(model: string): number | undefined {
  if (model.startsWith('local-hashing')) return undefined;
  if (model === 'local-use-lite') return VECTOR_FLOOR.useLite;
  return VECTOR_FLOOR.provider;
}

/** Words of a question that say what kind of answer is wanted, not what it is about. */
const GENERIC = new Set(
  ftsQuery(
    `name names use uses used using thing things stuff time times day days current currently still now today new old usual usually
     normally lately recent recently right moment again ever kind sort type way lot much many tell know remember say said think like
     whatever anything something everything someone anyone everyone happen happened go going get got make made do does did`,
  ),
);

/** The query's informative terms: its full-text terms less generic question words. */
export function informative(terms: readonly string[]): string[] {
  return terms.filter((t) => !GENERIC.has(t));
}

/** The query's informative terms with their weights: its full-text terms less generic question words. */
export function focusWeights(terms: string[], weights: TermWeight[]): Map<string, number> {
  const byTerm = new Map(weights.map((w) => [w.term, w.w]));
  const n = weights[0]?.n ?? 0;
  // A term the scope never stored gets the idf of a document frequency of 0.
  const unseen = Math.log(1 + (n + 0.5) / 0.5);
  const out = new Map<string, number>();
  for (const t of terms) if (!GENERIC.has(t)) out.set(t, byTerm.get(t) ?? unseen);
  return out;
}

/** The share of the focus weight that `matched` (a key's query terms) holds, 0..1; 1 when the query has no focus term. */
export function cover(focus: Map<string, number>, matched: readonly string[]): number {
  let total = 0;
  for (const w of focus.values()) total += w;
  if (total <= 0) return 1;
  let held = 0;
  for (const t of new Set(matched)) held += focus.get(t) ?? 0;
  return held / total;
}

/** The response's match from the best cover and the best vector similarity among the candidates. */
export function matchOf(bestCover: number, bestVector: number, floor: number | undefined): Match {
  if (bestCover >= MATCH_STRONG) return 'strong';
  if (bestCover >= MATCH_WEAK || (floor !== undefined && bestVector >= floor)) return 'weak';
  return 'none';
}

/** A result below the floor: no informative query term in its key and no vector evidence of its own. */
export function belowFloor(
  c: { cover?: number | undefined; vector?: number | undefined; replacing?: boolean | undefined },
  floor: number | undefined,
): boolean {
  if (c.replacing) return false;
  return (c.cover ?? 0) < MATCH_WEAK && (floor === undefined || (c.vector ?? 0) < floor);
}
