import type { MemoryNeighbour } from '../../src/db/sql/memories-write.js';
import { cosine, decide, SAME_TEXT, type Decision, type ReconcileThresholds } from '../../src/domain/reconcile.js';
import { TARGETED_ACTIONS, type ReconcileAction } from '../../src/domain/vocabulary.js';
import type { PreparedMemory } from './prepare.js';

/** Existing memories a unit is compared with (the nearest, plus any with its exact text). */
export const NEIGHBOURS = 5;

/** A memory unit of the pass that will be inserted; later units of the same pass see it as a candidate. */
interface PassUnit {
  index: number;
  kind: string;
  content: string;
  subjectId: string | null;
  vector: number[];
  version: number;
}

/**
 * A model's decision for one unit, its target (UPDATE, CONFIRM, CHALLENGE) re-checked inside the
 * write transaction to be an active memory of the user, with that memory's current version.
 */
export interface Advice {
  action: ReconcileAction;
  target?: { id: string; version: number } | undefined;
}

/** What to do with one unit: `target` is an existing memory id, or `{ pass }` for an earlier unit of this pass. */
export interface PlannedMemory {
  index: number;
  decision: Decision;
  target: { id: string; version: number } | { pass: number } | undefined;
  /** Version of the row to insert (insert actions only). */
  version: number;
}

/**
 * Decides ADD / UPDATE / CONFIRM / CHALLENGE / NOOP for every unit of a pass, in order, as if each
 * had been written before the next was decided: a unit's candidates are its nearest existing
 * memories (one query for the whole pass) plus the units of this pass planned for insertion before
 * it, minus memories an earlier unit supersedes. No I/O.
 *
 * `advice[i]`, a model's decision, replaces the rules' for unit i, except where the rules know
 * better: an identical text, or a unit of this same pass as the target (the model saw existing
 * memories only), or a target an earlier unit of the pass already superseded.
 */
export function planMemories(
  units: PreparedMemory[],
  vectors: number[][],
  subjects: Array<string | null>,
  existing: MemoryNeighbour[][],
  thresholds: ReconcileThresholds,
  advice: ReadonlyArray<Advice | undefined> = [],
): PlannedMemory[] {
  const planned: PlannedMemory[] = [];
  const inserted: PassUnit[] = [];
  const superseded = new Set<string>();
  for (const [i, m] of units.entries()) {
    const vector = vectors[i] as number[];
    const fromDb = (existing[i] ?? [])
      .filter((n) => !superseded.has(n.id))
      .map((n) => ({ id: n.id, kind: n.kind, content: n.content, subjectId: n.subject_entity_id, similarity: n.similarity, version: n.version }));
    const fromPass = inserted
      .filter((u) => !superseded.has(`pass:${u.index}`))
      .map((u) => ({
        id: `pass:${u.index}`,
        kind: u.kind,
        content: u.content,
        subjectId: u.subjectId,
        similarity: cosine(vector, u.vector),
        version: u.version,
      }));
    const all = [...fromDb, ...fromPass].sort((a, b) => b.similarity - a.similarity);
    // The nearest few, plus any exact match further down (the single-unit query returned both too).
    const candidates = all.filter((c, rank) => rank < NEIGHBOURS || c.similarity >= 1);
    const rule = decide({ kind: m.kind, content: m.content, subjectId: subjects[i] ?? null }, candidates, thresholds);
    const found = candidates.find((c) => c.id === rule.targetId);
    let decision = rule;
    let target: PlannedMemory['target'] =
      found === undefined ? undefined : found.id.startsWith('pass:') ? { pass: Number(found.id.slice(5)) } : { id: found.id, version: found.version };
    const a = advice[i];
    const ruleStands = rule.reason === SAME_TEXT || (target !== undefined && 'pass' in target);
    const adviceUsable =
      a !== undefined && (a.target === undefined ? !TARGETED_ACTIONS.has(a.action) : TARGETED_ACTIONS.has(a.action) && !superseded.has(a.target.id));
    if (a && adviceUsable && !ruleStands) {
      decision = { action: a.action, ...(a.target ? { targetId: a.target.id } : {}), reason: 'model' };
      target = a.target ? { id: a.target.id, version: a.target.version } : undefined;
    }
    const version = decision.action !== 'UPDATE' || !target ? 1 : 'id' in target ? target.version + 1 : (found?.version ?? 0) + 1;
    planned.push({ index: i, decision, target, version });
    if (decision.action === 'NOOP' || decision.action === 'CONFIRM') continue;
    inserted.push({ index: i, kind: m.kind, content: m.content, subjectId: subjects[i] ?? null, vector, version });
    if (decision.action === 'UPDATE' && target) superseded.add('id' in target ? target.id : `pass:${target.pass}`);
  }
  return planned;
}
