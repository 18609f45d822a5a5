import { withTenant } from '../../src/db/pool.js';
import { applyDreamPlan } from '../../src/db/sql/dream-apply.js';
import {
  dreamCursors,
  dreamRows,
  linkedPairs,
  markDreamed,
  newMemoriesAfter,
  refreshCrystals,
  saveCursor,
  type Cursor,
  type DreamRow,
} from '../../src/db/sql/dream.js';
import { nearestMemoriesBatch } from '../../src/db/sql/memories-write.js';
import { finishRun, startRun } from '../../src/db/sql/runs.js';
import type { Deps } from '../../src/deps.js';
import { CRYSTAL_RULE, linkedPairKey, planDream, type DreamMemory } from '../../src/domain/dream.js';
import { thresholdsFor } from '../../src/domain/reconcile.js';
import { reserveTenantTask } from '../../src/providers/gate.js';
import { defineStage } from '../../src/queue/stage.js';
import { briefingJobsAfterChange } from '../briefing/after-change.js';
import { DREAM_NEIGHBOURS, DREAM_SETTLE_MS, DreamInput, dreamKey } from './schema.js';

const toDreamMemory = (r: DreamRow): DreamMemory => ({
  id: r.id,
  kind: r.kind,
  content: r.content,
  subjectId: r.subject_entity_id,
  vector: r.vector,
  confidence: r.confidence,
  importance: r.importance,
  isCrystal: r.is_crystal,
  validFrom: r.valid_from,
  sources: r.sources,
  evidence: r.evidence,
});

export interface DreamResult {
  /** New memories looked at this run. */
  memories: number;
  merged: number;
  links: number;
  crystals: number;
  stale: number;
  /** Transactions that wrote (one per batch of new memories, one per batch of the crystal pass). */
  batches: number;
  /** The run stopped at DREAM_RUN_MAX or DREAM_MAX_LINKS with new memories left. */
  backlog: boolean;
}

interface Batch {
  fresh: Array<{ id: string; cursor: Cursor }>;
  rows: DreamRow[];
  neighbours: Map<string, Set<string>>;
  linked: Set<string>;
}

/**
 * Reads one batch: the next new memories after the cursor, their nearest neighbours in the scope
 * (DREAM_NEIGHBOURS each, found by the same search extraction uses: exact on a small scope, HNSW
 * on a large one), and what a plan needs of all of them. Three short read transactions rather
 * than one, so the session is free between them (the plan needs no single snapshot: the write
 * re-checks every memory it touches).
 */
async function readBatch(deps: Deps, tenantId: string, userId: string, cursor: Cursor | null): Promise<Batch | undefined> {
  const { model, dimensions: dims } = deps.providers.embeddings;
  const read = await withTenant(deps.db, tenantId, async (tx) => {
    const fresh = await newMemoriesAfter(tx, userId, cursor, deps.config.DREAM_BATCH);
    return {
      fresh,
      rows:
        fresh.length === 0
          ? []
          : await dreamRows(
              tx,
              fresh.map((f) => f.id),
              { model, dims },
            ),
    };
  });
  if (read.fresh.length === 0) return undefined;
  const queried = read.rows.filter((r) => r.vector !== null);
  const near = await withTenant(deps.db, tenantId, (tx) =>
    nearestMemoriesBatch(
      tx,
      { userId: userId === '' ? null : userId },
      queried.map((r) => ({ vector: r.vector as number[], hash: r.content_hash })),
      { model, dims },
      DREAM_NEIGHBOURS,
    ),
  );
  const neighbours = new Map<string, Set<string>>();
  const edge = (a: string, b: string) => {
    if (a === b) return;
    neighbours.set(a, (neighbours.get(a) ?? new Set()).add(b));
    neighbours.set(b, (neighbours.get(b) ?? new Set()).add(a));
  };
  queried.forEach((r, i) => near[i]?.forEach((n) => edge(r.id, n.id)));
  const known = new Set(read.rows.map((r) => r.id));
  return withTenant(deps.db, tenantId, async (tx) => {
    const extra = await dreamRows(
      tx,
      [...neighbours.keys()].filter((id) => !known.has(id)),
      { model, dims },
    );
    const all = [...read.rows, ...extra];
    const pairs = await linkedPairs(
      tx,
      all.map((r) => r.id),
    );
    return { fresh: read.fresh, rows: all, neighbours, linked: new Set(pairs.map((p) => linkedPairKey(p.a, p.b))) };
  });
}

