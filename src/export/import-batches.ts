import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import {
  importChunks,
  importEdges,
  importEntities,
  importEvents,
  importMemories,
  importMemoryEntities,
  importProvenance,
  importRelations,
  importSignals,
  importWorkingMemory,
} from '../db/sql/import.js';
import type { Slot } from '../domain/slots.js';
import { slotKeys, slotKeyText } from '../domain/slot-keys.js';
import { ftsDocument } from '../domain/text.js';
import { embedDocuments } from '../embeddings.js';
import { FIRST_STATUS, isFinished, type EventStatus } from '../queue/flow.js';
import type {
  ChunkRecord,
  EdgeRecord,
  EntityRecord,
  EventRecord,
  ExportRecord,
  ImportResult,
  MemoryEntityRecord,
  MemoryRecord,
  ProvenanceRecord,
  RelationRecord,
  WorkingMemoryRecord,
} from './schema.js';

type Mapped = 'event' | 'entity' | 'memory' | 'edge' | 'relation';

/** What an import carries from batch to batch: source id → stored id per type, and work left for the end. */
export interface ImportState {
  tenantId: string;
  runId: string;
  sourceEmbedding: { model: string; dimensions: number } | null;
  result: ImportResult;
  reject(line: number, message: string): void;
  newId(type: Mapped, id: string): string;
  contentHash(text: string): string;
  ids: Record<Mapped, Map<string, string>>;
  entityNames: Map<string, string>;
  /** (stored id, source id of its successor) of memories this import inserted. */
  supersededLinks: Array<{ id: string; successor: string }>;
  /** Stored ids of events the source had not finished: the pipeline runs them here. */
  restartEvents: string[];
  workingMemory: Array<{ user_id: string; markdown: string }>;
}

type Item<T> = { line: number; record: T };

/** Writes one batch of records of one type (the caller groups them), resolving references through the state's maps. */
export async function flushBatch(deps: Deps, s: ImportState, batch: Array<Item<ExportRecord>>): Promise<void> {
  const type = batch[0]?.record.record;
  switch (type) {
    case 'event':
      return events(deps, s, batch as Array<Item<EventRecord>>);
    case 'chunk':
      return chunks(deps, s, batch as Array<Item<ChunkRecord>>);
    case 'entity':
      return entities(deps, s, batch as Array<Item<EntityRecord>>);
    case 'memory':
      return memories(deps, s, batch as Array<Item<MemoryRecord>>);
    case 'edge':
      return edges(deps, s, batch as Array<Item<EdgeRecord>>);
    case 'relation':
      return relations(deps, s, batch as Array<Item<RelationRecord>>);
    case 'memory_entity':
      return memoryEntities(deps, s, batch as Array<Item<MemoryEntityRecord>>);
    case 'provenance':
      return provenance(deps, s, batch as Array<Item<ProvenanceRecord>>);
    case 'working_memory':
      return workingMemory(deps, s, batch as Array<Item<WorkingMemoryRecord>>);
    default:
      return undefined;
  }
}

const tx = <T>(deps: Deps, s: ImportState, fn: Parameters<typeof withTenant<T>>[2]) => withTenant(deps.db, s.tenantId, fn);
const count = (s: ImportState, type: keyof ImportResult['imported'], valid: number, inserted: number) => {
  s.result.imported[type] += inserted;
  s.result.existing[type] += valid - inserted;
};

/** Keeps references that resolve; rejects the lines of the others. */
function resolved<T, R>(s: ImportState, items: Array<Item<T>>, map: (r: T) => R | string): Array<R> {
  const out: R[] = [];
  for (const { line, record } of items) {
    const r = map(record);
    if (typeof r === 'string') s.reject(line, r);
    else out.push(r);
  }
  return out;
}

/**
 * Vectors for records that have text: the file's when the source used this instance's model and
 * that model is worth caching (a paid or slow one); otherwise computed here, which also feeds the
 * local hashing model's document statistics as the pipeline would have.
 */
async function vectors(
  deps: Deps,
  s: ImportState,
  items: Array<{ text: string; vector: number[] | null | undefined; model: string | null }>,
): Promise<Array<string | null>> {
  const emb = deps.providers.embeddings;
  const same = s.sourceEmbedding?.model === emb.model && s.sourceEmbedding.dimensions === emb.dimensions && emb.cached;
  const todo = items.map((it, i) => ({ it, i })).filter(({ it }) => !(same && it.model === emb.model && it.vector && it.vector.length === emb.dimensions));
  const out: Array<string | null> = items.map((it) => (it.vector ? `[${it.vector.join(',')}]` : null));
  if (todo.length > 0) {
    const fresh = await embedDocuments(
      deps.db,
      s.tenantId,
      emb,
      todo.map(({ it }) => it.text),
    );
    todo.forEach(({ i }, k) => (out[i] = `[${(fresh[k] as number[]).join(',')}]`));
    s.result.embedded += todo.length;
  }
  return out;
}

