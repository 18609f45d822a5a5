import type { DreamPlan } from '../../domain/dream.js';
import type { Queryable } from '../pool.js';

export interface DreamApplied {
  merged: number;
  links: number;
  crystals: number;
  /** Plan parts dropped because a memory they touch stopped being active since it was read. */
  stale: number;
}

/**
 * Applies a dream plan in the caller's transaction. The plan was computed from rows read before
 * this transaction, so every memory it touches is re-locked (FOR UPDATE) and a merge, link or
 * crystal flag touching one that is no longer active is skipped (the next dream sees it again).
 *
 * A merge supersedes the members by the survivor (superseded_by, relation survivor → member),
 * gives the survivor the union of their provenance and entity links and the highest confidence
 * and importance, and moves their open `challenges` / `enriches` links onto the survivor so a
 * contradiction never disappears in a merge. A link is added unless the pair already has that
 * relation in either direction. Provenance rows carry `runId`.
 */
export async function applyDreamPlan(tx: Queryable, plan: DreamPlan, runId: string): Promise<DreamApplied> {
  const involved = [...new Set([
    ...plan.merges.flatMap((m) => [m.survivorId, ...m.members.map((x) => x.id)]),
    ...plan.links.flatMap((l) => [l.from, l.to]),
    ...plan.crystals.map((c) => c.id),
  ])];
  const { rows } = await tx.query<{ id: string }>(`SELECT id FROM memories WHERE id = ANY($1::uuid[]) AND status = 'active' ORDER BY id FOR UPDATE`, [involved]);
  const alive = new Set(rows.map((r) => r.id));
  const done: DreamApplied = { merged: 0, links: 0, crystals: 0, stale: 0 };

  for (const m of plan.merges) {
    const members = m.members.filter((x) => alive.has(x.id));
    if (!alive.has(m.survivorId) || members.length === 0) {
      done.stale++;
      continue;
    }
    const ids = members.map((x) => x.id);
    await tx.query(
      `UPDATE memories SET status = 'superseded', superseded_by = $2, superseded_at = now(), updated_at = now() WHERE id = ANY($1::uuid[]) AND status = 'active'`,
      [ids, m.survivorId],
    );
    await tx.query(
      `WITH rel AS (
         INSERT INTO memory_relations (from_memory_id, to_memory_id, relation, is_progression)
         SELECT $1, x.id, x.relation, false FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, relation text)
         ON CONFLICT (from_memory_id, to_memory_id, relation) DO UPDATE SET is_progression = false
         RETURNING id, to_memory_id)
       INSERT INTO provenance (object_type, object_id, event_id, run_id)
       SELECT 'relation', rel.id, p.event_id, $3 FROM rel JOIN provenance p ON p.object_type = 'memory' AND p.object_id = rel.to_memory_id
       ON CONFLICT DO NOTHING`,
      [m.survivorId, JSON.stringify(members), runId],
    );
    await tx.query(
      `INSERT INTO provenance (object_type, object_id, event_id, run_id)
       SELECT 'memory', $2, event_id, $3 FROM provenance WHERE object_type = 'memory' AND object_id = ANY($1::uuid[]) ON CONFLICT DO NOTHING`,
      [ids, m.survivorId, runId],
    );
    await tx.query(
      `INSERT INTO memory_entities (memory_id, entity_id) SELECT $2, entity_id FROM memory_entities WHERE memory_id = ANY($1::uuid[]) ON CONFLICT DO NOTHING`,
      [ids, m.survivorId],
    );
    await tx.query(
      `UPDATE memories SET confidence = greatest(confidence, $2::real), importance = greatest(importance, $3::smallint), updated_at = now() WHERE id = $1`,
      [m.survivorId, m.confidence, m.importance],
    );
    await moveOpenLinks(tx, ids, m.survivorId, runId);
    done.merged += ids.length;
  }

  for (const l of plan.links) {
    if (!alive.has(l.from) || !alive.has(l.to)) {
      done.stale++;
      continue;
    }
    done.links += await addLink(tx, l.from, l.to, l.relation, runId);
  }

  for (const c of plan.crystals) {
    if (!alive.has(c.id)) {
      done.stale++;
      continue;
    }
    const { rowCount } = await tx.query(`UPDATE memories SET is_crystal = $2, updated_at = now() WHERE id = $1 AND is_crystal <> $2`, [c.id, c.isCrystal]);
    done.crystals += rowCount ?? 0;
  }
  return done;
}

/**
 * Adds `from → to` unless the pair has this relation in either direction; its provenance is the
 * evidence of both memories. Returns 1 when added.
 */
async function addLink(tx: Queryable, from: string, to: string, relation: string, runId: string): Promise<number> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO memory_relations (from_memory_id, to_memory_id, relation, is_progression)
     SELECT $1, $2, $3, false WHERE $1::uuid <> $2::uuid AND NOT EXISTS (
       SELECT 1 FROM memory_relations WHERE relation = $3 AND ((from_memory_id = $1 AND to_memory_id = $2) OR (from_memory_id = $2 AND to_memory_id = $1)))
     RETURNING id`,
    [from, to, relation],
  );
  const id = rows[0]?.id;
  if (!id) return 0;
  await tx.query(
    `INSERT INTO provenance (object_type, object_id, event_id, run_id)
     SELECT 'relation', $1, event_id, $3 FROM provenance WHERE object_type = 'memory' AND object_id = ANY($2::uuid[]) ON CONFLICT DO NOTHING`,
    [id, [from, to], runId],
  );
  return 1;
}

/** The merged members' `challenges` / `enriches` links, re-drawn from the survivor (same direction and relation). */
async function moveOpenLinks(tx: Queryable, memberIds: string[], survivorId: string, runId: string): Promise<void> {
  const { rows } = await tx.query<{ from_id: string; to_id: string; relation: string }>(
    `SELECT CASE WHEN from_memory_id = ANY($1::uuid[]) THEN $2::uuid ELSE from_memory_id END AS from_id,
            CASE WHEN to_memory_id = ANY($1::uuid[]) THEN $2::uuid ELSE to_memory_id END AS to_id, relation
     FROM memory_relations WHERE relation IN ('challenges', 'enriches') AND (from_memory_id = ANY($1::uuid[]) OR to_memory_id = ANY($1::uuid[]))`,
    [memberIds, survivorId],
  );
  for (const r of rows) await addLink(tx, r.from_id, r.to_id, r.relation, runId);
}
