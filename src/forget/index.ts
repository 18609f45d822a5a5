import { withTenant, type Tx } from '../db/pool.js';
import {
  clearDescriptions,
  deleteEdges,
  deleteEntities,
  deleteEvents,
  deleteMemories,
  deleteRelations,
  deleteUserRecalls,
  entitiesDescribedBy,
  feedbackEventsQuoting,
  feedbackEventsQuotingMemories,
  liveExtractKeys,
  lockMemory,
  purgeEmbeddingCache,
  purgeLlmCache,
  scopeEvents,
  sessionUserCount,
  staleDescriptions,
  supportedBy,
  withoutProvenance,
  type EventScope,
  type ScopeEvents,
  type ScopeKey,
} from '../db/sql/forget.js';
import { chunkEventId } from '../db/sql/chunk-event.js';
import type { Deps } from '../deps.js';
import { contentHash, ftsDocument } from '../domain/text.js';
import { MemloomError } from '../errors.js';
import { refreshWorkingMemory } from '../memories/working-memory.js';
import { removeQueuedJobs } from './jobs.js';
import { zeroCounts, type ForgetResult, type ForgetScope } from './schema.js';

export { ForgetScope, type ForgetCounts, type ForgetResult } from './schema.js';

interface TxOutcome {
  result: Omit<ForgetResult, 'jobs_removed' | 'working_memory_refreshed'>;
  eventIds: string[];
  deadKeys: string[];
  /** User scopes whose events or memories went: their working memory is refreshed after the commit. */
  users: string[];
  /** Events of the scope itself this transaction found (feedback events quoting them not counted). */
  found: number;
}

/**
 * Events forgotten per transaction: a user with tens of thousands of events is forgotten in many
 * short transactions instead of one that holds the database (PGlite has one session) for minutes.
 */
export const FORGET_BATCH = 200;

/**
 * Forgets one scope of a tenant for good, following provenance, FORGET_BATCH events per
 * transaction: the scope's events, and the `feedback` events that quote what they gave a recall,
 * go with their chunks and vectors and their provenance rows; every memory, entity, edge and
 * relation they supported and nothing else supports goes too (an object supported by events of
 * two batches goes with the second); shared objects keep only their other provenance (see
 * forgetInTx for what is recomputed on them). Each batch is complete on its own, so a forget cut
 * short (crash, shutdown) leaves no half-forgotten event and is finished by calling it again. Then
 * queued jobs for those events are removed and the working memory of every user touched is
 * rebuilt. Idempotent: a second call finds no event and answers `nothing_to_forget: true` with
 * zero counts.
 */
export async function forget(deps: Deps, tenantId: string, scope: ForgetScope): Promise<ForgetResult> {
  const target = scope.chunk_id === undefined ? scopeTarget(scope) : await chunkTarget(deps, tenantId, scope.chunk_id);
  if (!target)
    return {
      nothing_to_forget: true,
      removed: zeroCounts(),
      updated: { memories_reactivated: 0, entity_descriptions_cleared: 0 },
      jobs_removed: 0,
      working_memory_refreshed: [],
    };
  let outcome: TxOutcome | undefined;
  for (let first = true; ; first = false) {
    const batch = await withTenant(deps.db, tenantId, async (tx) => {
      // A session id is the client's name, unique only within its user: alone it must name one scope.
      if (first && target.key === 'session_id' && target.userId === undefined && (await sessionUserCount(tx, target.value)) > 1) {
        throw new MemloomError('SESSION_AMBIGUOUS', 'Several users have a session with this id: give user_id with session_id.', {
          kind: 'input',
          details: { session_id: target.value },
        });
      }
      return forgetInTx(tx, target, first);
    });
    outcome = outcome ? addOutcome(outcome, batch) : batch;
    if (batch.found < FORGET_BATCH) break;
  }
  const jobsRemoved =
    outcome.eventIds.length === 0 ? 0 : await removeQueuedJobs(deps, { tenantId, eventIds: new Set(outcome.eventIds), deadKeys: new Set(outcome.deadKeys) });
  const refreshed = await refreshWorkingMemories(deps, tenantId, outcome.users);
  deps.log.info({ tenantId, scope: target.key, byUser: target.userId !== undefined, ...outcome.result.removed, jobsRemoved }, 'forgot scope');
  return { ...outcome.result, jobs_removed: jobsRemoved, working_memory_refreshed: refreshed };
}

