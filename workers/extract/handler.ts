import type { Job } from 'bullmq';
import { withTenant, type Queryable } from '../../src/db/pool.js';
import { usersOfExtractKey } from '../../src/db/sql/briefing.js';
import { knownEntities } from '../../src/db/sql/entities.js';
import {
  claimForExtraction,
  claimSmallKeys,
  hasPendingExtraction,
  markExtracted,
  quietState,
  releaseExtraction,
  renewClaim,
  type EventToExtract,
  type PendingState,
} from '../../src/db/sql/extract-events.js';
import { finishRun, startPieceRun, startRun } from '../../src/db/sql/runs.js';
import type { Deps } from '../../src/deps.js';
import { yieldToEventLoop } from '../../src/event-loop.js';
import type { Logger } from '../../src/logger.js';
import { defineStage } from '../../src/queue/stage.js';
import { briefingJobsAfterChange } from '../briefing/after-change.js';
import { askProvidersGrouped, type Asked } from './ask.js';
import { byKey, SMALL_KEY_EVENTS } from './coalesce.js';
import { extractKeyOf } from '../../src/domain/routing.js';
import { splitPass } from './pieces.js';
import { ExtractInput, debounceWait, extractAfter, extractBatch, extractKey, extractLeaseMs } from './schema.js';
import { writeExtraction, type WriteCounts } from './write.js';

/**
 * Session extraction: all not-yet-extracted events of one key in one pass → memory units,
 * entities and triplets → reconciled against existing memory (rules, or one batched model decision
 * per pass with a paid LLM). Provider calls happen outside transactions; every answer is cached
 * before it is applied, so a replay after a crash pays nothing.
 * The pass claims its events first, so concurrent jobs of one key never send the same messages
 * twice; a failed pass gives them back, a dead one's claim expires (extractLeaseMs).
 */
export const extract = defineStage({
  name: 'extract',
  input: ExtractInput,
  key: extractKey,
  // The offline extractor's thread loads for about a second; start it while triage and embedding run.
  warm: { on: ['triage', 'chunk', 'embed'], run: (deps) => deps.providers.llm.warm?.() },
  // Offline, a pass alternates between the extractor's thread and the database (its SQL): with
  // 3 passes in flight one of them is almost always ready for each (2 left the database idle a
  // quarter of a burst's extraction phase, measured when PGlite ran on the main thread). A model provider keeps 2 per process.
  concurrency: (config) => (config.LLM_PROVIDER === 'heuristic' ? 3 : 2),
  async handle(
    { tenantId, extractKey: key },
    { deps, job, log },
  ): Promise<{ events: number; waitMs?: number; after?: AfterPass; coalesced?: string[] } & Partial<WriteCounts>> {
    const claimed = await withTenant(deps.db, tenantId, async (tx) => {
      const waitMs = debounceWait(deps.config, await quietState(tx, key));
      if (waitMs > 0) return { waitMs };
      const own = await claimForExtraction(tx, key, extractBatch(deps.config), extractLeaseMs(deps.config));
      // With a paid model, the waiting events of the same user's small keys share this pass's call (coalesce.ts).
      const events = [...own];
      if (deps.providers.llm.paid && own.length > 0 && !key.startsWith('doc:'))
        for (const group of byScope(own)) {
          const first = group[0] as EventToExtract;
          const room = extractBatch(deps.config) - events.length;
          const releasedAt = group.find((e) => e.released_at)?.released_at ?? null;
          events.push(...(await claimSmallKeys(tx, { dataset: first.dataset, userId: first.user_id }, key, room, SMALL_KEY_EVENTS, releasedAt)));
        }
      // Names offered to the extractor come from each group's own scope (never another user's graph).
      const known = new Map<string, Array<{ name: string; type: string }>>();
      for (const group of byScope(events)) {
        const first = group[0] as EventToExtract;
        known.set(scopeKey(first), await knownEntities(tx, { dataset: first.dataset, userId: first.user_id }, 100));
      }
      return { events, known };
    });
    if (claimed.waitMs !== undefined) return { events: 0, waitMs: claimed.waitMs };
    const { events, known } = claimed;
    if (events.length === 0) return { events: 0 };
    try {
      // One pass per user scope: a session id two users share (or two datasets) never mixes
      // their statements, and each unit is written in the scope of the events it came from.
      const passes: Array<{ events: number; after: AfterPass } & WriteCounts> = [];
      for (const group of byScope(events)) {
        const groups = byKey(group, key);
        const asked = await deps.metrics.stageCpu.part('provider', () =>
          askProvidersGrouped(deps, tenantId, groups, known.get(scopeKey(group[0] as EventToExtract)) ?? [], log),
        );
        for (const [k, g] of groups.entries()) passes.push(await writeClaimed(deps, tenantId, key, g, asked[k] as Asked, job, log));
      }
      // What follows is read by the last pass, after every group was written.
      const last = passes[passes.length - 1] as { after: AfterPass };
      const coalesced = [...new Set(events.map(extractKeyOf))].filter((k) => k !== key);
      return { ...passes.reduce(sumCounts, NO_WRITES), events: events.length, after: last.after, ...(coalesced.length > 0 ? { coalesced } : {}) };
    } catch (err) {
      await withTenant(deps.db, tenantId, (tx) =>
        releaseExtraction(
          tx,
          events.map((e) => e.id),
        ),
      ).catch((releaseErr: unknown) => log.warn({ err: releaseErr }, 'extraction claim not released; it expires'));
      throw err;
    }
  },
  // Events that arrived while this job ran (its debounce key was taken) get a follow-up pass;
  // events under another pass's claim get one when that claim would expire (its job may be dead).
  async next({ tenantId, extractKey: key }, result, { deps }) {
    // The key is not quiet yet: look again when it may be. Follow-ups go through the key's debounce
    // identity too: while this pass runs BullMQ keeps the latest one and queues it when the pass
    // finishes, and a pass already waiting for the key absorbs it (extractAfter).
    if (result.waitMs !== undefined) return [extractAfter(tenantId, key, result.waitMs)];
    // A pass read this in its write transaction; a job that claimed nothing reads it now.
    const { pending, claimed, claimLeftMs, users } = result.after ?? (await withTenant(deps.db, tenantId, (tx) => afterPass(tx, key, deps.config)));
    // The keys whose events this pass took (coalesce.ts): their own jobs, which may wait out this
    // pass's claim, run now instead, find their events extracted and refresh their users' working memory.
    const others = (result.coalesced ?? []).map((k) => extractAfter(tenantId, k, 0));
    // Once the key is fully extracted, its users' working memory is refreshed (debounced per user, bounded wait).
    if (pending === 0 && claimed === 0) return [...(await briefingJobsAfterChange(deps, tenantId, users)), ...others];
    const delay = pending === 0 ? Math.max(0, claimLeftMs) + 1000 : pending >= extractBatch(deps.config) ? 0 : deps.config.EXTRACT_DEBOUNCE_MS;
    return [extractAfter(tenantId, key, delay), ...others];
  },
});

