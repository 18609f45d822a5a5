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
 * Reconcile: extraction's decision for one new unit against its nearest existing memories
 * (insert, insert and supersede, add a source, link a contradiction, or nothing).
 */
export const RECONCILE_ACTIONS = ['ADD', 'UPDATE', 'CONFIRM', 'CHALLENGE', 'NOOP'] as const;
export type ReconcileAction = (typeof RECONCILE_ACTIONS)[number];
/** Actions that refer to an existing memory (the decision's `target`). */
export const TARGETED_ACTIONS: ReadonlySet<ReconcileAction> = new Set(['UPDATE', 'CONFIRM', 'CHALLENGE']);
