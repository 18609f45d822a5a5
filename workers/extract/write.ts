import type { Queryable } from '../../src/db/pool.js';
import { resolveEntities, upsertEdges } from '../../src/db/sql/entities.js';
import type { EventToExtract } from '../../src/db/sql/extract-events.js';
import {
  confirmedConfidence,
  insertMemories,
  linkMemoryEntities,
  lockMemories,
  endEdgesOf,
  inheritKeys,
  nearestMemoriesBatch,
  relateMemoriesBatch,
  setConfidences,
  slotCandidatesBatch,
  supersedeMemories,
  type TtlDefaults,
} from '../../src/db/sql/memories-write.js';
import { lockUserMemory, placeLateVersions, revertCandidatesBatch, versionsHeldAt } from '../../src/db/sql/memory-chains.js';
import type { Slot } from '../../src/domain/slots.js';
import { slotKeys } from '../../src/domain/slot-keys.js';
import { SUPERSEDING_ACTIONS } from '../../src/domain/vocabulary.js';
import { addProvenanceLinks, type ProvenanceLink } from '../../src/db/sql/provenance.js';
import { thresholdsFor } from '../../src/domain/reconcile.js';
import { ftsDocument, ftsQuery } from '../../src/domain/text.js';
import { confirmRestatedHistory, NEIGHBOURS, planMemories, type PlannedMemory } from './plan.js';
import { normalizeEntityName, type Prepared, type PreparedMemory } from './prepare.js';
import { isSpeakerWord } from '../../src/domain/entity-names.js';
import { recheckAdvice, type ModelDecision } from './reconcile.js';

export interface WriteCounts {
  entities: number;
  memories_added: number;
  memories_updated: number;
  memories_confirmed: number;
  memories_challenged: number;
  edges: number;
}

const ENTITY_SIMILARITY = 0.92;
/**
 * The subject of a memory about the user (or the assistant) while planning: speakers are no
 * entities, so such a memory is stored without a subject, and a stored memory without one is
 * taken as about the speaker, so "I prefer tabs" → "I prefer spaces" still updates.
 */
const SPEAKER = 'speaker';

/**
 * Reconciles one extraction against existing memory and writes it, in the caller's transaction:
 * entities are reused (name, then embedding similarity) and gain provenance; each memory unit is
 * decided ADD / UPDATE / CONFIRM / CHALLENGE / NOOP against its nearest active memories of the same
 * user — by the rules, or by `decisions[i]` (a model's, made before this transaction) while
 * its target is still active; triplets become edges. Replays converge on unique keys (see src/db/sql/*).
 */
