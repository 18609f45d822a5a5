import { withTenant, type Tx } from '../db/pool.js';
import {
  clearDescriptions, deleteEdges, deleteEntities, deleteEvents, deleteMemories, deleteRelations, deleteUserRecalls,
  entitiesDescribedBy, feedbackEventsQuoting, liveExtractKeys, lockMemory, purgeEmbeddingCache, purgeLlmCache, scopeEvents, staleDescriptions,
  supportedBy, withoutProvenance, type ScopeEvents, type ScopeKey,
} from '../db/sql/forget.js';
import type { Deps } from '../deps.js';
import { contentHash, ftsDocument } from '../domain/text.js';
import { MemloomError } from '../errors.js';
import { removeQueuedJobs } from './jobs.js';
import { zeroCounts, type ForgetResult, type ForgetScope } from './schema.js';

export { ForgetScope, type ForgetCounts, type ForgetResult } from './schema.js';

interface TxOutcome {
  result: Omit<ForgetResult, 'jobs_removed'>;
  eventIds: string[];
  deadKeys: string[];
}

/**
 * Forgets one scope of a tenant for good, following provenance, in ONE transaction: the scope's
 * events, and the `feedback` events that quote what they gave a recall, go with their chunks and
 * vectors and their provenance rows; every memory, entity, edge
 * and relation they supported and nothing else supports goes too; shared objects keep only their
 * other provenance (see forgetInTx for what is recomputed on them). Then, after the commit,
 * queued jobs for those events are removed. Idempotent: a second call finds no event and answers
 * `nothing_to_forget: true` with zero counts.
 */
export async function forget(deps: Deps, tenantId: string, scope: ForgetScope): Promise<ForgetResult> {
  const [key, value] = scopeEntry(scope);
  const outcome = await withTenant(deps.db, tenantId, (tx) => forgetInTx(tx, key, value));
  const jobsRemoved = outcome.eventIds.length === 0
    ? 0
    : await removeQueuedJobs(deps, { tenantId, eventIds: new Set(outcome.eventIds), deadKeys: new Set(outcome.deadKeys) });
  deps.log.info({ tenantId, scope: key, ...outcome.result.removed, jobsRemoved }, 'forgot scope');
  return { ...outcome.result, jobs_removed: jobsRemoved };
}

function scopeEntry(scope: ForgetScope): [ScopeKey, string] {
  const entries = (Object.entries(scope) as Array<[ScopeKey, string | undefined]>).filter((e): e is [ScopeKey, string] => e[1] !== undefined);
  const first = entries[0];
  if (entries.length !== 1 || !first) throw new MemloomError('INPUT_INVALID', 'Give exactly one of event_id, session_id, user_id, dataset.', { kind: 'input' });
  return first;
}