/** A chunk is forgotten with the event it was cut from; no such chunk (or already forgotten): nothing. */
async function chunkTarget(deps: Deps, tenantId: string, chunkId: string): Promise<EventScope | undefined> {
  const eventId = await withTenant(deps.db, tenantId, (tx) => chunkEventId(tx, chunkId));
  return eventId === undefined ? undefined : { key: 'event_id', value: eventId };
}

function scopeTarget(scope: ForgetScope): EventScope {
  const entries = (Object.entries(scope) as Array<[ScopeKey, string | undefined]>).filter((e): e is [ScopeKey, string] => e[1] !== undefined);
  if (scope.session_id !== undefined && scope.user_id !== undefined && entries.length === 2)
    return { key: 'session_id', value: scope.session_id, userId: scope.user_id };
  const first = entries[0];
  if (entries.length !== 1 || !first)
    throw new MemloomError('INPUT_INVALID', 'Give exactly one of event_id, session_id, user_id, dataset (user_id may accompany session_id).', {
      kind: 'input',
    });
  return { key: first[0], value: first[1] };
}

/**
 * The working memory of each scope, rebuilt from what is left, after the forget committed: the
 * API and the file stop serving forgotten words at once instead of at the next scheduled refresh.
 */
async function refreshWorkingMemories(deps: Deps, tenantId: string, users: string[]): Promise<string[]> {
  const done: string[] = [];
  for (const userKey of [...new Set(users)].sort()) {
    await refreshWorkingMemory(deps, tenantId, userKey);
    done.push(userKey);
  }
  return done;
}

async function forgetInTx(tx: Tx, scope: EventScope, first: boolean): Promise<TxOutcome> {
  const events = await scopeEvents(tx, scope, FORGET_BATCH);
  const found = events.ids.length;
  // A forgotten user's questions to recall are that user's data too.
  const recalls = first && scope.key === 'user_id' ? await deleteUserRecalls(tx, scope.value) : 0;
  return { ...(await forgetEventsInTx(tx, events, recalls)), found };
}

function addOutcome(a: TxOutcome, b: TxOutcome): TxOutcome {
  const removed = zeroCounts();
  for (const k of Object.keys(removed) as Array<keyof typeof removed>) removed[k] = a.result.removed[k] + b.result.removed[k];
  return {
    result: {
      nothing_to_forget: a.result.nothing_to_forget && b.result.nothing_to_forget,
      removed,
      updated: {
        memories_reactivated: a.result.updated.memories_reactivated + b.result.updated.memories_reactivated,
        entity_descriptions_cleared: a.result.updated.entity_descriptions_cleared + b.result.updated.entity_descriptions_cleared,
      },
    },
    eventIds: [...a.eventIds, ...b.eventIds],
    deadKeys: [...new Set([...a.deadKeys, ...b.deadKeys])],
    users: [...new Set([...a.users, ...b.users])],
    found: a.found + b.found,
  };
}

/**
 * Forgets these events and what only they support (see forget). Also used by forgetMemory for the
 * feedback events that quote the deleted memory.
 */
