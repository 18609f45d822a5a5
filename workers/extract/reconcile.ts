/**
 * The batched model decision of reconcile: one question per extraction pass, outside every
 * transaction. The pass's units that have near existing memories of the same user (and are not
 * identical to one of them) go to the model in one call, with their top candidates numbered by
 * small integers; its answer, cached before use (src/llm.ts), becomes per-unit advice that the write
 * transaction re-checks (recheckAdvice) and planMemories applies. Without a paid provider, or
 * without a non-trivial unit, nothing is asked and the offline rules decide.
 */
import { withTenant, type Queryable } from '../../src/db/pool.js';
import type { EventToExtract } from '../../src/db/sql/extract-events.js';
import { activeMemoryVersions, nearestMemoriesBatch, slotCandidatesBatch, type MemoryNeighbour } from '../../src/db/sql/memories-write.js';
import { ANCHORED_AGREEMENT, aboutAgreement, namesReplaced } from '../../src/domain/slot-relate.js';
import type { Slot } from '../../src/domain/slots.js';
import { slotKeys } from '../../src/domain/slot-keys.js';
import type { Deps } from '../../src/deps.js';
import { thresholdsFor, type EmbedderThresholds } from '../../src/domain/reconcile.js';
import { normalizeText } from '../../src/domain/text.js';
import { reconcileWithCache } from '../../src/llm.js';
import type { Logger } from '../../src/logger.js';
import type { ReconcileAnswer, ReconcileInput } from '../../src/providers/llm/types.js';
import { TARGETED_ACTIONS, type ReconcileAction } from '../../src/domain/vocabulary.js';
import { NEIGHBOURS, type Advice } from './plan.js';
import type { PreparedMemory } from './prepare.js';

/** Candidates shown per unit: the nearest few carry the decision; more would only cost tokens. */
export const RECONCILE_CANDIDATES = 3;
/** Memories of the unit's slot keys shown beside its vector neighbours (src/db/sql/memories-write.ts slotCandidatesBatch). */
export const SLOT_CANDIDATES_ASKED = 2;
/** Units per call; the nearest-matched ones are asked, the rest keep the rules (bounds the prompt). */
export const RECONCILE_MAX_UNITS = 50;

/** A model's decision for the pass's unit at the same index; its target is a memory id, not yet re-checked. */
export interface ModelDecision {
  action: ReconcileAction;
  targetId?: string | undefined;
}

export interface ReconcileRequest {
  input: ReconcileInput;
  /** Index in the pass of each prompt unit number. */
  unitIndex: number[];
  /** Memory id of each prompt memory number n, at n - 1. */
  memoryIds: string[];
  /** Units in the pass. */
  passSize: number;
}

const day = (d: Date | string) => (typeof d === 'string' ? d : d.toISOString()).slice(0, 10);

/**
 * The question for one pass, or undefined when no unit needs a model: a unit is asked when some
 * existing memory is at least `consider`-similar and none has its exact text (the rules confirm
 * that with certainty). No I/O.
 */
export function buildReconcileRequest(
  units: PreparedMemory[],
  existing: MemoryNeighbour[][],
  t: EmbedderThresholds,
  slotted: MemoryNeighbour[][] = [],
): ReconcileRequest | undefined {
  const asked = units.flatMap((u, i) => {
    const near = existing[i] ?? [];
    const norm = normalizeText(u.content);
    if (near.some((n) => n.content_hash === u.hash || normalizeText(n.content) === norm)) return [];
    // The nearest by meaning, then the memories of the same slot the vectors missed (other words, same attribute).
    const byVector = near.filter((n) => n.similarity >= t.consider).sort((a, b) => b.similarity - a.similarity);
    const bySlot = (slotted[i] ?? []).filter((n) => !byVector.some((v) => v.id === n.id) && mayShareSlot(n.slot, u.slot)).slice(0, SLOT_CANDIDATES_ASKED);
    const candidates = [...byVector.slice(0, RECONCILE_CANDIDATES), ...bySlot].slice(0, RECONCILE_CANDIDATES + SLOT_CANDIDATES_ASKED);
    return candidates.length > 0 ? [{ i, u, candidates }] : [];
  });
  if (asked.length === 0) return undefined;
  const kept = asked
    .sort((a, b) => (b.candidates[0]?.similarity ?? 0) - (a.candidates[0]?.similarity ?? 0))
    .slice(0, RECONCILE_MAX_UNITS)
    .sort((a, b) => a.i - b.i);
  const number = new Map<string, number>();
  const memories: ReconcileInput['memories'] = [];
  const memoryIds: string[] = [];
  for (const { candidates } of kept) {
    for (const c of candidates) {
      if (number.has(c.id)) continue;
      number.set(c.id, memoryIds.length + 1);
      memoryIds.push(c.id);
      memories.push({ id: memoryIds.length, kind: c.kind, content: c.content, date: day(c.occurred_at) });
    }
  }
  return {
    input: {
      memories,
      units: kept.map(({ u, candidates }, k) => ({
        unit: k,
        kind: u.kind,
        content: u.content,
        date: day(u.occurredAt),
        candidates: candidates.map((c) => number.get(c.id) as number),
      })),
    },
    unitIndex: kept.map((x) => x.i),
    memoryIds,
    passSize: units.length,
  };
}

