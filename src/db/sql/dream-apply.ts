import type { DreamPlan } from '../../domain/dream.js';
import type { Queryable } from '../pool.js';

export interface DreamApplied {
  merged: number;
  links: number;
  crystals: number;
  /** Plan parts dropped because a memory they touch stopped being active since it was read. */
  stale: number;
  /** Memories of the plan found no longer active (the caller does not mark them looked at). */
  staleIds: string[];
}

/**
 * A relation's provenance is the evidence of both its memories, at most this many events of each
 * (the newest): a memory merged from hundreds of near-duplicates would otherwise copy hundreds of
 * rows into every link it gets. Forget still removes the link when its last copied event goes,
 * and always when one of its memories goes.
 */
export const RELATION_EVIDENCE_MAX = 16;

/**
 * Applies a dream plan in the caller's transaction with a fixed number of set-based statements,
 * whatever the plan's size (the caller keeps plans small: one batch of new memories). The plan
 * was computed from rows read before this transaction, so every memory it touches is re-locked
 * (FOR UPDATE) and a merge, link or crystal flag touching one that is no longer active is skipped
 * (the next dream sees it again).
 *
 * A merge supersedes the members by the survivor (superseded_by, relation survivor → member),
 * gives the survivor the union of their provenance and entity links and the highest confidence
 * and importance, and moves their open `challenges` / `enriches` links onto the survivor so a
 * contradiction never disappears in a merge. A link is added unless the pair already has that
 * relation in either direction. Provenance rows carry `runId`.
 */
export async function applyDreamPlan(tx: Queryable, plan: DreamPlan, runId: string): Promise<DreamApplied> {
  const involved = [
    ...new Set([
      ...plan.merges.flatMap((m) => [m.survivorId, ...m.members.map((x) => x.id)]),
      ...plan.links.flatMap((l) => [l.from, l.to]),
      ...plan.crystals.map((c) => c.id),
    ]),
  ];
  const done: DreamApplied = { merged: 0, links: 0, crystals: 0, stale: 0, staleIds: [] };
  if (involved.length === 0) return done;
  const { rows } = await tx.query<{ id: string }>(`SELECT id FROM memories WHERE id = ANY($1::uuid[]) AND status = 'active' ORDER BY id FOR UPDATE`, [
    involved,
  ]);
  const alive = new Set(rows.map((r) => r.id));
  done.staleIds = involved.filter((id) => !alive.has(id));

  const members: Array<{ id: string; survivor: string; relation: string }> = [];
  const survivors: Array<{ id: string; confidence: number; importance: number }> = [];
  for (const m of plan.merges) {
    const live = m.members.filter((x) => alive.has(x.id));
    if (!alive.has(m.survivorId) || live.length === 0) {
      done.stale++;
      continue;
    }
    members.push(...live.map((x) => ({ id: x.id, survivor: m.survivorId, relation: x.relation })));
    survivors.push({ id: m.survivorId, confidence: m.confidence, importance: m.importance });
  }
  if (members.length > 0) {
    await mergeMembers(tx, members, survivors, runId);
    done.merged = members.length;
  }

  const links = plan.links.filter((l) => alive.has(l.from) && alive.has(l.to));
  done.stale += plan.links.length - links.length;
  done.links = await addLinks(tx, links, runId);

  const crystals = plan.crystals.filter((c) => alive.has(c.id));
  done.stale += plan.crystals.length - crystals.length;
  if (crystals.length > 0) {
    const { rowCount } = await tx.query(
      `UPDATE memories m SET is_crystal = x.c, updated_at = now() FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, c boolean) WHERE m.id = x.id AND m.is_crystal <> x.c`,
      [JSON.stringify(crystals.map((c) => ({ id: c.id, c: c.isCrystal })))],
    );
    done.crystals = rowCount ?? 0;
  }
  return done;
}