async function forgetEventsInTx(tx: Tx, events: ScopeEvents, recalls: number): Promise<Omit<TxOutcome, 'found'>> {
  const removed = zeroCounts();
  const updated = { memories_reactivated: 0, entity_descriptions_cleared: 0 };
  // A feedback event quotes what its recall returned: when that came from forgotten events, the
  // quote goes with them (and so, in turn, does a feedback event quoting it). Found before the
  // user's recalls go, since their feedback rows lead to those events.
  for (let quoting = await feedbackEventsQuoting(tx, events.ids); quoting.ids.length > 0; quoting = await feedbackEventsQuoting(tx, events.ids)) {
    removed.feedback_events += quoting.ids.length;
    mergeScopeEvents(events, quoting);
  }
  removed.recalls = recalls;
  if (events.ids.length === 0) {
    return { result: { nothing_to_forget: removed.recalls === 0, removed, updated }, eventIds: [], deadKeys: [], users: [] };
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
  removed.provenance +=
    relations.provenance + edges.provenance + memories.provenance + memories.relations.provenance + entities.provenance + entities.edges.provenance;
  removed.vectors += memories.vectors + entities.vectors;
  updated.memories_reactivated = memories.reactivated.length;

  // Shared objects that survive: a memory confirmed by other events says the same thing and an
  // edge is the same triplet, so both stay as they are. An entity's description is the one thing
  // written by a single extraction; when it came from the forgotten events only, it goes.
  const stale = await staleDescriptions(tx, described);
  updated.entity_descriptions_cleared = await clearDescriptions(
    tx,
    stale.map((s) => ({ id: s.id, ftsDoc: ftsDocument(s.name) })),
  );

  const hashes = new Set([...ev.chunkHashes, ...[...memories.texts, ...entities.texts].map((t) => contentHash(t))]);
  removed.cached_vectors = await purgeEmbeddingCache(tx, [...hashes]);
  if (events.minReceivedAt) removed.llm_cache = await purgeLlmCache(tx, events.minReceivedAt);

  const live = new Set(await liveExtractKeys(tx, events.extractKeys));
  return {
    result: { nothing_to_forget: false, removed, updated },
    eventIds: events.ids,
    deadKeys: events.extractKeys.filter((k) => !live.has(k)),
    users: [...new Set([...events.users, ...memories.users])],
  };
}

function mergeScopeEvents(into: ScopeEvents, more: ScopeEvents): void {
  into.ids.push(...more.ids);
  into.extractKeys = [...new Set([...into.extractKeys, ...more.extractKeys])];
  const times = [into.minReceivedAt, more.minReceivedAt].filter((t): t is Date => t !== null).map((t) => t.getTime());
  into.minReceivedAt = times.length > 0 ? new Date(Math.min(...times)) : null;
  into.users = [...new Set([...into.users, ...more.users])];
}

export interface ForgetMemoryResult {
  deleted: true;
  id: string;
  removed: { memories: number; relations: number; provenance: number; vectors: number; cached_vectors: number; events: number; feedback_events: number };
  updated: { memories_reactivated: number };
  /** User scopes whose working memory was refreshed at once (see ForgetResult). */
  working_memory_refreshed: string[];
}

/**
 * Forgets one memory (DELETE /v1/memories/:id), not the events behind it: the row and its vector,
 * its provenance links, entity links and relations go; a version it had superseded becomes
 * current again. A `feedback` event whose recall returned the memory quotes its words, so it goes
 * too, with what only it supports (as in forget). The user's working memory is rebuilt after the
 * commit. Throws MEMORY_NOT_FOUND when the tenant has no such memory, so a second call answers 404.
 */
export async function forgetMemory(deps: Deps, tenantId: string, id: string): Promise<ForgetMemoryResult> {
  const result = await withTenant(deps.db, tenantId, async (tx) => {
    if (!(await lockMemory(tx, id))) return undefined;
    const quoting = await forgetEventsInTx(tx, await feedbackEventsQuotingMemories(tx, [id]), 0);
    const m = await deleteMemories(tx, [id]);
    const cached = await purgeEmbeddingCache(
      tx,
      m.texts.map((t) => contentHash(t)),
    );
    const q = quoting.result.removed;
    return {
      deleted: true as const,
      id,
      removed: {
        memories: m.rows + q.memories,
        relations: m.relations.rows + q.relations,
        provenance: m.provenance + m.relations.provenance + q.provenance,
        vectors: m.vectors + q.vectors,
        cached_vectors: cached + q.cached_vectors,
        events: q.events,
        feedback_events: q.events,
      },
      updated: { memories_reactivated: m.reactivated.length + quoting.result.updated.memories_reactivated },
      users: [...new Set([...m.users, ...quoting.users])],
      quoting,
    };
  });
  if (!result) throw new MemloomError('MEMORY_NOT_FOUND', 'No memory with this id.', { kind: 'not_found', details: { id } });
  const { users, quoting, ...answer } = result;
  if (quoting.eventIds.length > 0) await removeQueuedJobs(deps, { tenantId, eventIds: new Set(quoting.eventIds), deadKeys: new Set(quoting.deadKeys) });
  const refreshed = await refreshWorkingMemories(deps, tenantId, users);
  deps.log.info({ tenantId, memoryId: id, reactivated: answer.updated.memories_reactivated, feedbackEvents: answer.removed.feedback_events }, 'forgot memory');
  return { ...answer, working_memory_refreshed: refreshed };
}