/**
 * Worth a model's look: the two slots' subjects half agree, or their values are of one known
 * category, or one names the other's value as replaced. A shared word alone ("app") is not:
 * every such pair would cost a call.
 */
function mayShareSlot(a: Slot | null, b: Slot | null): boolean {
  if (a === null || b === null) return false;
  const known = a.kind !== null && a.kind === b.kind && !['thing', 'name', 'number'].includes(a.kind);
  return known || aboutAgreement(a, b) >= ANCHORED_AGREEMENT || namesReplaced(a, b) || namesReplaced(b, a);
}

/**
 * The answer as per-unit decisions. A decision for an unknown unit, a second one for a unit, or a
 * target that is not one of the unit's candidates is ignored: that unit keeps the rules, the others
 * keep the model's word. No I/O.
 */
export function adviceFrom(answer: ReconcileAnswer, req: ReconcileRequest): { decisions: Array<ModelDecision | undefined>; ignored: number; missing: number } {
  const decisions: Array<ModelDecision | undefined> = Array.from({ length: req.passSize }, () => undefined);
  const seen = new Set<number>();
  let ignored = 0;
  for (const d of answer.decisions) {
    const unit = req.input.units[d.unit];
    if (unit === undefined || seen.has(d.unit)) {
      ignored++;
      continue;
    }
    seen.add(d.unit);
    const index = req.unitIndex[d.unit] as number;
    if (!TARGETED_ACTIONS.has(d.action)) decisions[index] = { action: d.action };
    else if (d.target != null && unit.candidates.includes(d.target)) decisions[index] = { action: d.action, targetId: req.memoryIds[d.target - 1] };
    else ignored++;
  }
  return { decisions, ignored, missing: req.input.units.length - seen.size };
}

/**
 * Asks the model about this pass's units, when the provider is paid and some unit is worth a
 * question: a short read transaction for the nearest memories, then one gated, cached call.
 * Returns per-unit decisions, or undefined for "the rules decide everything".
 */
export async function adviseReconcile(
  deps: Deps,
  tenantId: string,
  units: PreparedMemory[],
  vectors: number[][],
  scope: Pick<EventToExtract, 'user_id'>,
  log: Logger,
): Promise<Array<ModelDecision | undefined> | undefined> {
  const llm = deps.providers.llm;
  if (!llm.paid || !llm.reconcile || units.length === 0) return undefined;
  const { model, dimensions } = deps.providers.embeddings;
  const queries = units.map((m, i) => ({ vector: vectors[i] as number[], hash: m.hash }));
  const [existing, slotted] = await withTenant(deps.db, tenantId, async (tx) => [
    await nearestMemoriesBatch(tx, { userId: scope.user_id }, queries, { model, dims: dimensions }, NEIGHBOURS),
    await slotCandidatesBatch(
      tx,
      { userId: scope.user_id },
      units.map((m) => (m.slot ? slotKeys(m.slot) : [])),
    ),
  ]);
  const request = buildReconcileRequest(units, existing, thresholdsFor(model), slotted);
  if (!request) return undefined;
  const outcome = await reconcileWithCache(deps, tenantId, request.input);
  if (outcome.answer === undefined) {
    log.warn({ code: outcome.code, units: request.input.units.length }, 'no usable reconcile decision; the rules decide');
    return undefined;
  }
  const { decisions, ignored, missing } = adviceFrom(outcome.answer, request);
  if (ignored + missing > 0)
    log.warn({ ignored, missing, units: request.input.units.length }, 'reconcile decisions ignored or missing; the rules decide those units');
  return decisions;
}

/**
 * Inside the write transaction: keeps the decisions whose target is still an active memory of the
 * user (with its current version); a target superseded or forgotten since the model was asked
 * sends its unit back to the rules (undefined).
 */
export async function recheckAdvice(
  tx: Queryable,
  scope: Pick<EventToExtract, 'user_id'>,
  decisions: ReadonlyArray<ModelDecision | undefined>,
): Promise<Array<Advice | undefined>> {
  const ids = [...new Set(decisions.flatMap((d) => (d?.targetId ? [d.targetId] : [])))];
  const active = await activeMemoryVersions(tx, { userId: scope.user_id }, ids);
  return decisions.map((d) => {
    if (d === undefined) return undefined;
    if (d.targetId === undefined) return { action: d.action };
    const version = active.get(d.targetId);
    return version === undefined ? undefined : { action: d.action, target: { id: d.targetId, version } };
  });
}
