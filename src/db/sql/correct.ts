import type { Slot } from '../../domain/slots.js';
import type { Queryable } from '../pool.js';
import { vectorParam } from './vector.js';

export interface MemoryHead {
  id: string;
  status: string;
  version: number;
  user_id: string | null;
  kind: string;
  importance: number;
  content_hash: string;
  slot: Slot | null;
}

/** The memory row, locked FOR UPDATE so a concurrent correction or dream waits for this one. */
export async function lockMemory(tx: Queryable, id: string): Promise<MemoryHead | undefined> {
  const { rows } = await tx.query<MemoryHead>(
    'SELECT id, status, version, user_id, kind, importance, content_hash, slot FROM memories WHERE id = $1 FOR UPDATE',
    [id],
  );
  return rows[0];
}

export interface CorrectedVersion {
  kind: string;
  content: string;
  content_hash: string;
  fts_doc: string;
  vector: number[];
  importance: number;
  /** Its slot (src/domain/slots.ts) and index keys, or null. */
  slot: Slot | null;
  slot_keys: string[] | null;
  /** Lexemes of the old value, left out of what its key takes from the old version's. */
  drop: string[];
}

/**
 * Correction as INSERT + supersede, never an overwrite (docs/architecture.md, "Storage and data model"). In the caller's transaction,
 * with `oldId` locked and active:
 * - the old row leaves the active set first (its content slot in the partial unique index frees,
 *   so a correction may keep the text and change only kind or importance);
 * - the new version copies the old one's scope, subject, event time and expiry, with version + 1,
 *   valid_from = now() and confidence at least 0.9 (a person's correction is strong evidence);
 *   its full-text key takes in the old one's, less the old value (`drop`), so it answers the
 *   questions the old version did;
 * - the old row points at it (superseded_by, superseded_at = the new valid_from), the new one
 *   `replaces` it (is_progression), and provenance links and entity links are copied to the new
 *   version under `runId`.
 * Returns the new id, or `conflictId` when another active memory of the scope already says this;
 * the caller then rolls back.
 */
export async function insertCorrectedVersion(
  tx: Queryable,
  oldId: string,
  v: CorrectedVersion,
  embedder: { model: string; dims: number },
  runId: string,
): Promise<{ id: string } | { conflictId: string }> {
  await tx.query(`UPDATE memories SET status = 'superseded', updated_at = now() WHERE id = $1 AND status = 'active'`, [oldId]);
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO memories (dataset, user_id, agent_id, session_id, kind, content, content_hash, fts, embedding, embedding_model, embedding_dims,
       subject_entity_id, importance, confidence, event_time, time_precision, occurred_at, valid_from, expires_at, version, run_id, slot, slot_keys)
     SELECT o.dataset, o.user_id, o.agent_id, o.session_id, $2, $3, $4, to_tsvector('simple', $5) || ts_delete(o.fts, $13::text[]), $6::vector, $7, $8,
       o.subject_entity_id, $9, greatest(o.confidence, 0.9), o.event_time, o.time_precision, o.occurred_at, now(), o.expires_at, o.version + 1, $10,
       $11::jsonb, $12::text[]
     FROM memories o WHERE o.id = $1
     ON CONFLICT (tenant_id, coalesce(user_id, ''), content_hash) WHERE status = 'active' DO NOTHING
     RETURNING id`,
    [
      oldId,
      v.kind,
      v.content,
      v.content_hash,
      v.fts_doc,
      vectorParam(v.vector),
      embedder.model,
      embedder.dims,
      v.importance,
      runId,
      v.slot === null ? null : JSON.stringify(v.slot),
      v.slot_keys,
      v.drop,
    ],
  );
  const created = rows[0];
  if (!created) {
    const { rows: existing } = await tx.query<{ id: string }>(
      `SELECT n.id FROM memories n JOIN memories o ON o.id = $1
       WHERE n.status = 'active' AND coalesce(n.user_id, '') = coalesce(o.user_id, '') AND n.content_hash = $2`,
      [oldId, v.content_hash],
    );
    return { conflictId: (existing[0] as { id: string }).id };
  }
  const newId = created.id;
  await tx.query(`UPDATE memories o SET superseded_by = n.id, superseded_at = n.valid_from FROM memories n WHERE o.id = $1 AND n.id = $2`, [oldId, newId]);
  const { rows: rel } = await tx.query<{ id: string }>(
    `INSERT INTO memory_relations (from_memory_id, to_memory_id, relation, is_progression) VALUES ($1, $2, 'replaces', true)
     ON CONFLICT (from_memory_id, to_memory_id, relation) DO UPDATE SET is_progression = true RETURNING id`,
    [newId, oldId],
  );
  await tx.query(
    `INSERT INTO provenance (object_type, object_id, event_id, run_id)
     SELECT t.object_type, t.object_id, p.event_id, $4 FROM provenance p
     CROSS JOIN (VALUES ('memory', $2::uuid), ('relation', $3::uuid)) AS t(object_type, object_id)
     WHERE p.object_type = 'memory' AND p.object_id = $1
     ON CONFLICT DO NOTHING`,
    [oldId, newId, (rel[0] as { id: string }).id, runId],
  );
  await tx.query(`INSERT INTO memory_entities (memory_id, entity_id) SELECT $2, entity_id FROM memory_entities WHERE memory_id = $1 ON CONFLICT DO NOTHING`, [
    oldId,
    newId,
  ]);
  return { id: newId };
}

/**
 * A person's choice between two active memories that contradict each other: `id` leaves the
 * active set, superseded by `byId` from now on (superseded_at = now(): until the choice memloom
 * held both, so `as_of` before it still finds `id`), and `byId` `replaces` it (not a progression:
 * a verdict, not a change of value). In the caller's transaction with both rows locked and active.
 * Idempotent: a second call finds `id` no longer active and changes nothing.
 */
export async function supersedeByChoice(tx: Queryable, id: string, byId: string): Promise<void> {
  const { rowCount } = await tx.query(
    `UPDATE memories SET status = 'superseded', superseded_by = $2, superseded_at = now(), updated_at = now() WHERE id = $1 AND status = 'active'`,
    [id, byId],
  );
  if (rowCount === 0) return;
  await tx.query(
    `INSERT INTO memory_relations (from_memory_id, to_memory_id, relation, is_progression) VALUES ($1, $2, 'replaces', false)
     ON CONFLICT (from_memory_id, to_memory_id, relation) DO NOTHING`,
    [byId, id],
  );
}
