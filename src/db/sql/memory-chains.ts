import { relate } from '../../domain/slot-relate.js';
import type { Slot } from '../../domain/slots.js';
import type { Queryable } from '../pool.js';
import { SLOT_CANDIDATES, type MemoryNeighbour } from './memories-write.js';

// A memory's chain of versions (superseded_by links), read and rearranged: reversals to a former
// value, the version that held at a given time, and the placing of a late arrival in the history.

/** How far a walk along a chain goes (a reversal to the value that holds now, a version held at a time). */
const CHAIN_DEPTH = 20;

/** An active memory whose chain once held a value a unit states again, with that former version's slot. */
export type RevertCandidate = MemoryNeighbour & { reverted_slot: Slot };

/**
 * Reversals ("we went back to Jenkins"): for each unit's value keys (`v:…`), the superseded
 * memories of the user that held one of those values, followed along superseded_by to the active
 * memory of their chain, with the former version's slot. At most `limit` former versions per unit,
 * most recent first, in one statement. A memory never superseded is not here: slotCandidatesBatch
 * finds it.
 */
export async function revertCandidatesBatch(
  tx: Queryable,
  scope: { userId: string | null },
  keys: string[][],
  limit = SLOT_CANDIDATES,
): Promise<RevertCandidate[][]> {
  if (keys.every((k) => k.length === 0)) return keys.map(() => []);
  const user = scope.userId === null ? 'm.user_id IS NULL AND $1::text IS NULL' : 'm.user_id = $1';
  const { rows } = await tx.query<RevertCandidate & { i: number }>(
    `WITH RECURSIVE q AS (SELECT (ord - 1)::int AS i, k FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(k, ord)),
     former AS (
       SELECT q.i, o.slot AS reverted_slot, o.superseded_by AS next FROM q CROSS JOIN LATERAL (
         SELECT m.slot, m.superseded_by FROM memories m
         WHERE m.status = 'superseded' AND m.superseded_by IS NOT NULL AND m.slot_keys && ARRAY(SELECT jsonb_array_elements_text(q.k)) AND ${user}
         ORDER BY m.valid_from DESC LIMIT $3) o),
     walk(i, reverted_slot, id, status, next, depth) AS (
       SELECT f.i, f.reverted_slot, m.id, m.status, m.superseded_by, 0 FROM former f JOIN memories m ON m.id = f.next
       UNION ALL
       SELECT w.i, w.reverted_slot, m.id, m.status, m.superseded_by, w.depth + 1 FROM walk w JOIN memories m ON m.id = w.next
       WHERE w.status = 'superseded' AND w.depth < ${CHAIN_DEPTH})
     SELECT DISTINCT ON (w.i, m.id) w.i, w.reverted_slot, m.id, m.kind, m.content, m.content_hash, m.subject_entity_id, m.version,
            m.occurred_at, m.valid_from, m.slot, 0::float8 AS similarity
     FROM walk w JOIN memories m ON m.id = w.id WHERE w.status = 'active' AND m.slot IS NOT NULL
     ORDER BY w.i, m.id`,
    [scope.userId, JSON.stringify(keys), limit],
  );
  const out: RevertCandidate[][] = keys.map(() => []);
  for (const { i, ...n } of rows) out[i]?.push(n);
  return out;
}

/** The version of a chain that held at a time: its id, version, text hash and slot. */
export interface HeldVersion {
  id: string;
  version: number;
  content_hash: string;
  slot: Slot | null;
}

/**
 * For each late arrival (a unit stated at `at`, older than the value `successorId` holds now), the
 * version of that memory's chain that held at `at`: the latest with valid_from at or before it
 * (successor included, ties by id), or undefined when the chain starts after `at`. A late unit
 * that says what that version says is a restatement of history, not a new version of it. One
 * statement for all of them.
 */
export async function versionsHeldAt(tx: Queryable, items: Array<{ successorId: string; at: Date }>): Promise<Array<HeldVersion | undefined>> {
  if (items.length === 0) return [];
  const { rows } = await tx.query<HeldVersion & { i: number }>(
    `WITH RECURSIVE q AS (SELECT (ord - 1)::int AS i, (x.v ->> 's')::uuid AS s, (x.v ->> 'at')::timestamptz AS at
                          FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(v, ord)),
     chain(i, id, depth) AS (
       SELECT q.i, q.s, 0 FROM q
       UNION SELECT c.i, m.id, c.depth + 1 FROM chain c JOIN memories m ON m.superseded_by = c.id WHERE c.depth < ${CHAIN_DEPTH})
     SELECT DISTINCT ON (c.i) c.i, m.id, m.version, m.content_hash, m.slot
     FROM chain c JOIN q ON q.i = c.i JOIN memories m ON m.id = c.id
     WHERE m.valid_from <= q.at
     ORDER BY c.i, m.valid_from DESC, m.id`,
    [JSON.stringify(items.map((x) => ({ s: x.successorId, at: x.at.toISOString() })))],
  );
  const out: Array<HeldVersion | undefined> = items.map(() => undefined);
  for (const { i, ...v } of rows) out[i] = v;
  return out;
}