export { askProviders } from './ask.js';

/** What follows a pass (next()): the key's events still waiting or claimed, and its users once it has none. */
interface AfterPass extends PendingState {
  users: string[];
}

async function afterPass(tx: Queryable, key: string, config: Deps['config']): Promise<AfterPass> {
  const state = await hasPendingExtraction(tx, key, extractLeaseMs(config));
  return { ...state, users: state.pending === 0 && state.claimed === 0 ? await usersOfExtractKey(tx, key) : [] };
}

/**
 * One pass over claimed events: providers, then the writes in pieces of bounded size, each in its
 * own transaction (pieces.ts); the last also marks the events done and reads what follows. A
 * piece's run row carries its content's key, so a pass resumed after a crash between pieces skips
 * the pieces already committed. A pass within the limits is one piece, as before.
 */
async function writeClaimed(
  deps: Deps,
  tenantId: string,
  key: string,
  events: EventToExtract[],
  { prepared, vectors, scope, decisions }: Asked,
  job: Job,
  log: Logger,
): Promise<{ events: number; after: AfterPass } & WriteCounts> {
  const embedder = deps.providers.embeddings;
  const ids = events.map((e) => e.id);
  const pieces = splitPass(prepared, vectors, decisions);
  const counts: WriteCounts = { entities: 0, memories_added: 0, memories_updated: 0, memories_confirmed: 0, memories_challenged: 0, edges: 0 };
  let after: AfterPass | undefined;
  for (const [k, piece] of pieces.entries()) {
    const last = k === pieces.length - 1;
    if (k > 0) await yieldToEventLoop();
    const written = await deps.metrics.stageCpu.part('write', () =>
      withTenant(deps.db, tenantId, async (tx) => {
        const run = { stage: 'extract', jobId: job.id, provider: deps.config.LLM_PROVIDER, model: deps.providers.llm.model };
        const runId = pieces.length === 1 ? await startRun(tx, run) : await startPieceRun(tx, { ...run, pieceKey: piece.key });
        const c =
          runId === undefined
            ? undefined
            : await writeExtraction(tx, piece.prepared, piece.vectors, scope, embedder, runId, deps.config.TTL_DEFAULTS, piece.decisions);
        if (last) await markExtracted(tx, ids);
        else await renewClaim(tx, ids);
        if (runId !== undefined) await finishRun(tx, runId, { events: events.length, ...(pieces.length > 1 ? { piece: k, pieces: pieces.length } : {}), ...c });
        if (last) after = await afterPass(tx, key, deps.config);
        return c;
      }),
    );
    if (written) for (const name of Object.keys(counts) as Array<keyof WriteCounts>) counts[name] += written[name];
  }
  log.debug({ events: events.length, pieces: pieces.length, ...counts }, 'extracted');
  return { events: events.length, after: after as AfterPass, ...counts };
}

const NO_WRITES: WriteCounts = { entities: 0, memories_added: 0, memories_updated: 0, memories_confirmed: 0, memories_challenged: 0, edges: 0 };

function sumCounts(a: WriteCounts, b: WriteCounts): WriteCounts {
  const out = { ...NO_WRITES };
  for (const k of Object.keys(NO_WRITES) as Array<keyof WriteCounts>) out[k] = a[k] + b[k];
  return out;
}

const scopeKey = (e: EventToExtract) => `${e.dataset}\u0000${e.user_id ?? ''}`;

/** The claimed events by user scope (dataset and user), in their order. */
function byScope(events: EventToExtract[]): EventToExtract[][] {
  const groups = new Map<string, EventToExtract[]>();
  for (const e of events) {
    const k = scopeKey(e);
    groups.set(k, [...(groups.get(k) ?? []), e]);
  }
  return [...groups.values()];
}
