import { listTenants, withTenant } from '../../src/db/pool.js';
import { dreamScopeStats } from '../../src/db/sql/dream.js';
import type { Deps } from '../../src/deps.js';
import { dreamTrigger } from '../../src/domain/dream.js';
import { enqueueAll } from '../../src/queue/enqueue.js';
import type { NextJob } from '../../src/queue/stage.js';
import { DreamInput, dreamJob, dreamKey } from '../dream/schema.js';

/**
 * The `dream-triggers` task: for every user scope with memories recorded since its last dream,
 * enqueue a dream when the first of its triggers fires — a backlog the last run left, DREAM_SESSIONS
 * new sessions, DREAM_MEMORIES new memories, or DREAM_INTERVAL_MS since the last dream. Dream jobs
 * are deduplicated per (tenant, user) while one is pending, and capped per tenant by the gate
 * when they run.
 */
export async function enqueueDueDreams(deps: Deps, now = new Date()): Promise<{ enqueued: number }> {
  const policy = { intervalMs: deps.config.DREAM_INTERVAL_MS, sessions: deps.config.DREAM_SESSIONS, memories: deps.config.DREAM_MEMORIES };
  const jobs: NextJob[] = [];
  for (const tenantId of await listTenants(deps.db)) {
    const scopes = await withTenant(deps.db, tenantId, (tx) => dreamScopeStats(tx));
    for (const s of scopes) {
      const trigger = dreamTrigger(
        { lastDreamAt: s.last_dream_at, firstMemoryAt: s.first_at, newSessions: s.new_sessions, newMemories: s.new_memories, backlog: s.backlog },
        policy,
        now,
      );
      if (trigger) jobs.push(dreamJob(tenantId, s.user_id, trigger));
    }
  }
  await enqueueAll(
    deps.queues,
    jobs.map((j) => ({ ...j, jobId: dreamKey(DreamInput.parse(j.input)) })),
  );
  return { enqueued: jobs.length };
}