async function forgetInTx(tx: Tx, key: ScopeKey, value: string): Promise<TxOutcome> {
  const removed = zeroCounts();
  const updated = { memories_reactivated: 0, entity_descriptions_cleared: 0 };
  const events = await scopeEvents(tx, key, value);
  // A feedback event quotes what its recall returned: when that came from forgotten events, the
  // quote goes with them (and so, in turn, does a feedback event quoting it). Found before the
  // user's recalls go, since their feedback rows lead to those events.
  for (let quoting = await feedbackEventsQuoting(tx, events.ids); quoting.ids.length > 0; quoting = await feedbackEventsQuoting(tx, events.ids)) {
    removed.feedback_events += quoting.ids.length;
    mergeScopeEvents(events, quoting);
  }
  // A forgotten user's questions to recall are that user's data too.
  if (key === 'user_id') removed.recalls = await deleteUserRecalls(tx, value);
  if (events.ids.length === 0) {
    return { result: { nothing_to_forget: removed.recalls === 0, removed, updated }, eventIds: [], deadKeys: [] };
  }

  // Candidates are computed before the delete: only objects these events supported can be orphaned by it.
  const { objects, provenanceRows } = await supportedBy(tx, events.ids);
  const described = await entitiesDescribedBy(tx, events.ids);
  const ev = await deleteEvents(tx, events.ids);
  Object.assign(removed, { events: ev.events, chunks: ev.chunks, vectors: ev.vectors, provenance: provenanceRows });

  // Relations and edges first: one whose ends survive still goes when nothing supports it any more.
  const relations = await deleteRelations(tx, await withoutProvenance(tx, 'relation', objects.relation));
  const edges = await deleteEdges(tx, await withoutProvenance(tx, 'edge', objects.edge));
  const memories = await deleteMemories(tx, await withoutProvenance(tx, 'memory', objects.memory));
  const entities = await deleteEntities(tx, await withoutProvenance(tx, 'entity', objects.entity));
  removed.relations = relations.rows + memories.relations.rows;
  removed.edges = edges.rows + entities.edges.rows;
  removed.memories = memories.rows;
  removed.entities = entities.rows;
  removed.provenance += relations.provenance + edges.provenance + memories.provenance + memories.relations.provenance + entities.provenance + entities.edges.provenance;
  removed.vectors += memories.vectors + entities.vectors;
  updated.memories_reactivated = memories.reactivated.length;

  // Shared objects that survive: a memory confirmed by other events says the same thing and an
  // edge is the same triplet, so both stay as they are. An entity's description is the one thing
  // written by a single extraction; when it came from the forgotten events only, it goes.
  const stale = await staleDescriptions(tx, described);
  updated.entity_descriptions_cleared = await clearDescriptions(tx, stale.map((s) => ({ id: s.id, ftsDoc: ftsDocument(s.name) })));

  const hashes = new Set([...ev.chunkHashes, ...[...memories.texts, ...entities.texts].map((t) => contentHash(t))]);
  removed.cached_vectors = await purgeEmbeddingCache(tx, [...hashes]);
  if (events.minReceivedAt) removed.llm_cache = await purgeLlmCache(tx, events.minReceivedAt);

  const live = new Set(await liveExtractKeys(tx, events.extractKeys));
  return {
    result: { nothing_to_forget: false, removed, updated },
    eventIds: events.ids,
    deadKeys: events.extractKeys.filter((k) => !live.has(k)),
  };
}

function mergeScopeEvents(into: ScopeEvents, more: ScopeEvents): void {
  into.ids.push(...more.ids);
  into.extractKeys = [...new Set([...into.extractKeys, ...more.extractKeys])];
  const times = [into.minReceivedAt, more.minReceivedAt].filter((t): t is Date => t !== null).map((t) => t.getTime());
  into.minReceivedAt = times.length > 0 ? new Date(Math.min(...times)) : null;
}

export interface ForgetMemoryResult {
  deleted: true;
  id: string;
  removed: { memories: number; relations: number; provenance: number; vectors: number; cached_vectors: number };
  updated: { memories_reactivated: number };
}

/**
 * Forgets one memory (DELETE /v1/memories/:id), not the events behind it: the row and its vector,
 * its provenance links, entity links and relations go; a version it had superseded becomes
 * current again. Throws MEMORY_NOT_FOUND when the tenant has no such memory, so a second call
 * answers 404.
 */
export async function forgetMemory(deps: Deps, tenantId: string, id: string): Promise<ForgetMemoryResult> {
  const result = await withTenant(deps.db, tenantId, async (tx) => {
    if (!(await lockMemory(tx, id))) return undefined;
    const m = await deleteMemories(tx, [id]);
    const cached = await purgeEmbeddingCache(tx, m.texts.map((t) => contentHash(t)));
    return {
      deleted: true as const,
      id,
      removed: { memories: m.rows, relations: m.relations.rows, provenance: m.provenance + m.relations.provenance, vectors: m.vectors, cached_vectors: cached },
      updated: { memories_reactivated: m.reactivated.length },
    };
  });
  if (!result) throw new MemloomError('MEMORY_NOT_FOUND', 'No memory with this id.', { kind: 'not_found', details: { id } });
  deps.log.info({ tenantId, memoryId: id, reactivated: result.updated.memories_reactivated }, 'forgot memory');
  return result;
}
