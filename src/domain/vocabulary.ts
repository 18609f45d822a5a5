/**
 * memloom's domain vocabulary: the words the pipeline, the API and the providers share
 * (docs/architecture.md, "Vocabulary"). No I/O, no imports.
 */

/** What a memory unit is (docs/architecture.md, "Memory kinds"). */
export const MEMORY_KINDS = ['fact', 'preference', 'decision', 'plan', 'procedure', 'profile', 'episode', 'insight'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/** How precisely a memory's event time is known. */
export const TIME_PRECISIONS = ['exact', 'day', 'month', 'year', 'relative'] as const;

/**
 * Reconcile: extraction's decision for one new unit against its nearest existing memories and
 * those of the same slot (insert; insert and supersede with a new value; insert and supersede
 * because the old value no longer holds; add a source; link a contradiction; or nothing).
 */
export const RECONCILE_ACTIONS = ['ADD', 'UPDATE', 'INVALIDATE', 'CONFIRM', 'CHALLENGE', 'NOOP'] as const;
export type ReconcileAction = (typeof RECONCILE_ACTIONS)[number];
/** Actions that refer to an existing memory (the decision's `target`). */
export const TARGETED_ACTIONS: ReadonlySet<ReconcileAction> = new Set(['UPDATE', 'INVALIDATE', 'CONFIRM', 'CHALLENGE']);
/** Actions that insert the unit and supersede their target. */
export const SUPERSEDING_ACTIONS: ReadonlySet<ReconcileAction> = new Set(['UPDATE', 'INVALIDATE']);

/** Memory kinds that state a value of something (a slot, src/domain/slots.ts); episodes, procedures and insights do not. */
export const SLOT_KINDS: ReadonlySet<MemoryKind> = new Set(['fact', 'preference', 'decision', 'plan', 'profile']);

/** Numbers written as words, as people write amounts and durations ("two weeks", "a couple of days"). */
export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  'a couple of': 2,
  'a couple': 2,
  couple: 2,
  'a few': 3,
  few: 3,
  several: 3,
};
