import { metaDocument } from '../../domain/text.js';
import { refreshChunkKeys } from './chunks.js';
import type { Queryable } from '../pool.js';

/**
 * Batched writes of POST /v1/import, each one statement over a JSON array of rows, inside the
 * caller's withTenant transaction. Every insert is `ON CONFLICT DO NOTHING` on the object's
 * unique keys (its id, and the natural key the pipeline upserts on), and each function returns
 * the ids now stored for its rows — new or already there — so an import run twice, or an import
 * over objects that already exist, adds nothing and still resolves every reference.
 * Vectors go in as pgvector text (`[x,y,…]`), full-text documents as text for to_tsvector.
 */

const J = '$1::jsonb';

export async function importEvents(tx: Queryable, rows: Array<Record<string, unknown>>): Promise<{ inserted: Set<string>; idByKey: Map<string, string> }> {
  const { rows: ins } = await tx.query<{ id: string }>(
    `INSERT INTO events (id, idem_key, dataset, user_id, agent_id, session_id, type, role, content, content_hash, occurred_at, received_at,
                         importance, ttl, metadata, source, source_ref, status, skip_reason, processed_at, enqueued_at)
     SELECT id, idem_key, dataset, user_id, agent_id, session_id, type, role, content, content_hash, occurred_at, received_at,
            importance, ttl::interval, coalesce(metadata, '{}'), source, source_ref, status, skip_reason, processed_at,
            CASE WHEN status = 'received' THEN NULL ELSE now() END
     FROM jsonb_to_recordset(${J}) AS x(id uuid, idem_key text, dataset text, user_id text, agent_id text, session_id text, type text, role text,
          content text, content_hash text, occurred_at timestamptz, received_at timestamptz, importance smallint, ttl text, metadata jsonb,
          source text, source_ref text, status text, skip_reason text, processed_at timestamptz)
     ON CONFLICT DO NOTHING RETURNING id`,
    [JSON.stringify(rows)],
  );
  const { rows: found } = await tx.query<{ id: string; idem_key: string }>(
    `SELECT id, idem_key FROM events WHERE tenant_id = current_setting('app.tenant_id') AND idem_key = ANY($1::text[])`,
    [rows.map((r) => r.idem_key)],
  );
  return { inserted: new Set(ins.map((r) => r.id)), idByKey: new Map(found.map((r) => [r.idem_key, r.id])) };
}

/** Scope columns and time come from the chunk's (mapped) event, as the chunk stage copies them. */
export async function importChunks(tx: Queryable, rows: Array<Record<string, unknown>>): Promise<number> {
  // The key's time and speaker words come from the chunk's event, tokenised as the chunk stage does.
  const { rows: events } = await tx.query<{ id: string; occurred_at: Date; speaker: string | null }>(
    `SELECT id, occurred_at, coalesce(metadata->>'speaker', metadata->>'name') AS speaker FROM events WHERE id = ANY($1::uuid[])`,
    [[...new Set(rows.map((r) => r.event_id))]],
  );
  const byId = new Map(events.map((e) => [e.id, e]));
  rows = rows.map((r) => {
    const e = byId.get(r.event_id as string);
    return { ...r, meta_doc: e ? metaDocument(e.occurred_at, e.speaker, String(r.content ?? '')) : '' };
  });
  const { rows: inserted, rowCount } = await tx.query<{ id: string }>(
    `INSERT INTO chunks (id, event_id, event_seq, idx, content, start_offset, end_offset, tokens, content_hash, dataset, user_id, agent_id, session_id,
                         occurred_at, fts, own_embedding, embedding, embedding_model, embedding_dims, created_at)
     SELECT x.id, x.event_id, e.seq, x.idx, x.content, x.start_offset, x.end_offset, x.tokens, x.content_hash, e.dataset, e.user_id, e.agent_id,
            e.session_id, e.occurred_at, to_tsvector('simple', x.fts_doc) || memloom_meta_key(to_tsvector('simple', x.meta_doc)), x.embedding::vector, x.embedding::vector, x.embedding_model, x.embedding_dims, x.created_at
     FROM jsonb_to_recordset(${J}) AS x(id uuid, event_id uuid, idx int, content text, start_offset int, end_offset int, tokens int,
          content_hash text, fts_doc text, meta_doc text, embedding text, embedding_model text, embedding_dims int, created_at timestamptz)
     JOIN events e ON e.id = x.event_id
     ON CONFLICT DO NOTHING
     RETURNING id`,
    [JSON.stringify(rows)],
  );
  // Keys carry session neighbours, which may arrive in a later batch of the import.
  await refreshChunkKeys(
    tx,
    inserted.map((r) => r.id),
  );
  return rowCount ?? 0;
}