/**
 * Late arrivals: each `id` (just inserted, active, with its `slot`) states a value of a slot whose
 * history already holds a value stated after it (`successorId`, an active memory). It takes its
 * place in that history by valid_from: it is superseded by the first version of that chain valid
 * after it that it relates to (slot-relate.ts; `successorId` when none), superseded_at = that
 * one's valid_from; and the versions that version superseded, that were valid before the late one
 * and that it replaces, now point at it (superseded_at = its valid_from), so `as_of` between them
 * finds it. A chain's versions need not all share one slot with each other, so each link is
 * checked. Returns the successor each late arrival got; a row already superseded is left as it is
 * (replay).
 */
export async function placeLateVersions(tx: Queryable, rows: Array<{ id: string; successorId: string; slot: Slot | null }>): Promise<Map<string, string>> {
  const placed = new Map<string, string>();
  for (const { id, successorId, slot } of rows) {
    const { rows: chain } = await tx.query<{ id: string; valid_from: Date; slot: Slot | null; superseded_by: string | null; late: boolean }>(
      `WITH RECURSIVE chain(id, d) AS (
         SELECT id, 0 FROM memories WHERE id = $2
         UNION ALL SELECT m.id, c.d + 1 FROM memories m JOIN chain c ON m.superseded_by = c.id WHERE m.id <> $1 AND c.d < ${CHAIN_LIMIT})
       SELECT m.id, m.valid_from, m.slot, m.superseded_by, false AS late FROM chain c JOIN memories m ON m.id = c.id
       UNION ALL SELECT id, valid_from, slot, superseded_by, true FROM memories WHERE id = $1 AND status = 'active'`,
      [id, successorId],
    );
    const late = chain.find((v) => v.late);
    if (!late) continue;
    const at = new Date(late.valid_from).getTime();
    const related = (older: Slot | null, newer: Slot | null) => older !== null && newer !== null && relate(older, newer) !== 'unrelated';
    const after = chain
      .filter((v) => !v.late && new Date(v.valid_from).getTime() > at)
      .sort((a, b) => new Date(a.valid_from).getTime() - new Date(b.valid_from).getTime() || (a.id < b.id ? -1 : 1));
    const succ = after.find((v) => related(slot, v.slot)) ?? after.find((v) => v.id === successorId);
    if (!succ) continue;
    const replaced = chain
      .filter((v) => !v.late && v.superseded_by === succ.id && new Date(v.valid_from).getTime() <= at && related(v.slot, slot))
      .map((v) => v.id);
    await tx.query(
      `WITH moved_new AS (
         UPDATE memories m SET status = 'superseded', superseded_by = s.id, superseded_at = s.valid_from, updated_at = now()
         FROM memories s WHERE s.id = $2 AND m.id = $1 AND m.status = 'active' RETURNING m.id, m.valid_from)
       UPDATE memories m SET superseded_by = n.id, superseded_at = n.valid_from, updated_at = now()
       FROM moved_new n WHERE m.superseded_by = $2 AND m.id = ANY($3::uuid[])`,
      [id, succ.id, replaced],
    );
    placed.set(id, succ.id);
    await renumberChain(tx, id);
  }
  return placed;
}

/**
 * Numbers the versions of the chain that holds `id` by their place in it: a version with no
 * predecessor is 1, the next one up its chain 2, and so on (where two versions were merged into
 * one, the longer path counts). A late version was inserted as 1; placed in the middle of a chain,
 * it and every version after it move up one. One statement; rows already right are not written,
 * and updated_at stays: a number is bookkeeping, and consolidation takes an updated memory for a
 * changed one (with it, the LoCoMo dev file's ingest ended with about 30 more relations).
 */