async function mergeMembers(
  tx: Queryable,
  members: Array<{ id: string; survivor: string; relation: string }>,
  survivors: Array<{ id: string; confidence: number; importance: number }>,
  runId: string,
): Promise<void> {
  const json = JSON.stringify(members);
  const recordset = `jsonb_to_recordset($1::jsonb) AS x(id uuid, survivor uuid, relation text)`;
  await tx.query(
    `UPDATE memories m SET status = 'superseded', superseded_by = x.survivor, superseded_at = now(), updated_at = now() FROM ${recordset} WHERE m.id = x.id AND m.status = 'active'`,
    [json],
  );
  // survivor → member (confirms | replaces), with the member's evidence as the relation's provenance
  await tx.query(
    `WITH rel AS (
       INSERT INTO memory_relations (from_memory_id, to_memory_id, relation, is_progression)
       SELECT x.survivor, x.id, x.relation, false FROM ${recordset}
       ON CONFLICT (from_memory_id, to_memory_id, relation) DO UPDATE SET is_progression = false
       RETURNING id, to_memory_id)
     INSERT INTO provenance (object_type, object_id, event_id, run_id)
     SELECT 'relation', rel.id, p.event_id, $2 FROM rel JOIN provenance p ON p.object_type = 'memory' AND p.object_id = rel.to_memory_id
     ON CONFLICT DO NOTHING`,
    [json, runId],
  );
  await tx.query(
    `INSERT INTO provenance (object_type, object_id, event_id, run_id)
     SELECT 'memory', x.survivor, p.event_id, $2 FROM ${recordset} JOIN provenance p ON p.object_type = 'memory' AND p.object_id = x.id ON CONFLICT DO NOTHING`,
    [json, runId],
  );
  await tx.query(
    `INSERT INTO memory_entities (memory_id, entity_id)
     SELECT DISTINCT x.survivor, me.entity_id FROM ${recordset} JOIN memory_entities me ON me.memory_id = x.id ORDER BY 1, 2 ON CONFLICT DO NOTHING`,
    [json],
  );
  await tx.query(
    `UPDATE memories m SET confidence = greatest(m.confidence, x.confidence::real), importance = greatest(m.importance, x.importance::smallint), updated_at = now()
     FROM (SELECT id, max(confidence) AS confidence, max(importance) AS importance FROM jsonb_to_recordset($1::jsonb) AS s(id uuid, confidence real, importance int) GROUP BY id) x
     WHERE m.id = x.id`,
    [JSON.stringify(survivors)],
  );
  // The members' open challenges / enriches links, re-drawn from their survivor (same direction and relation).
  const { rows } = await tx.query<{ from: string; to: string; relation: 'enriches' | 'challenges' }>(
    `WITH x AS (SELECT * FROM ${recordset})
     SELECT coalesce(xf.survivor, r.from_memory_id) AS "from", coalesce(xt.survivor, r.to_memory_id) AS "to", r.relation
     FROM memory_relations r LEFT JOIN x xf ON xf.id = r.from_memory_id LEFT JOIN x xt ON xt.id = r.to_memory_id
     WHERE r.relation IN ('challenges', 'enriches') AND (xf.id IS NOT NULL OR xt.id IS NOT NULL)`,
    [json],
  );
  await addLinks(tx, rows, runId);
}

/**
 * Adds each `from → to` unless the pair has this relation in either direction (or is one memory),
 * in one statement; its provenance is the evidence of both memories (RELATION_EVIDENCE_MAX each).
 * Returns the number added.
 */
async function addLinks(tx: Queryable, links: ReadonlyArray<{ from: string; to: string; relation: string }>, runId: string): Promise<number> {
  if (links.length === 0) return 0;
  const { rows } = await tx.query<{ added: number }>(
    `WITH x AS (
       SELECT DISTINCT ON (least(f, t), greatest(f, t), r) f, t, r FROM jsonb_to_recordset($1::jsonb) AS j(f uuid, t uuid, r text)
       WHERE f <> t ORDER BY least(f, t), greatest(f, t), r, f),
     ins AS (
       INSERT INTO memory_relations (from_memory_id, to_memory_id, relation, is_progression)
       SELECT f, t, r, false FROM x WHERE NOT EXISTS (
         SELECT 1 FROM memory_relations mr WHERE mr.relation = x.r AND ((mr.from_memory_id = x.f AND mr.to_memory_id = x.t) OR (mr.from_memory_id = x.t AND mr.to_memory_id = x.f)))
       ON CONFLICT DO NOTHING
       RETURNING id, from_memory_id, to_memory_id),
     prov AS (
       INSERT INTO provenance (object_type, object_id, event_id, run_id)
       SELECT 'relation', ins.id, p.event_id, $2 FROM ins CROSS JOIN LATERAL (
         (SELECT event_id FROM provenance WHERE object_type = 'memory' AND object_id = ins.from_memory_id ORDER BY created_at DESC, event_id LIMIT $3)
         UNION (SELECT event_id FROM provenance WHERE object_type = 'memory' AND object_id = ins.to_memory_id ORDER BY created_at DESC, event_id LIMIT $3)) p
       ON CONFLICT DO NOTHING RETURNING 1)
     SELECT (SELECT count(*) FROM ins)::int AS added, (SELECT count(*) FROM prov)::int AS provenance`,
    [JSON.stringify(links.map((l) => ({ f: l.from, t: l.to, r: l.relation }))), runId, RELATION_EVIDENCE_MAX],
  );
  return rows[0]?.added ?? 0;
}
