import type { MemoryNeighbour } from '../../src/db/sql/memories-write.js';
import { decide, type Decision, type ReconcileThresholds } from '../../src/domain/reconcile.js';
import type { PreparedMemory } from './prepare.js';

const NEIGHBOURS = 5;

/** A memory unit of the pass that will be inserted; later units of the same pass see it as a candidate. */
interface PassUnit {
  index: number;
  kind: string;
  content: string;
  subjectId: string | null;
  vector: number[];
  version: number;
}

/** What to do with one unit: `target` is an existing memory id, or `{ pass }` for an earlier unit of this pass. */
export interface PlannedMemory {
  index: number;
  decision: Decision;
  target: { id: string; version: number } | { pass: number } | undefined;
  /** Version of the row to insert (insert actions only). */
  version: number;
}

function cosine(a: readonly number[], b: readonly number[]): number {
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

/**
 * Decides ADD / UPDATE / CONFIRM / CHALLENGE / NOOP for every unit of a pass, in order, as if each
 * had been written before the next was decided: a unit's candidates are its nearest existing
 * memories (one query for the whole pass) plus the units of this pass planned for insertion before
 * it, minus memories an earlier unit supersedes. No I/O.
 */
export function planMemories(
  units: PreparedMemory[],
  vectors: number[][],
  subjects: Array<string | null>,
  existing: MemoryNeighbour[][],
  thresholds: ReconcileThresholds,
): PlannedMemory[] {
  const planned: PlannedMemory[] = [];
  const inserted: PassUnit[] = [];
  const superseded = new Set<string>();
  for (const [i, m] of units.entries()) {
    const vector = vectors[i] as number[];
    const fromDb = (existing[i] ?? []).filter((n) => !superseded.has(n.id)).map((n) => ({ id: n.id, kind: n.kind, content: n.content, subjectId: n.subject_entity_id, similarity: n.similarity, version: n.version }));
    const fromPass = inserted.filter((u) => !superseded.has(`pass:${u.index}`)).map((u) => ({ id: `pass:${u.index}`, kind: u.kind, content: u.content, subjectId: u.subjectId, similarity: cosine(vector, u.vector), version: u.version }));
    const all = [...fromDb, ...fromPass].sort((a, b) => b.similarity - a.similarity);
    // The nearest few, plus any exact match further down (the single-unit query returned both too).
    const candidates = all.filter((c, rank) => rank < NEIGHBOURS || c.similarity >= 1);
    const decision = decide({ kind: m.kind, content: m.content, subjectId: subjects[i] ?? null }, candidates, thresholds);
    const found = candidates.find((c) => c.id === decision.targetId);
    const target: PlannedMemory['target'] = found === undefined ? undefined : found.id.startsWith('pass:') ? { pass: Number(found.id.slice(5)) } : { id: found.id, version: found.version };
    const version = decision.action === 'UPDATE' && found ? found.version + 1 : 1;
    planned.push({ index: i, decision, target, version });
    if (decision.action === 'NOOP' || decision.action === 'CONFIRM') continue;
    inserted.push({ index: i, kind: m.kind, content: m.content, subjectId: subjects[i] ?? null, vector, version });
    if (decision.action === 'UPDATE' && target) superseded.add('id' in target ? target.id : `pass:${target.pass}`);
  }
  return planned;
}