async function events(deps: Deps, s: ImportState, items: Array<Item<EventRecord>>): Promise<void> {
  const rows = items.map(({ record: e }) => {
    const status: EventStatus = isFinished(e.status) ? e.status : FIRST_STATUS;
    const { record: _r, id, ...rest } = e;
    return {
      ...rest,
      id: s.newId('event', id),
      source_id: id,
      status,
      content_hash: s.contentHash(e.content),
      processed_at: status === FIRST_STATUS ? null : e.processed_at,
    };
  });
  const { inserted, idByKey } = await tx(deps, s, (t) => importEvents(t, rows));
  for (const r of rows) {
    const stored = idByKey.get(r.idem_key);
    if (!stored) continue;
    s.ids.event.set(r.source_id, stored);
    if (inserted.has(stored) && r.status === FIRST_STATUS) s.restartEvents.push(stored);
  }
  count(s, 'event', rows.length, inserted.size);
}

async function chunks(deps: Deps, s: ImportState, items: Array<Item<ChunkRecord>>): Promise<void> {
  const ok = resolved(s, items, (c) => (s.ids.event.get(c.event_id) ? c : `chunk ${c.id}: its event ${c.event_id} is not in the file`));
  const vecs = await vectors(
    deps,
    s,
    ok.map((c) => ({ text: c.content, vector: c.embedding, model: c.embedding_model })),
  );
  const emb = deps.providers.embeddings;
  const rows = ok.map((c, i) => ({
    id: s.newId('event', `chunk:${c.id}`),
    event_id: s.ids.event.get(c.event_id),
    idx: c.idx,
    content: c.content,
    start_offset: c.start_offset,
    end_offset: c.end_offset,
    tokens: c.tokens,
    content_hash: s.contentHash(c.content),
    fts_doc: ftsDocument(c.content),
    embedding: vecs[i],
    embedding_model: vecs[i] ? emb.model : null,
    embedding_dims: vecs[i] ? emb.dimensions : null,
    created_at: c.created_at,
  }));
  count(s, 'chunk', rows.length, await tx(deps, s, (t) => importChunks(t, rows)));
}

async function entities(deps: Deps, s: ImportState, items: Array<Item<EntityRecord>>): Promise<void> {
  const list = items.map((i) => i.record);
  // The pipeline embeds an entity's name (workers/extract/handler.ts).
  const vecs = await vectors(
    deps,
    s,
    list.map((n) => ({ text: n.name, vector: n.embedding, model: n.embedding_model })),
  );
  const emb = deps.providers.embeddings;
  const rows = list.map((n, i) => ({
    id: s.newId('entity', n.id),
    dataset: n.dataset,
    user_id: n.user_id,
    name: n.name,
    normalized_name: n.normalized_name,
    type: n.type,
    description: n.description,
    fts_doc: ftsDocument(`${n.name} ${n.description}`),
    embedding: vecs[i],
    embedding_model: vecs[i] ? emb.model : null,
    embedding_dims: vecs[i] ? emb.dimensions : null,
    created_at: n.created_at,
    updated_at: n.updated_at,
  }));
  const { inserted, idByKey } = await tx(deps, s, (t) => importEntities(t, rows));
  list.forEach((n) => {
    const stored = idByKey.get(`${n.dataset}|${n.user_id ?? ''}|${n.normalized_name}|${n.type}`);
    if (stored) s.ids.entity.set(n.id, stored);
    s.entityNames.set(n.id, n.name);
  });
  count(s, 'entity', rows.length, inserted);
}

async function memories(deps: Deps, s: ImportState, items: Array<Item<MemoryRecord>>): Promise<void> {
  const list = items.map((i) => i.record);
  const vecs = await vectors(
    deps,
    s,
    list.map((m) => ({ text: m.content, vector: m.embedding, model: m.embedding_model })),
  );
  const emb = deps.providers.embeddings;
  const rows = list.map((m, i) => {
    const { record: _r, id, signals: _s, superseded_by: _b, embedding: _e, key, slot: rawSlot, ...rest } = m;
    const slot = (rawSlot ?? null) as Slot | null;
    return {
      ...rest,
      id: s.newId('memory', id),
      subject_entity_id: m.subject_entity_id ? (s.ids.entity.get(m.subject_entity_id) ?? null) : null,
      fts_doc: ftsDocument(`${m.content} ${slotKeyText(slot)}`),
      key: key ?? null,
      slot,
      slot_keys: slot ? slotKeys(slot) : null,
      embedding: vecs[i],
      embedding_model: vecs[i] ? emb.model : null,
      embedding_dims: vecs[i] ? emb.dimensions : null,
    };
  });
  const { inserted, ids } = await tx(deps, s, async (t) => {
    const r = await importMemories(t, rows);
    const signals = list.flatMap((m, i) => (m.signals && r.inserted.has(rows[i]?.id as string) ? [{ memory_id: rows[i]?.id as string, ...m.signals }] : []));
    await importSignals(t, signals);
    return r;
  });
  list.forEach((m, i) => {
    const stored = ids[i];
    if (!stored) return s.reject(items[i]?.line ?? 0, `memory ${m.id} was neither stored nor found`);
    s.ids.memory.set(m.id, stored);
    if (m.superseded_by && inserted.has(stored)) s.supersededLinks.push({ id: stored, successor: m.superseded_by });
  });
  count(s, 'memory', rows.length, inserted.size);
}