export async function importEntities(tx: Queryable, rows: Array<Record<string, unknown>>): Promise<{ inserted: number; idByKey: Map<string, string> }> {
  const { rowCount } = await tx.query(
    `INSERT INTO entities (id, dataset, user_id, name, normalized_name, type, description, fts, embedding, embedding_model, embedding_dims, created_at, updated_at)
     SELECT id, dataset, user_id, name, normalized_name, type, description, to_tsvector('simple', fts_doc), embedding::vector, embedding_model, embedding_dims, created_at, updated_at
     FROM jsonb_to_recordset(${J}) AS x(id uuid, dataset text, user_id text, name text, normalized_name text, type text, description text, fts_doc text,
          embedding text, embedding_model text, embedding_dims int, created_at timestamptz, updated_at timestamptz)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(rows)],
  );
  // Found by the scoped key (entities_scope_key): an entity already in the same user's graph is reused.
  const { rows: found } = await tx.query<{ id: string; key: string }>(
    `SELECT n.id, n.dataset || '|' || coalesce(n.user_id, '') || '|' || n.normalized_name || '|' || n.type AS key FROM entities n
     JOIN jsonb_to_recordset(${J}) AS x(dataset text, user_id text, normalized_name text, type text)
       ON n.dataset = x.dataset AND coalesce(n.user_id, '') = coalesce(x.user_id, '') AND n.normalized_name = x.normalized_name AND n.type = x.type`,
    [JSON.stringify(rows)],
  );
  return { inserted: rowCount ?? 0, idByKey: new Map(found.map((r) => [r.key, r.id])) };
}

/**
 * Memories without their successor link (set by linkSuperseded once every version is in). Returns
 * the id stored for each row: the given id, or the active memory with the same content in the
 * same user scope (the pipeline's unique key) when that one was already there.
 */
export async function importMemories(tx: Queryable, rows: Array<Record<string, unknown>>): Promise<{ inserted: Set<string>; ids: Array<string | undefined> }> {
  const json = JSON.stringify(rows);
  const { rows: ins } = await tx.query<{ id: string }>(
    `INSERT INTO memories (id, dataset, user_id, agent_id, session_id, kind, content, content_hash, subject_entity_id, importance, confidence,
                           rank_weight, event_time, time_precision, occurred_at, valid_from, superseded_at, status, expires_at, is_crystal,
                           version, fts, embedding, embedding_model, embedding_dims, created_at, updated_at, slot, slot_keys)
     SELECT id, dataset, user_id, agent_id, session_id, kind, content, content_hash, subject_entity_id, importance, confidence, rank_weight,
            event_time, time_precision, occurred_at, valid_from, superseded_at, status, expires_at, is_crystal, version,
            coalesce(key::tsvector, to_tsvector('simple', fts_doc)), embedding::vector, embedding_model, embedding_dims, created_at, updated_at,
            slot, CASE WHEN slot_keys IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(slot_keys)) END
     FROM jsonb_to_recordset(${J}) AS x(id uuid, dataset text, user_id text, agent_id text, session_id text, kind text, content text,
          content_hash text, subject_entity_id uuid, importance smallint, confidence real, rank_weight real, event_time timestamptz,
          time_precision text, occurred_at timestamptz, valid_from timestamptz, superseded_at timestamptz, status text,
          expires_at timestamptz, is_crystal boolean, version int, fts_doc text, embedding text, embedding_model text, embedding_dims int,
          created_at timestamptz, updated_at timestamptz, key text, slot jsonb, slot_keys jsonb)
     ON CONFLICT DO NOTHING RETURNING id`,
    [json],
  );
  const { rows: found } = await tx.query<{ i: number; id: string }>(
    `SELECT x.i, coalesce(
       (SELECT m.id FROM memories m WHERE m.id = x.id),
       (SELECT m.id FROM memories m WHERE x.status = 'active' AND m.status = 'active' AND coalesce(m.user_id, '') = coalesce(x.user_id, '')
          AND m.content_hash = x.content_hash)) AS id
     FROM jsonb_to_recordset(${J}) AS x(i int, id uuid, user_id text, content_hash text, status text)`,
    [JSON.stringify(rows.map((r, i) => ({ i, id: r.id, user_id: r.user_id, content_hash: r.content_hash, status: r.status })))],
  );
  const ids: Array<string | undefined> = rows.map(() => undefined);
  for (const f of found) if (f.id) ids[f.i] = f.id;
  return { inserted: new Set(ins.map((r) => r.id)), ids };
}

export async function importSignals(
  tx: Queryable,
  rows: Array<{ memory_id: string; decay: number; access_count: number; last_accessed_at: string | null }>,
): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO memory_signals (memory_id, decay, access_count, last_accessed_at)
     SELECT memory_id, decay, access_count, last_accessed_at FROM jsonb_to_recordset(${J}) AS x(memory_id uuid, decay real, access_count int, last_accessed_at timestamptz)
     ON CONFLICT (memory_id) DO NOTHING`,
    [JSON.stringify(rows)],
  );
}

/** Successor links of memories this import inserted (never rewrites a link that exists). */
export async function linkSuperseded(tx: Queryable, links: Array<{ id: string; superseded_by: string }>): Promise<void> {
  if (links.length === 0) return;
  await tx.query(
    `UPDATE memories m SET superseded_by = x.superseded_by FROM jsonb_to_recordset(${J}) AS x(id uuid, superseded_by uuid)
     WHERE m.id = x.id AND m.superseded_by IS NULL AND EXISTS (SELECT 1 FROM memories s WHERE s.id = x.superseded_by)`,
    [JSON.stringify(links)],
  );
}