/**
 * Auto-dream of one user scope (stage 5, workers/README.md), no LLM: merge near-duplicates, link
 * `enriches` / `challenges`, flag crystals. Bounded in time and in what it holds: it works through
 * the memories recorded since its cursor in batches of DREAM_BATCH, comparing each only with its
 * nearest neighbours (src/domain/dream.ts plans over those pairs), each batch read in one short
 * transaction and written in another with set-based statements (src/db/sql/dream-apply.ts) that
 * also moves the cursor; a run stops after DREAM_RUN_MAX memories or DREAM_MAX_LINKS links and the
 * next one resumes there. Then a crystal pass over memories changed since its own cursor (new
 * evidence from merges or extraction), in batches too. So a run's cost follows what is new, never
 * the square of all memories. The plan is a fixed point: a replay or a second dream in a row
 * changes no memory, relation or provenance row.
 */
export const dream = defineStage({
  name: 'dream',
  input: DreamInput,
  key: dreamKey,
  concurrency: 1,
  async handle({ tenantId, userId, trigger }, { deps, job, log }): Promise<DreamResult> {
    // guardrail: tenant task cap — at most TENANT_TASKS_PER_HOUR consolidations per tenant; over it the job waits.
    await reserveTenantTask(deps, tenantId);
    const { DREAM_BATCH, DREAM_RUN_MAX, DREAM_MAX_LINKS } = deps.config;
    const thresholds = thresholdsFor(deps.providers.embeddings.model);
    // PGlite runs one transaction at a time: a cursor never overtakes a transaction still open.
    const settleMs = deps.embedded ? 0 : DREAM_SETTLE_MS;
    const done: DreamResult = { memories: 0, merged: 0, links: 0, crystals: 0, stale: 0, batches: 0, backlog: false };
    const cursors = await withTenant(deps.db, tenantId, (tx) => dreamCursors(tx, userId));
    let runId: string | undefined;
    const run = async (tx: Parameters<typeof startRun>[0]) =>
      (runId ??= await startRun(tx, { stage: 'dream', jobId: job.id, model: deps.providers.embeddings.model }));

    let cursor = cursors.dream;
    for (;;) {
      if (done.memories >= DREAM_RUN_MAX || done.links >= DREAM_MAX_LINKS) {
        done.backlog = true;
        break;
      }
      const batch = await readBatch(deps, tenantId, userId, cursor);
      if (!batch) break;
      // Crystals come from the crystal pass below, which sees every memory with new evidence.
      const plan = { ...planDream(batch.rows.map(toDreamMemory), batch.linked, thresholds, CRYSTAL_RULE, batch.neighbours), crystals: [] };
      const last = (batch.fresh[batch.fresh.length - 1] as { cursor: Cursor }).cursor;
      const applied = await withTenant(deps.db, tenantId, async (tx) => {
        const a = plan.merges.length + plan.links.length > 0 ? await applyDreamPlan(tx, plan, await run(tx)) : undefined;
        await saveCursor(tx, userId, 'dream', last, settleMs);
        return a;
      });
      cursor = last;
      done.memories += batch.fresh.length;
      done.batches++;
      if (applied) {
        done.merged += applied.merged;
        done.links += applied.links;
        done.stale += applied.stale;
      }
      if (batch.fresh.length < DREAM_BATCH) break;
    }

    let crystalCursor = cursors.crystal;
    for (let looked = 0; looked < DREAM_RUN_MAX; ) {
      const c = await withTenant(deps.db, tenantId, async (tx) => {
        const r = await refreshCrystals(tx, userId, crystalCursor, DREAM_BATCH * 4, CRYSTAL_RULE);
        if (r.last) await saveCursor(tx, userId, 'crystal', r.last, settleMs);
        return r;
      });
      looked += c.looked;
      done.crystals += c.changed;
      if (c.changed > 0) done.batches++;
      // Flags it changed moved their rows past the cursor: the next run looks at them once more and changes nothing.
      if (!c.last || c.looked < DREAM_BATCH * 4) break;
      crystalCursor = c.last;
    }

    await withTenant(deps.db, tenantId, async (tx) => {
      const { backlog, ...stats } = done;
      if (runId) await finishRun(tx, runId, stats);
      await markDreamed(tx, userId, { ...stats, backlog: String(backlog), trigger }, backlog);
    });
    if (done.merged + done.links + done.crystals > 0 || done.backlog) log.info({ ...done, trigger }, 'dreamed');
    return done;
  },
  // The digest may mention merged memories: refresh it (debounced, so a burst of dreams refreshes once).
  next: ({ tenantId, userId }, _result, { deps }) => briefingJobsAfterChange(deps, tenantId, [userId]),
});