async function edges(deps: Deps, s: ImportState, items: Array<Item<EdgeRecord>>): Promise<void> {
  const rows = resolved(s, items, (g) => {
    const src = s.ids.entity.get(g.source_entity_id);
    const dst = s.ids.entity.get(g.target_entity_id);
    if (!src || !dst) return `edge ${g.id}: an endpoint is not in the file`;
    const text = `${s.entityNames.get(g.source_entity_id) ?? ''} ${g.relation.replace(/_/g, ' ')} ${s.entityNames.get(g.target_entity_id) ?? ''} ${g.description}`;
    return {
      source_id: g.id,
      id: s.newId('edge', g.id),
      source_entity_id: src,
      target_entity_id: dst,
      relation: g.relation,
      description: g.description,
      valid_at: g.valid_at,
      invalid_at: g.invalid_at,
      fts_doc: ftsDocument(text),
      created_at: g.created_at,
      updated_at: g.updated_at,
    };
  });
  const stored = await tx(deps, s, (t) => importEdges(t, rows));
  keepStoredIds(s, 'edge', rows, stored, (r) => `${r.source_entity_id}|${r.target_entity_id}|${r.relation}`);
}

async function relations(deps: Deps, s: ImportState, items: Array<Item<RelationRecord>>): Promise<void> {
  const rows = resolved(s, items, (r) => {
    const from = s.ids.memory.get(r.from_memory_id);
    const to = s.ids.memory.get(r.to_memory_id);
    if (!from || !to) return `relation ${r.id}: a memory is not in the file`;
    return {
      source_id: r.id,
      id: s.newId('relation', r.id),
      from_memory_id: from,
      to_memory_id: to,
      relation: r.relation,
      is_progression: r.is_progression,
      created_at: r.created_at,
    };
  });
  const stored = await tx(deps, s, (t) => importRelations(t, rows));
  keepStoredIds(s, 'relation', rows, stored, (r) => `${r.from_memory_id}|${r.to_memory_id}|${r.relation}`);
}

/**
 * After an insert keyed by a natural key (an edge's or relation's ends and name): each row's source
 * id maps to the id stored under its key (a row that was already there keeps that one's), and the
 * kind's count takes the rows and those inserted.
 */
function keepStoredIds<R extends { source_id: string }>(
  s: ImportState,
  kind: 'edge' | 'relation',
  rows: R[],
  stored: { inserted: number; idByKey: Map<string, string> },
  keyOf: (r: R) => string,
): void {
  for (const r of rows) {
    const id = stored.idByKey.get(keyOf(r));
    if (id) s.ids[kind].set(r.source_id, id);
  }
  count(s, kind, rows.length, stored.inserted);
}

async function memoryEntities(deps: Deps, s: ImportState, items: Array<Item<MemoryEntityRecord>>): Promise<void> {
  const rows = resolved(s, items, (x) => {
    const memory_id = s.ids.memory.get(x.memory_id);
    const entity_id = s.ids.entity.get(x.entity_id);
    return memory_id && entity_id ? { memory_id, entity_id } : `memory_entity ${x.memory_id}/${x.entity_id}: not in the file`;
  });
  count(s, 'memory_entity', rows.length, await tx(deps, s, (t) => importMemoryEntities(t, rows)));
}

async function provenance(deps: Deps, s: ImportState, items: Array<Item<ProvenanceRecord>>): Promise<void> {
  const rows = resolved(s, items, (p) => {
    const object_id = s.ids[p.object_type].get(p.object_id);
    const event_id = s.ids.event.get(p.event_id);
    return object_id && event_id
      ? { object_type: p.object_type, object_id, event_id, created_at: p.created_at }
      : `provenance of ${p.object_type} ${p.object_id}: not in the file`;
  });
  count(s, 'provenance', rows.length, await tx(deps, s, (t) => importProvenance(t, rows, s.runId)));
}

async function workingMemory(deps: Deps, s: ImportState, items: Array<Item<WorkingMemoryRecord>>): Promise<void> {
  const rows = items.map((i) => i.record);
  const taken = new Set(await tx(deps, s, (t) => importWorkingMemory(t, rows)));
  for (const r of rows) if (taken.has(r.user_id)) s.workingMemory.push({ user_id: r.user_id, markdown: r.markdown });
  count(s, 'working_memory', rows.length, taken.size);
}
