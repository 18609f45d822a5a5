import type { MemoryNeighbour } from '../../src/db/sql/memories-write.js';
import type { HeldVersion, RevertCandidate } from '../../src/db/sql/memory-chains.js';
import { cosine, decide, SAME_TEXT, type Decision, type ReconcileThresholds } from '../../src/domain/reconcile.js';
import { ABOUT_AGREEMENT, aboutAgreement, namesReplaced, relate, revertsTo } from '../../src/domain/slot-relate.js';
import type { Slot } from '../../src/domain/slots.js';
import { addsValue, valuesByKind } from '../../src/domain/slot-values.js';
import { slotKeys } from '../../src/domain/slot-keys.js';
import { SUPERSEDING_ACTIONS, TARGETED_ACTIONS, type ReconcileAction } from '../../src/domain/vocabulary.js';
import type { PreparedMemory } from './prepare.js';

/** Existing memories a unit is compared with (the nearest, plus any with its exact text). */
export const NEIGHBOURS = 5;

/** "I think the standup moved to 10": a hedged new value challenges the old one instead of replacing it. */
const HEDGED = /\b(?:maybe|perhaps|probably|possibly|i think|i guess|i believe|not sure|might|apparently|supposedly|rumou?r)\b/i;

/** A memory unit of the pass that will be inserted; later units of the same pass see it as a candidate. */
interface PassUnit {
  index: number;
  kind: string;
  content: string;
  subjectId: string | null;
  vector: number[];
  version: number;
  slot: Slot | null;
  validFrom: Date;
  hash: string;
}

/**
 * A model's decision for one unit, its target (UPDATE, INVALIDATE, CONFIRM, CHALLENGE) re-checked
 * inside the write transaction to be an active memory of the user, with that memory's current version.
 */
export interface Advice {
  action: ReconcileAction;
  target?: { id: string; version: number } | undefined;
}

/** An existing memory (`id`, with its version) or an earlier unit of this pass (`pass`). */
export type Target = { id: string; version: number } | { pass: number };

/** What to do with one unit. */
export interface PlannedMemory {
  index: number;
  decision: Decision;
  /** CONFIRM's and CHALLENGE's memory, or the first of those an UPDATE / INVALIDATE supersedes. */
  target: Target | undefined;
  /** UPDATE / INVALIDATE: every older version of the unit's slot it supersedes (target first). */
  supersedes: Target[];
  /**
   * A late arrival: the slot already holds a value stated after this unit's event time. The unit
   * is written as a superseded version, before that one in the slot's history (valid_from order).
   */
  supersededBy?: Target | undefined;
  /** Version of the row to insert (insert actions only). */
  version: number;
}

interface SlotCandidate {
  id: string;
  slot: Slot;
  validFrom: Date;
  similarity: number;
  version: number;
  /** Content hash: orders two statements of the same event time, the same way in every run. */
  hash: string;
  /** Its text: a unit of the same slot and value confirms it only when it names nothing this does not hold. */
  content: string;
  /** The slot of a former version of this memory's chain whose value the unit may state again (a reversal). */
  reverted?: Slot | undefined;
}

/**
 * The slot rule for one unit: among the memories that may share its slot (its vector neighbours,
 * the memories holding its slot keys, earlier units of the pass), ordered by event time:
 * - a restatement of the value (relate: same) → CONFIRM the best-agreeing one;
 * - newer values of the slot than every memory it replaces → UPDATE them (INVALIDATE when it only
 *   says the old value no longer holds), or CHALLENGE when hedged;
 * - a memory of the slot stated after it → the unit is history already (supersededBy the
 *   earliest such), whatever arrived first. Event time decides, never processing order.
 * Of several memories it replaces, only those whose subject agrees best are taken ("the desktop
 * app" over "the web app"). Undefined: the slot says nothing, the other rules decide.
 */
