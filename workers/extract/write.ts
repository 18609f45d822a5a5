import type { Queryable } from '../../src/db/pool.js';
import { resolveEntities, upsertEdges } from '../../src/db/sql/entities.js';
import type { EventToExtract } from '../../src/db/sql/extract-events.js';
import { confirmMemory, insertMemory, linkMemoryEntities, nearestMemories, relateMemories, supersedeMemory } from '../../src/db/sql/memories-write.js';
import { addProvenance } from '../../src/db/sql/provenance.js';
import { decide, thresholdsFor } from '../../src/domain/reconcile.js';
import { ftsDocument } from '../../src/domain/text.js';
import { normalizeEntityName, type Prepared } from './prepare.js';

export interface WriteCounts {
  entities: number;
  memories_added: number;
  memories_updated: number;
  memories_confirmed: number;
  memories_challenged: number;
  edges: number;
}

const ENTITY_SIMILARITY = 0.92;
const NEIGHBOURS = 5;

/**
 * Reconciles one extraction against existing memory and writes it, in the caller's transaction:
 * entities are reused (name, then embedding similarity) and gain provenance; each memory unit is
 * decided ADD / UPDATE / CONFIRM / CHALLENGE / NOOP against its nearest active memories of the same
 * user; triplets become edges. Replays converge on unique keys (see src/db/sql/*).
 */
export async function writeExtraction(
  tx: Queryable,
  p: Prepared,
  vectors: { entities: number[][]; memories: number[][] },
  scope: EventToExtract,
  embedder: { model: string; dimensions: number },
  runId: string,
): Promise<WriteCounts> {
  const { model, dimensions: dims } = embedder;
  const counts: WriteCounts = { entities: 0, memories_added: 0, memories_updated: 0, memories_confirmed: 0, memories_challenged: 0, edges: 0 };

  const entityIds = await resolveEntities(
    tx,
    p.entities.map((e, i) => ({ name: e.name, normalized: e.normalized, type: e.type, description: e.description, ftsDoc: e.ftsDoc, vector: vectors.entities[i] as number[] })),
    model, dims, ENTITY_SIMILARITY,
  );
  await addProvenance(tx, 'entity', p.entities.map((e, i) => ({ objectId: entityIds[i] as string, eventIds: e.eventIds })), runId);
  counts.entities = new Set(entityIds).size;
  const entityByName = new Map<string, string>();
  p.entities.forEach((e, i) => {
    if (!entityByName.has(e.normalized)) entityByName.set(e.normalized, entityIds[i] as string);
  });
  const entityOf = (name: string | null) => (name ? entityByName.get(normalizeEntityName(name)) ?? null : null);

  const thresholds = thresholdsFor(model);
  for (const [i, m] of p.memories.entries()) {
    const vector = vectors.memories[i] as number[];
    const subjectId = entityOf(m.subject);
    const neighbours = await nearestMemories(tx, { userId: scope.user_id }, vector, m.hash, dims, NEIGHBOURS);
    const d = decide({ kind: m.kind, content: m.content, subjectId }, neighbours.map((n) => ({ id: n.id, kind: n.kind, content: n.content, subjectId: n.subject_entity_id, similarity: n.similarity })), thresholds);
    if (d.action === 'NOOP') continue;
    if (d.action === 'CONFIRM' && d.targetId) {
      await confirmMemory(tx, d.targetId, m.confidence);
      await addProvenance(tx, 'memory', [{ objectId: d.targetId, eventIds: m.eventIds }], runId);
      counts.memories_confirmed++;
      continue;
    }
    const target = neighbours.find((n) => n.id === d.targetId);
    const inserted = await insertMemory(tx, {
      kind: m.kind, content: m.content, content_hash: m.hash, fts_doc: m.ftsDoc, vector, importance: m.importance, confidence: m.confidence,
      event_time: m.eventTime, time_precision: m.timePrecision, occurred_at: m.occurredAt, subject_entity_id: subjectId,
      dataset: scope.dataset, user_id: scope.user_id, agent_id: scope.agent_id, session_id: scope.session_id,
      source_event_ids: m.eventIds, version: d.action === 'UPDATE' && target ? target.version + 1 : 1,
    }, model, dims, runId);
    await addProvenance(tx, 'memory', [{ objectId: inserted.id, eventIds: m.eventIds }], runId);
    const links = [...new Set([subjectId, ...m.entities.map((n) => entityOf(n))].filter((id): id is string => id !== null))];
    await linkMemoryEntities(tx, links.map((entityId) => ({ memoryId: inserted.id, entityId })));
    if (!inserted.inserted) {
      counts.memories_confirmed++;
      continue;
    }
    if (d.action === 'UPDATE' && d.targetId) {
      await supersedeMemory(tx, d.targetId, inserted.id);
      const rel = await relateMemories(tx, inserted.id, d.targetId, 'replaces', true);
      if (rel) await addProvenance(tx, 'relation', [{ objectId: rel, eventIds: m.eventIds }], runId);
      counts.memories_updated++;
    } else if (d.action === 'CHALLENGE' && d.targetId) {
      const rel = await relateMemories(tx, inserted.id, d.targetId, 'challenges', false);
      if (rel) await addProvenance(tx, 'relation', [{ objectId: rel, eventIds: m.eventIds }], runId);
      counts.memories_challenged++;
    } else counts.memories_added++;
  }

  const edges = p.triplets
    .map((t) => ({ t, s: entityOf(t.source), o: entityOf(t.target) }))
    .filter((x): x is { t: (typeof p.triplets)[number]; s: string; o: string } => x.s !== null && x.o !== null && x.s !== x.o);
  const edgeIds = await upsertEdges(tx, edges.map(({ t, s, o }) => ({ sourceId: s, targetId: o, relation: t.relation, description: t.description, ftsDoc: ftsDocument(`${t.source} ${t.relation.replace(/_/g, ' ')} ${t.target} ${t.description}`), validAt: t.validAt })));
  await addProvenance(tx, 'edge', edges.map(({ t }, i) => ({ objectId: edgeIds[i] as string, eventIds: t.eventIds })), runId);
  counts.edges = new Set(edgeIds).size;
  return counts;
}