export async function importEdges(tx: Queryable, rows: Array<Record<string, unknown>>): Promise<{ inserted: number; idByKey: Map<string, string> }> {
  const json = JSON.stringify(rows);
  const { rowCount } = await tx.query(
    `INSERT INTO edges (id, source_entity_id, target_entity_id, relation, description, valid_at, invalid_at, fts, created_at, updated_at)
     SELECT id, source_entity_id, target_entity_id, relation, description, valid_at, invalid_at, to_tsvector('simple', fts_doc), created_at, updated_at
     FROM jsonb_to_recordset(${J}) AS x(id uuid, source_entity_id uuid, target_entity_id uuid, relation text, description text,
          valid_at timestamptz, invalid_at timestamptz, fts_doc text, created_at timestamptz, updated_at timestamptz)
     ON CONFLICT DO NOTHING`,
    [json],
  );
  const { rows: found } = await tx.query<{ id: string; key: string }>(
    `SELECT g.id, g.source_entity_id || '|' || g.target_entity_id || '|' || g.relation AS key FROM edges g
     JOIN jsonb_to_recordset(${J}) AS x(source_entity_id uuid, target_entity_id uuid, relation text)
       ON g.source_entity_id = x.source_entity_id AND g.target_entity_id = x.target_entity_id AND g.relation = x.relation`,
    [json],
  );
  return { inserted: rowCount ?? 0, idByKey: new Map(found.map((r) => [r.key, r.id])) };
}

export async function importRelations(tx: Queryable, rows: Array<Record<string, unknown>>): Promise<{ inserted: number; idByKey: Map<string, string> }> {
  const json = JSON.stringify(rows);
  const { rowCount } = await tx.query(
    `INSERT INTO memory_relations (id, from_memory_id, to_memory_id, relation, is_progression, created_at)
     SELECT id, from_memory_id, to_memory_id, relation, is_progression, created_at
     FROM jsonb_to_recordset(${J}) AS x(id uuid, from_memory_id uuid, to_memory_id uuid, relation text, is_progression boolean, created_at timestamptz)
     ON CONFLICT DO NOTHING`,
    [json],
  );
  const { rows: found } = await tx.query<{ id: string; key: string }>(
    `SELECT r.id, r.from_memory_id || '|' || r.to_memory_id || '|' || r.relation AS key FROM memory_relations r
     JOIN jsonb_to_recordset(${J}) AS x(from_memory_id uuid, to_memory_id uuid, relation text)
       ON r.from_memory_id = x.from_memory_id AND r.to_memory_id = x.to_memory_id AND r.relation = x.relation`,
    [json],
  );
  return { inserted: rowCount ?? 0, idByKey: new Map(found.map((r) => [r.key, r.id])) };
}

export async function importMemoryEntities(tx: Queryable, rows: Array<{ memory_id: string; entity_id: string }>): Promise<number> {
  const { rowCount } = await tx.query(
    `INSERT INTO memory_entities (memory_id, entity_id) SELECT memory_id, entity_id FROM jsonb_to_recordset(${J}) AS x(memory_id uuid, entity_id uuid)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(rows)],
  );
  return rowCount ?? 0;
}

export async function importProvenance(
  tx: Queryable,
  rows: Array<{ object_type: string; object_id: string; event_id: string; created_at: string }>,
  runId: string,
): Promise<number> {
  const { rowCount } = await tx.query(
    `INSERT INTO provenance (object_type, object_id, event_id, run_id, created_at)
     SELECT object_type, object_id, event_id, $2::uuid, created_at FROM jsonb_to_recordset(${J}) AS x(object_type text, object_id uuid, event_id uuid, created_at timestamptz)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(rows), runId],
  );
  return rowCount ?? 0;
}

/** A digest is taken only where the user has none: the target's own working memory wins. */
export async function importWorkingMemory(tx: Queryable, rows: Array<{ user_id: string; markdown: string; refreshed_at: string }>): Promise<string[]> {
  const { rows: taken } = await tx.query<{ user_id: string }>(
    `INSERT INTO user_state (user_id, briefing_md, last_briefing_at)
     SELECT user_id, markdown, refreshed_at FROM jsonb_to_recordset(${J}) AS x(user_id text, markdown text, refreshed_at timestamptz)
     ON CONFLICT (tenant_id, user_id) DO UPDATE SET briefing_md = EXCLUDED.briefing_md, last_briefing_at = EXCLUDED.last_briefing_at, updated_at = now()
       WHERE user_state.briefing_md IS NULL
     RETURNING user_id`,
    [JSON.stringify(rows)],
  );
  return taken.map((r) => r.user_id);
}

export async function createImportRun(tx: Queryable, stats: Record<string, unknown>): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(`INSERT INTO pipeline_runs (stage, stats, finished_at) VALUES ('import', $1::jsonb, now()) RETURNING id`, [
    JSON.stringify(stats),
  ]);
  return (rows[0] as { id: string }).id;
}
