/**
 * Forgetting over time, without an LLM (docs/architecture.md, pipeline stage 6). Pure functions; the `decay` maintenance
 * task feeds them stored rows and writes back what changed.
 *
 * decay = min(1, 0.5^(age / halfLife) · (1 + ln(1 + accessCount)))
 *   age: days since the memory was last reinforced (its latest supporting event or its last recall)
 *   the log-frequency lift keeps often-recalled memories fresh without letting counts run away.
 * Decisions and insights at or above the importance floor are protected: their decay never falls
 * under importance / 20 (≥ 0.35 at the default floor 7), and they are never archived.
 * Confidence is not touched here: it only ever grows with evidence (see confirmMemory).
 */

const DAY_MS = 86_400_000;

/** Archive only when decay is below this (and every other condition of `archiveBlockers` holds). */
export const ARCHIVE_DECAY_BELOW = 0.05;
/** …and the memory and its evidence are older than this. */
export const ARCHIVE_MIN_AGE_DAYS = 90;
/** Kinds with an importance floor. */
export const PROTECTED_KINDS: ReadonlySet<string> = new Set(['decision', 'insight']);

export interface DecayPolicy {
  halfLifeDays: number;
  /** Decisions and insights with importance ≥ this are protected. */
  importanceFloor: number;
}

export interface DecayInput {
  kind: string;
  importance: number;
  /** When the latest supporting event happened. */
  occurredAt: Date;
  lastAccessedAt: Date | null;
  accessCount: number;
}

export function isProtected(m: { kind: string; importance: number }, policy: DecayPolicy): boolean {
  return PROTECTED_KINDS.has(m.kind) && m.importance >= policy.importanceFloor;
}

/** Days since the memory was last reinforced (never negative: clocks and future event times). */
export function reinforcedAgeDays(m: Pick<DecayInput, 'occurredAt' | 'lastAccessedAt'>, now: Date): number {
  const last = Math.max(m.occurredAt.getTime(), m.lastAccessedAt?.getTime() ?? 0);
  return Math.max(0, (now.getTime() - last) / DAY_MS);
}

/** The decay value in [0, 1], rounded to 4 decimals (so a refresh that changes nothing writes nothing). */
export function decayValue(m: DecayInput, policy: DecayPolicy, now: Date): number {
  const base = 0.5 ** (reinforcedAgeDays(m, now) / policy.halfLifeDays);
  const lifted = Math.min(1, base * (1 + Math.log1p(Math.max(0, m.accessCount))));
  const floored = isProtected(m, policy) ? Math.max(lifted, Math.min(1, m.importance / 20)) : lifted;
  return Math.round(floored * 10_000) / 10_000;
}

export interface ArchiveInput {
  kind: string;
  importance: number;
  status: string;
  decay: number;
  accessCount: number;
  hasFeedback: boolean;
  /** When the memory was recorded; an import of old conversations is not archived on arrival. */
  createdAt: Date;
  occurredAt: Date;
}

export type ArchiveBlocker = 'decay' | 'interactions' | 'age' | 'status' | 'importance_floor';

/**
 * Why a memory must not be archived; archive only when the list is empty. All four conditions of
 * docs/architecture.md (stage 6) must hold — very low decay, zero interactions (no recall access, no feedback), older
 * than 90 days (both recorded and happened), still active — and it is not a protected decision or
 * insight.
 */
export function archiveBlockers(m: ArchiveInput, policy: DecayPolicy, now: Date): ArchiveBlocker[] {
  const blockers: ArchiveBlocker[] = [];
  if (!(m.decay < ARCHIVE_DECAY_BELOW)) blockers.push('decay');
  if (m.accessCount > 0 || m.hasFeedback) blockers.push('interactions');
  const newest = Math.max(m.createdAt.getTime(), m.occurredAt.getTime());
  if ((now.getTime() - newest) / DAY_MS <= ARCHIVE_MIN_AGE_DAYS) blockers.push('age');
  if (m.status !== 'active') blockers.push('status');
  if (isProtected(m, policy)) blockers.push('importance_floor');
  return blockers;
}