export async function writeExtraction(
  tx: Queryable,
  p: Prepared,
  vectors: { entities: number[][]; memories: number[][] },
  scope: EventToExtract,
  embedder: { model: string; dimensions: number },
  runId: string,
  /** TTL_DEFAULTS: a memory of such a kind without an event ttl expires at occurred_at + default. */
  ttlDefaults: TtlDefaults,
  decisions?: ReadonlyArray<ModelDecision | undefined>,
): Promise<WriteCounts> {
  const { model, dimensions: dims } = embedder;
  const counts: WriteCounts = { entities: 0, memories_added: 0, memories_updated: 0, memories_confirmed: 0, memories_challenged: 0, edges: 0 };
  // Passes of one user write one after the other, each reading what the one before committed.
  await lockUserMemory(tx, scope.user_id);

  const entityIds = await resolveEntities(
    tx,
    { dataset: scope.dataset, userId: scope.user_id },
    p.entities.map((e, i) => ({
      name: e.name,
      normalized: e.normalized,
      type: e.type,
      description: e.description,
      ftsDoc: e.ftsDoc,
      vector: vectors.entities[i] as number[],
    })),
    model,
    dims,
    ENTITY_SIMILARITY,
  );
  // Provenance of everything the pass writes goes in one statement, at the end.
  const provenance: ProvenanceLink[] = p.entities.map((e, i) => ({ type: 'entity', objectId: entityIds[i] as string, eventIds: e.eventIds }));
  counts.entities = new Set(entityIds).size;
  const entityByName = new Map<string, string>();
  p.entities.forEach((e, i) => {
    if (!entityByName.has(e.normalized)) entityByName.set(e.normalized, entityIds[i] as string);
  });
  const entityOf = (name: string | null) => (name ? (entityByName.get(normalizeEntityName(name)) ?? null) : null);

  // Memory units: one neighbour query (fresh: the rules see what other passes committed since the
  // model was asked), decisions in order (plan.ts), one insert, then the few per-item updates
  // (confirm, supersede, relate) and one link statement.
  const subjects = p.memories.map((m) => (m.subject && isSpeakerWord(normalizeEntityName(m.subject)) ? SPEAKER : entityOf(m.subject)));
  const stored = (id: string | null | undefined) => (id === SPEAKER ? null : (id ?? null));
  const existing = (
    await nearestMemoriesBatch(
      tx,
      { userId: scope.user_id },
      p.memories.map((m, i) => ({ vector: vectors.memories[i] as number[], hash: m.hash })),
      { model, dims },
      NEIGHBOURS,
    )
  ).map((list) => list.map((n) => (n.subject_entity_id === null ? { ...n, subject_entity_id: SPEAKER } : n)));
  const slotted = (
    await slotCandidatesBatch(
      tx,
      { userId: scope.user_id },
      p.memories.map((m) => (m.slot ? slotKeys(m.slot) : [])),
    )
  ).map((list) => list.map((n) => (n.subject_entity_id === null ? { ...n, subject_entity_id: SPEAKER } : n)));
  // Only a unit that says a value changed can go back to a former one.
  const reverting = await revertCandidatesBatch(
    tx,
    { userId: scope.user_id },
    p.memories.map((m) => (m.slot?.change && m.slot.value.length > 0 ? slotKeys(m.slot).filter((k) => k.startsWith('v:')) : [])),
  );
  const advice = decisions ? await recheckAdvice(tx, scope, decisions) : [];
  const planned = planMemories(p.memories, vectors.memories, subjects, existing, thresholdsFor(model), advice, slotted, reverting);
  // A late arrival that says what its slot held at its time confirms that version of the history.
  const lateOnes = planned.filter((x) => x.supersededBy !== undefined && 'id' in x.supersededBy);
  const held = await versionsHeldAt(
    tx,
    lateOnes.map((x) => ({ successorId: (x.supersededBy as { id: string }).id, at: new Date((p.memories[x.index] as PreparedMemory).occurredAt) })),
  );
  const plan = confirmRestatedHistory(planned, p.memories, new Map(lateOnes.map((x, k) => [x.index, held[k]])));
  const toInsert = plan.filter((x) => x.decision.action !== 'NOOP' && x.decision.action !== 'CONFIRM');
  const rows = await insertMemories(
    tx,
    toInsert.map((x) => {
      const m = p.memories[x.index] as PreparedMemory;
      return {
        kind: m.kind,
        content: m.content,
        content_hash: m.hash,
        fts_doc: m.ftsDoc,
        vector: vectors.memories[x.index] as number[],
        importance: m.importance,
        confidence: m.confidence,
        event_time: m.eventTime,
        time_precision: m.timePrecision,
        occurred_at: m.occurredAt,
        subject_entity_id: stored(subjects[x.index]),
        dataset: scope.dataset,
        user_id: scope.user_id,
        agent_id: scope.agent_id,
        session_id: scope.session_id,
        source_event_ids: m.eventIds,
        version: x.version,
        slot: m.slot,
        slot_keys: m.slot ? slotKeys(m.slot) : null,
      };
    }),
    model,
    dims,
    runId,
    ttlDefaults,
  );
  const idOf = new Map<number, { id: string; inserted: boolean }>(toInsert.map((x, k) => [x.index, rows[k] as { id: string; inserted: boolean }]));
  const targetId = (t: PlannedMemory['target']) => (t === undefined ? undefined : 'id' in t ? t.id : idOf.get(t.pass)?.id);
  const links: Array<{ memoryId: string; entityId: string }> = [];
  // Targets locked in id order; then every confirmation, supersession and relation of the pass in
  // one statement each (a statement per unit held the write transaction for hundreds of ms).
  const confidence = await lockMemories(
    tx,
    plan
      .flatMap((x) => (x.decision.action === 'CONFIRM' ? [x.target] : [...x.supersedes, x.supersededBy]))
      .map((t) => targetId(t))
      .filter((id): id is string => id !== undefined),
  );
  const confirmations = new Map<string, number[]>();
  const supersede: Array<{ oldId: string; newId: string }> = [];
  const late: Array<{ id: string; successorId: string }> = [];
  const relations: Array<{ fromId: string; toId: string; relation: 'replaces' | 'challenges'; isProgression: boolean; eventIds: string[] }> = [];
  for (const x of plan) {
    const m = p.memories[x.index] as PreparedMemory;
    const target = targetId(x.target);
    if (x.decision.action === 'NOOP') continue;
    if (x.decision.action === 'CONFIRM') {
      if (!target) continue;
      confirmations.set(target, [...(confirmations.get(target) ?? []), m.confidence]);
      provenance.push({ type: 'memory', objectId: target, eventIds: m.eventIds });
      counts.memories_confirmed++;
      continue;
    }
    const row = idOf.get(x.index) as { id: string; inserted: boolean };
    provenance.push({ type: 'memory', objectId: row.id, eventIds: m.eventIds });
    for (const entityId of new Set([stored(subjects[x.index]), ...m.entities.map((n) => entityOf(n))]))
      if (entityId) links.push({ memoryId: row.id, entityId });
    if (!row.inserted) {
      counts.memories_confirmed++;
      continue;
    }
    const successor = targetId(x.supersededBy);
    if (successor) {
      late.push({ id: row.id, successorId: successor });
      relations.push({ fromId: successor, toId: row.id, relation: 'replaces', isProgression: true, eventIds: m.eventIds });
      counts.memories_added++;
    } else if (SUPERSEDING_ACTIONS.has(x.decision.action) && x.supersedes.length > 0) {
      for (const old of x.supersedes.map((t) => targetId(t)).filter((id): id is string => id !== undefined)) {
        supersede.push({ oldId: old, newId: row.id });
        relations.push({ fromId: row.id, toId: old, relation: 'replaces', isProgression: true, eventIds: m.eventIds });
      }
      counts.memories_updated++;
    } else if (x.decision.action === 'CHALLENGE' && target) {
      relations.push({ fromId: row.id, toId: target, relation: 'challenges', isProgression: false, eventIds: m.eventIds });
      counts.memories_challenged++;
    } else counts.memories_added++;
  }
  await setConfidences(
    tx,
    [...confirmations].map(([id, values]) => ({ id, confidence: confirmedConfidence(confidence.get(id) ?? 0, values) })),
  );
  await supersedeMemories(tx, supersede);
  // Each new version's key takes in the words of the one it replaced, less the old value's.
  const slotOfId = new Map<string, Slot | null>([...existing.flat(), ...slotted.flat()].map((n) => [n.id, n.slot ?? null]));
  for (const [index, row] of idOf) slotOfId.set(row.id, p.memories[index]?.slot ?? null);
  await inheritKeys(
    tx,
    supersede.map(({ oldId, newId }) => ({ oldId, newId, drop: ftsQuery((slotOfId.get(oldId)?.value ?? []).join(' ')) })),
  );
  const placed = await placeLateVersions(
    tx,
    late.map((x) => ({ ...x, slot: slotOfId.get(x.id) ?? null })),
  );
  // A late arrival's relation names the version it was placed before.
  for (const r of relations) {
    const at = placed.get(r.toId);
    if (at !== undefined && r.relation === 'replaces' && late.some((l) => l.id === r.toId && l.successorId === r.fromId)) r.fromId = at;
  }
  const relationIds = await relateMemoriesBatch(tx, relations);
  relations.forEach((r, i) => {
    const id = relationIds[i];
    if (id) provenance.push({ type: 'relation', objectId: id, eventIds: r.eventIds });
  });
  await linkMemoryEntities(tx, links);

  const edges = p.triplets
    .map((t) => ({ t, s: entityOf(t.source), o: entityOf(t.target) }))
    .filter((x): x is { t: (typeof p.triplets)[number]; s: string; o: string } => x.s !== null && x.o !== null && x.s !== x.o);
  const edgeIds = await upsertEdges(
    tx,
    edges.map(({ t, s, o }) => ({
      sourceId: s,
      targetId: o,
      relation: t.relation,
      description: t.description,
      ftsDoc: ftsDocument(`${t.source} ${t.relation.replace(/_/g, ' ')} ${t.target} ${t.description}`),
      validAt: t.validAt,
    })),
  );
  edges.forEach(({ t }, i) => provenance.push({ type: 'edge', objectId: edgeIds[i] as string, eventIds: t.eventIds }));
  await addProvenanceLinks(tx, provenance, runId);
  // Edges that stated a value this pass superseded end when it did (a late arrival's edges, when its successor did).
  await endEdgesOf(
    tx,
    [...supersede.map((x) => x.oldId), ...late.map((x) => x.id)].map((id) => ({ memoryId: id, values: slotOfId.get(id)?.value ?? [] })),
  );
  counts.edges = new Set(edgeIds).size;
  return counts;
}