function slotDecision(
  unit: PreparedMemory,
  pool: SlotCandidate[],
): { decision: Decision; target: SlotCandidate | undefined; supersedes: SlotCandidate[]; supersededBy?: SlotCandidate } | undefined {
  const own = unit.slot;
  if (own === null) return undefined;
  const at = new Date(unit.occurredAt).getTime();
  const rels = pool.map((c) => {
    // Event time decides; at the same time, the hash does (so replays and other pass splits agree).
    const newerThanUnit = c.validFrom.getTime() > at || (c.validFrom.getTime() === at && c.hash > unit.hash);
    // "We went back to Jenkins": the unit restates what an earlier version of c's chain held.
    const reverts = !newerThanUnit && c.reverted !== undefined && revertsTo(c.reverted, own);
    const plain = newerThanUnit ? relate(own, c.slot) : relate(c.slot, own);
    const relation = reverts && plain !== 'same' ? 'replaces' : plain;
    const anchored = reverts || (newerThanUnit ? namesReplaced(own, c.slot) : namesReplaced(c.slot, own));
    return { c, relation, newerThanUnit, anchored, agreement: aboutAgreement(c.slot, own) };
  });
  const best = (xs: typeof rels) => [...xs].sort((a, b) => b.agreement - a.agreement || b.c.similarity - a.c.similarity);
  // A restatement confirms only when it names nothing more: read as "Eastside" again, "Lindqvist
  // called out sick, Dr. Mensah is covering Eastside" is news (Mensah), and confirming would lose it.
  const restated = rels.filter((r) => r.relation === 'same');
  const said = restated.length > 0 ? valuesByKind(unit.content) : new Map<string, Set<string>>();
  const same = best(restated.filter((r) => !addsValue(said, valuesByKind(r.c.content))));
  const first = same[0];
  if (first) return { decision: { action: 'CONFIRM', targetId: first.c.id, reason: 'same value of the slot' }, target: first.c, supersedes: [] };
  const replaced = rels.filter((r) => r.relation === 'replaces');
  if (replaced.length === 0) return undefined;
  // Every memory the unit plainly replaces (it names the old value, or the subjects agree well);
  // of weaker matches only the best-agreeing ("the desktop app" over "the web app").
  const top = Math.max(...replaced.map((r) => r.agreement));
  const kept = best(replaced.filter((r) => r.anchored || r.agreement >= ABOUT_AGREEMENT || r.agreement >= top - 1e-9));
  const later = kept.filter((r) => r.newerThanUnit).sort((a, b) => a.c.validFrom.getTime() - b.c.validFrom.getTime());
  const successor = later[0];
  if (successor)
    return { decision: { action: 'ADD', reason: 'older than the value the slot holds now' }, target: undefined, supersedes: [], supersededBy: successor.c };
  const olds = kept.map((r) => r.c);
  const head = olds[0] as SlotCandidate;
  if (HEDGED.test(unit.content))
    return { decision: { action: 'CHALLENGE', targetId: head.id, reason: 'a hedged new value of the slot' }, target: head, supersedes: [] };
  const action = own.negated && own.value.length === 0 ? 'INVALIDATE' : 'UPDATE';
  return {
    decision: { action, targetId: head.id, reason: action === 'UPDATE' ? 'a newer value of the slot' : 'the slot value no longer holds' },
    target: head,
    supersedes: olds,
  };
}

const toTarget = (id: string, version: number): Target => (id.startsWith('pass:') ? { pass: Number(id.slice(5)) } : { id, version });

/**
 * Decides ADD / UPDATE / INVALIDATE / CONFIRM / CHALLENGE / NOOP for every unit of a pass, in
 * order, as if each had been written before the next was decided: a unit's candidates are its
 * nearest existing memories and the active memories holding its slot keys (one query each for the
 * whole pass) plus the units of this pass planned for insertion before it, minus memories an
 * earlier unit supersedes. Units with a slot are decided by it (slotDecision); the others, and
 * slot units it says nothing about, by the similarity rules (src/domain/reconcile.ts). No I/O.
 *
 * `advice[i]`, a model's decision, replaces the rules' for unit i, except where the rules know
 * better: an identical text, or a unit of this same pass as the target (the model saw existing
 * memories only), or a target an earlier unit of the pass already superseded. Event time still
 * orders a model's UPDATE: a unit older than its target becomes history before it.
 */
