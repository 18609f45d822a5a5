import { withTenant } from '../../src/db/pool.js';
import { lastBriefingTimes } from '../../src/db/sql/briefing.js';
import type { Deps } from '../../src/deps.js';
import type { NextJob } from '../../src/queue/stage.js';
import { briefingJob } from './schema.js';

/** The working-memory refreshes that follow a settled change of these users (quiet period and max wait: briefingJob). */
export async function briefingJobsAfterChange(deps: Pick<Deps, 'db' | 'config'>, tenantId: string, userKeys: string[]): Promise<NextJob[]> {
  const users = [...new Set(userKeys)];
  if (users.length === 0) return [];
  const last = await withTenant(deps.db, tenantId, (tx) => lastBriefingTimes(tx, users));
  const now = new Date();
  return users.map((u) => briefingJob(deps.config, tenantId, u, last.get(u) ?? null, now));
}