async function renumberChain(tx: Queryable, id: string): Promise<void> {
  await tx.query(
    `WITH RECURSIVE fwd(id, next, d) AS (
       SELECT id, superseded_by, 0 FROM memories WHERE id = $1
       UNION ALL SELECT m.id, m.superseded_by, f.d + 1 FROM memories m JOIN fwd f ON m.id = f.next WHERE f.d < ${CHAIN_LIMIT}),
     head AS (SELECT id FROM fwd ORDER BY d DESC LIMIT 1),
     back(id, d) AS (
       SELECT id, 0 FROM head
       UNION ALL SELECT m.id, b.d + 1 FROM memories m JOIN back b ON m.superseded_by = b.id WHERE b.d < ${CHAIN_LIMIT}),
     roots AS (SELECT DISTINCT b.id FROM back b WHERE NOT EXISTS (SELECT 1 FROM memories p WHERE p.superseded_by = b.id)),
     walk(id, next, v) AS (
       SELECT m.id, m.superseded_by, 1 FROM memories m JOIN roots r ON r.id = m.id
       UNION ALL SELECT m.id, m.superseded_by, w.v + 1 FROM memories m JOIN walk w ON m.id = w.next WHERE w.v <= ${CHAIN_LIMIT}),
     numbered AS (SELECT id, max(v) AS v FROM walk GROUP BY id)
     UPDATE memories m SET version = n.v FROM numbered n WHERE m.id = n.id AND m.version <> n.v`,
    [id],
  );
}

/** Versions a chain is walked over at most, both ways (a guard against a cycle a bug could make). */
const CHAIN_LIMIT = 100;

/**
 * Takes the transaction-scoped lock of one user's memory (tenant and user), in its own statement
 * before the pass reads any candidate: two passes of the same user (two worker processes, or two
 * jobs of one) then decide one after the other, the second on what the first committed. Without it,
 * both read the same active version and both supersede it, and the chain and its relations depend
 * on how the events were split into passes (a second process on the same data gave one relation more).
 */
export async function lockUserMemory(tx: Queryable, userId: string | null): Promise<void> {
  await tx.query(
    `SELECT pg_advisory_xact_lock(hashtextextended(concat_ws(chr(31), current_setting('app.tenant_id'), 'memory', coalesce($1::text, '')), 727005))`,
    [userId],
  );
}

/**
 * Undoes supersessions (`oldId` superseded by `newId`) that the slot reader made and no longer
 * makes (src/db/slot-upgrade.ts): the old version is active again, the `replaces` relation between
 * the two and its provenance go, the edges its supersession ended (ended at the successor's
 * valid_from, backed only by the old version's events) are current again, and both chains are
 * numbered anew. An old version whose text another active memory of its user holds stays
 * superseded (one active memory per text). Returns the ids made active again. A pair whose link
 * changed meanwhile is left as it is.
 */
export async function unlinkVersions(tx: Queryable, pairs: Array<{ oldId: string; newId: string }>): Promise<string[]> {
  if (pairs.length === 0) return [];
  const { rows } = await tx.query<{ id: string; new_id: string }>(
    `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(o uuid, n uuid)),
     pick AS (
       SELECT DISTINCT ON (coalesce(o.user_id, ''), o.content_hash) o.id, n.id AS new_id, n.valid_from AS ended_at
       FROM x JOIN memories o ON o.id = x.o JOIN memories n ON n.id = x.n
       WHERE o.status = 'superseded' AND o.superseded_by = n.id
         AND NOT EXISTS (SELECT 1 FROM memories a WHERE a.status = 'active' AND coalesce(a.user_id, '') = coalesce(o.user_id, '') AND a.content_hash = o.content_hash)
       ORDER BY coalesce(o.user_id, ''), o.content_hash, o.valid_from DESC, o.id),
     restored AS (
       UPDATE memories m SET status = 'active', superseded_by = NULL, superseded_at = NULL, updated_at = now()
       FROM pick WHERE m.id = pick.id RETURNING m.id, pick.new_id, pick.ended_at),
     unrelated AS (
       DELETE FROM memory_relations r USING restored s
       WHERE r.relation = 'replaces' AND ((r.from_memory_id = s.new_id AND r.to_memory_id = s.id) OR (r.from_memory_id = s.id AND r.to_memory_id = s.new_id))
       RETURNING r.id),
     unprovenanced AS (DELETE FROM provenance p USING unrelated u WHERE p.object_type = 'relation' AND p.object_id = u.id),
     reopened AS (
       UPDATE edges ed SET invalid_at = NULL FROM restored s
       WHERE ed.invalid_at = s.ended_at
         AND EXISTS (SELECT 1 FROM provenance pe WHERE pe.object_type = 'edge' AND pe.object_id = ed.id)
         AND NOT EXISTS (
           SELECT 1 FROM provenance pe WHERE pe.object_type = 'edge' AND pe.object_id = ed.id
             AND NOT EXISTS (SELECT 1 FROM provenance pm WHERE pm.object_type = 'memory' AND pm.object_id = s.id AND pm.event_id = pe.event_id)))
     SELECT id, new_id FROM restored`,
    [JSON.stringify(pairs.map((p) => ({ o: p.oldId, n: p.newId })))],
  );
  for (const id of new Set(rows.flatMap((r) => [r.id, r.new_id]))) await renumberChain(tx, id);
  return rows.map((r) => r.id);
}
