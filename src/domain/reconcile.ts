import type { MemoryKind, ReconcileAction } from './vocabulary.js';
import { normalizeText } from './text.js';

/** A new memory unit as reconcile sees it. */
export interface NewUnit {
  kind: MemoryKind;
  content: string;
  /** Entity id of the unit's subject, when resolved. */
  subjectId: string | null;
}

/** An existing active memory near the new unit (cosine similarity of their vectors). */
export interface Candidate {
  id: string;
  kind: string;
  content: string;
  subjectId: string | null;
  similarity: number;
}

export interface Decision {
  action: ReconcileAction;
  /** The existing memory the action refers to (UPDATE, CONFIRM, CHALLENGE). */
  targetId?: string;
  reason: string;
}

/** Kinds whose newer statement replaces an older one about the same subject (a preference changes). */
const REPLACEABLE = new Set<string>(['preference', 'profile', 'plan', 'decision']);
const NEGATION = /\b(?:not|no longer|never|don't|doesn't|didn't|won't|isn't|aren't|wasn't|cannot|can't|stopped|quit|anymore)\b|不|没有|别|再也/i;

export interface ReconcileThresholds {
  /** At or above: the same statement (CONFIRM). */
  same: number;
  /** At or above, same kind and subject: a related statement (UPDATE or CHALLENGE). */
  related: number;
}

/** The rules' thresholds plus the one that decides whether a model is asked at all. */
export interface EmbedderThresholds extends ReconcileThresholds {
  /**
   * At or above: near enough that a model may see what the rules cannot (a changed preference in
   * other words). Below it for every candidate, a unit is plainly new and no model is asked.
   */
  consider: number;
}

/** The reason of a CONFIRM on identical normalised text: certain, no model needs to look. */
export const SAME_TEXT = 'same text';

/**
 * Offline reconcile rules. The thresholds depend on the embedder (lexical hashing vectors score
 * paraphrases lower than a semantic model), so they come from the embedder's profile.
 * - same normalised text, or similarity ≥ same with the same kind and the same numbers → CONFIRM (add provenance)
 * - same kind and subject, similarity ≥ related, exactly one side negated → CHALLENGE (keep both)
 * - same replaceable kind (preference/profile/plan/decision) and subject, similarity ≥ related → UPDATE
 * - otherwise → ADD
 * NOOP is reserved for units that carry nothing (empty after normalisation).
 */
export function decide(unit: NewUnit, candidates: Candidate[], t: ReconcileThresholds): Decision {
  const norm = normalizeText(unit.content);
  if (norm.length === 0) return { action: 'NOOP', reason: 'empty' };
  const sorted = [...candidates].sort((a, b) => b.similarity - a.similarity);
  for (const c of sorted) {
    if (normalizeText(c.content) === norm) return { action: 'CONFIRM', targetId: c.id, reason: SAME_TEXT };
  }
  const best = sorted.find((c) => c.kind === unit.kind);
  if (!best) return { action: 'ADD', reason: 'no candidate of this kind' };
  // "service 52" and "service 365", "$1,800" and "$2,100": near vectors, different statements.
  if (best.similarity >= t.same && sameNumbers(unit.content, best.content)) return { action: 'CONFIRM', targetId: best.id, reason: 'near-identical' };
  const sameSubject = unit.subjectId !== null && best.subjectId === unit.subjectId;
  if (sameSubject && best.similarity >= t.related) {
    if (NEGATION.test(unit.content) !== NEGATION.test(best.content)) return { action: 'CHALLENGE', targetId: best.id, reason: 'negation differs' };
    if (REPLACEABLE.has(unit.kind)) return { action: 'UPDATE', targetId: best.id, reason: 'newer statement of the same kind and subject' };
  }
  return { action: 'ADD', reason: 'new information' };
}

/** Both texts hold the same numbers (as digit runs, in any order). */
function sameNumbers(a: string, b: string): boolean {
  const numbers = (text: string) => [...new Set(text.match(/\d+/g) ?? [])].sort().join(' ');
  return numbers(a) === numbers(b);
}

/**
 * Thresholds per embedder family: semantic vectors are denser than lexical hashing ones. `consider`
 * sits 0.2 under `related`: the band in between is where rules say ADD yet a paraphrased update
 * or contradiction may hide, and what a batched model decision is for (workers/extract/reconcile.ts).
 */
export function thresholdsFor(model: string): EmbedderThresholds {
  if (model.startsWith('local-hashing')) return { same: 0.9, related: 0.55, consider: 0.35 };
  if (model === 'local-use-lite') return { same: 0.93, related: 0.7, consider: 0.5 };
  return { same: 0.95, related: 0.8, consider: 0.6 };
}

/** Cosine similarity of two vectors (0 for empty, mismatched or zero vectors). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