export function planMemories(
  units: PreparedMemory[],
  vectors: number[][],
  subjects: Array<string | null>,
  existing: MemoryNeighbour[][],
  thresholds: ReconcileThresholds,
  advice: ReadonlyArray<Advice | undefined> = [],
  slotted: MemoryNeighbour[][] = [],
  reverting: RevertCandidate[][] = [],
): PlannedMemory[] {
  const planned: PlannedMemory[] = [];
  const inserted: PassUnit[] = [];
  const superseded = new Set<string>();
  // Within the pass, what superseded what and the slots of the versions superseded: a later unit
  // may go back to one of those values (the stored chains come in `reverting`).
  const successorOf = new Map<string, string>();
  const formerSlots = new Map<string, Slot>();
  const headOf = (id: string): string => {
    let at = id;
    for (let hops = 0; successorOf.has(at) && hops < units.length + 1; hops++) at = successorOf.get(at) as string;
    return at;
  };
  for (const [i, m] of units.entries()) {
    const vector = vectors[i] as number[];
    const fromDb = (existing[i] ?? [])
      .filter((n) => !superseded.has(n.id))
      .map((n) => ({
        id: n.id,
        kind: n.kind,
        content: n.content,
        subjectId: n.subject_entity_id,
        similarity: n.similarity,
        version: n.version,
        slot: n.slot ?? null,
        validFrom: new Date(n.valid_from ?? n.occurred_at),
        hash: n.content_hash,
      }));
    const fromPass = inserted
      .filter((u) => !superseded.has(`pass:${u.index}`))
      .map((u) => ({
        id: `pass:${u.index}`,
        kind: u.kind,
        content: u.content,
        subjectId: u.subjectId,
        similarity: cosine(vector, u.vector),
        version: u.version,
        slot: u.slot,
        validFrom: u.validFrom,
        hash: u.hash,
      }));
    const all = [...fromDb, ...fromPass].sort((a, b) => b.similarity - a.similarity);
    // The nearest few, plus any exact match further down (the single-unit query returned both too).
    const candidates = all.filter((c, rank) => rank < NEIGHBOURS || c.similarity >= 1);
    let rule = decide({ kind: m.kind, content: m.content, subjectId: subjects[i] ?? null }, candidates, thresholds);
    let found: { id: string; version: number } | undefined = candidates.find((c) => c.id === rule.targetId);
    let supersedes: Target[] = [];
    let supersededBy: Target | undefined;
    if (rule.reason !== SAME_TEXT && m.slot !== null) {
      const seen = new Set<string>();
      const pool: SlotCandidate[] = [];
      // The same candidates whether an earlier unit is in this pass or already stored: the nearest
      // few, and those holding one of the unit's slot keys (as slotCandidatesBatch finds them).
      const keys = new Set(slotKeys(m.slot));
      const sharesKey = (c: { slot: Slot | null }) => c.slot !== null && slotKeys(c.slot).some((k) => keys.has(k));
      const passSharing = fromPass.filter(sharesKey).sort((a, b) => b.validFrom.getTime() - a.validFrom.getTime());
      const stored = (slotted[i] ?? []).map((n) => ({ ...n, slot: n.slot ?? null, validFrom: new Date(n.valid_from), hash: n.content_hash }));
      for (const c of [...candidates, ...passSharing, ...stored]) {
        if (c.slot === null || seen.has(c.id) || superseded.has(c.id)) continue;
        seen.add(c.id);
        pool.push({ id: c.id, slot: c.slot, validFrom: c.validFrom, similarity: c.similarity, version: c.version, hash: c.hash, content: c.content });
      }
      // The heads of chains that once held the unit's value: stored ones, and those superseded in this pass.
      const reverted = [
        ...(reverting[i] ?? []).map((n) => ({ ...n, slot: n.slot as Slot, validFrom: new Date(n.valid_from), hash: n.content_hash, former: n.reverted_slot })),
        ...[...formerSlots]
          .filter(([, former]) => revertsTo(former, m.slot as Slot))
          .flatMap(([id, former]) => {
            const head = headOf(id);
            const c = [...fromDb, ...fromPass].find((x) => x.id === head) ?? (slotted[i] ?? []).find((x) => x.id === head);
            return c?.slot
              ? [
                  {
                    ...c,
                    slot: c.slot,
                    validFrom: 'validFrom' in c ? c.validFrom : new Date(c.valid_from),
                    hash: 'hash' in c ? c.hash : c.content_hash,
                    former,
                  },
                ]
              : [];
          }),
      ];
      for (const c of reverted) {
        if (superseded.has(c.id)) continue;
        const present = pool.find((x) => x.id === c.id);
        if (present) present.reverted ??= c.former;
        else {
          seen.add(c.id);
          pool.push({
            id: c.id,
            slot: c.slot,
            validFrom: c.validFrom,
            similarity: c.similarity,
            version: c.version,
            hash: c.hash,
            content: c.content,
            reverted: c.former,
          });
        }
      }
      const bySlot = slotDecision(m, pool);
      if (bySlot) {
        rule = bySlot.decision;
        found = bySlot.target;
        supersedes = bySlot.supersedes.map((c) => toTarget(c.id, c.version));
        supersededBy = bySlot.supersededBy ? toTarget(bySlot.supersededBy.id, bySlot.supersededBy.version) : undefined;
      } else if (rule.action === 'UPDATE' || rule.action === 'CHALLENGE') {
        // The slot knows these two state different things: similar words are not the same slot.
        rule = { action: 'ADD', reason: 'another slot' };
        found = undefined;
      }
    }
    let decision = rule;
    let target: Target | undefined = found === undefined ? undefined : toTarget(found.id, found.version);
    const a = advice[i];
    const ruleStands = rule.reason === SAME_TEXT || (target !== undefined && 'pass' in target);
    const adviceUsable =
      a !== undefined && (a.target === undefined ? !TARGETED_ACTIONS.has(a.action) : TARGETED_ACTIONS.has(a.action) && !superseded.has(a.target.id));
    if (a && adviceUsable && !ruleStands) {
      decision = { action: a.action, ...(a.target ? { targetId: a.target.id } : {}), reason: 'model' };
      target = a.target ? { id: a.target.id, version: a.target.version } : undefined;
      supersedes = SUPERSEDING_ACTIONS.has(a.action) && target ? [target] : [];
      supersededBy = undefined;
      // The model says "same slot, newer value"; the event times say which is newer.
      const targetTime = a.target ? fromDb.find((c) => c.id === a.target?.id)?.validFrom : undefined;
      if (SUPERSEDING_ACTIONS.has(a.action) && target && targetTime && targetTime.getTime() > new Date(m.occurredAt).getTime()) {
        decision = { action: 'ADD', reason: 'model: older than the value the slot holds now' };
        supersededBy = target;
        target = undefined;
        supersedes = [];
      }
    }
    if (SUPERSEDING_ACTIONS.has(decision.action) && supersedes.length === 0 && target) supersedes = [target];
    const versionOf = (t: Target) => ('id' in t ? t.version : (inserted.find((u) => u.index === t.pass)?.version ?? 1));
    const version = SUPERSEDING_ACTIONS.has(decision.action) && supersedes.length > 0 ? Math.max(...supersedes.map(versionOf)) + 1 : 1;
    planned.push({ index: i, decision, target, supersedes, supersededBy, version });
    if (decision.action === 'NOOP' || decision.action === 'CONFIRM') continue;
    if (supersededBy === undefined)
      inserted.push({
        index: i,
        kind: m.kind,
        content: m.content,
        subjectId: subjects[i] ?? null,
        vector,
        version,
        slot: m.slot,
        validFrom: new Date(m.occurredAt),
        hash: m.hash,
      });
    for (const t of supersedes) {
      const id = 'id' in t ? t.id : `pass:${t.pass}`;
      superseded.add(id);
      successorOf.set(id, `pass:${i}`);
      const slot = [...fromDb, ...fromPass].find((c) => c.id === id)?.slot ?? (slotted[i] ?? []).find((c) => c.id === id)?.slot;
      if (slot) formerSlots.set(id, slot);
    }
  }
  return planned;
}

/**
 * Late arrivals that restate history: a unit older than its slot's current value (supersededBy)
 * whose text, or slot value, is what the version holding at its time (`held`, by unit index) says
 * CONFIRMs that version instead of adding a copy of it to the history. "The port is 5433" heard
 * again after the port became 6543, from an event of before the change, is evidence for the 5433
 * version, not a second 5433 version.
 */
export function confirmRestatedHistory(plan: PlannedMemory[], units: PreparedMemory[], held: ReadonlyMap<number, HeldVersion | undefined>): PlannedMemory[] {
  return plan.map((x) => {
    const h = held.get(x.index);
    const unit = units[x.index] as PreparedMemory;
    if (x.supersededBy === undefined || h === undefined) return x;
    const restates = h.content_hash === unit.hash || (h.slot !== null && unit.slot !== null && relate(h.slot, unit.slot) === 'same');
    if (!restates) return x;
    return {
      index: x.index,
      decision: { action: 'CONFIRM', targetId: h.id, reason: 'restates the version that held at its time' },
      target: { id: h.id, version: h.version },
      supersedes: [],
      version: x.version,
    };
  });
}
