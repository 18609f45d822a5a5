import { withTenant } from '../../src/db/pool.js';
import { applyDreamPlan, type DreamApplied } from '../../src/db/sql/dream-apply.js';
import { dreamScope, linkedPairs, markDreamed, type DreamRow } from '../../src/db/sql/dream.js';
import { finishRun, startRun } from '../../src/db/sql/runs.js';
import { isEmptyPlan, linkedPairKey, planDream, type DreamMemory } from '../../src/domain/dream.js';
import { thresholdsFor } from '../../src/domain/reconcile.js';
import { reserveTenantTask } from '../../src/providers/gate.js';
import { defineStage } from '../../src/queue/stage.js';
import { briefingJob } from '../briefing/schema.js';
import { DREAM_MAX_MEMORIES, DreamInput, dreamKey } from './schema.js';

const toDreamMemory = (r: DreamRow): DreamMemory => ({
  id: r.id, kind: r.kind, content: r.content, subjectId: r.subject_entity_id, vector: r.vector, confidence: r.confidence,
  importance: r.importance, isCrystal: r.is_crystal, validFrom: r.valid_from, sources: r.sources, evidence: r.evidence,
});

/**
 * Auto-dream of one user scope (DESIGN §3 stage 5), no LLM: merge near-duplicates, link
 * `enriches` / `challenges`, flag crystals — planned by the pure src/domain/dream.ts, applied in one
 * transaction that re-checks every memory it touches. The plan is a fixed point, so a replay or a
 * second dream in a row changes no memory, relation or provenance row (only user_state's
 * last_dream_at moves, the baseline of the next triggers).
 */
export const dream = defineStage({
  name: 'dream',
  input: DreamInput,
  key: dreamKey,
  concurrency: 1,
  async handle({ tenantId, userId, trigger }, { deps, job, log }) {
    // guardrail: tenant task cap — at most TENANT_TASKS_PER_HOUR consolidations per tenant; over it the job waits.
    await reserveTenantTask(deps, tenantId);
    const embedder = deps.providers.embeddings;
    const { rows, linked } = await withTenant(deps.db, tenantId, async (tx) => {
      const scope = await dreamScope(tx, userId, { model: embedder.model, dims: embedder.dimensions }, DREAM_MAX_MEMORIES);
      const pairs = await linkedPairs(tx, scope.map((r) => r.id));
      return { rows: scope, linked: new Set(pairs.map((p) => linkedPairKey(p.a, p.b))) };
    });
    const plan = planDream(rows.map(toDreamMemory), linked, thresholdsFor(embedder.model));
    const applied = await withTenant(deps.db, tenantId, async (tx) => {
      let done: DreamApplied = { merged: 0, links: 0, crystals: 0, stale: 0 };
      if (!isEmptyPlan(plan)) {
        const runId = await startRun(tx, { stage: 'dream', jobId: job.id, model: embedder.model });
        done = await applyDreamPlan(tx, plan, runId);
        await finishRun(tx, runId, { memories: rows.length, ...done });
      }
      await markDreamed(tx, userId, { memories: rows.length, ...done, trigger });
      return done;
    });
    if (!isEmptyPlan(plan)) log.info({ memories: rows.length, ...applied, trigger }, 'dreamed');
    return { memories: rows.length, ...applied };
  },
  // The digest may mention merged memories: refresh it (debounced, so a burst of dreams refreshes once).
  next: ({ tenantId, userId }, _result, { deps }) => [briefingJob(deps.config, tenantId, userId)],
});
