import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import { markDeadLettersRetried } from '../db/sql/dead-letters-retried.js';
import { failJobEvents, restoreJobEvents } from '../db/sql/failed-events.js';
import type { QueueName } from './names.js';

export interface RetryResult {
  /** Jobs moved back to waiting, per queue. */
  retried: Partial<Record<QueueName, number>>;
  total: number;
  /** dead_letters rows marked `retried_at`. */
  dead_letters_marked: number;
  /** `failed` events of those jobs back to the status their stage takes. */
  events_restored: number;
}

const PAGE = 1000;

/**
 * Moves one tenant's failed jobs of these queues back to waiting (each with fresh attempts), their
 * `failed` events back to the status the stage takes, and marks their dead letters retried. Jobs without a tenant (scheduled maintenance) belong to
 * `default`, as their dead letters do. A job that left the failed state meanwhile is skipped.
 */
export async function retryFailedJobs(deps: Deps, tenantId: string, queues: readonly QueueName[]): Promise<RetryResult> {
  const result: RetryResult = { retried: {}, total: 0, dead_letters_marked: 0, events_restored: 0 };
  for (const name of queues) {
    const queue = deps.queues.get(name);
    // Collect first: retrying while paging would shift the failed list under the pages.
    const mine = [];
    for (let start = 0; ; start += PAGE) {
      const page = await queue.getJobs(['failed'], start, start + PAGE - 1, true);
      mine.push(...page.filter((job) => job && (typeof job.data?.tenantId === 'string' ? job.data.tenantId : 'default') === tenantId));
      if (page.length < PAGE) break;
    }
    const retried: string[] = [];
    for (const job of mine) {
      // Events first: the job may run the moment it is back, and must find them waiting for it.
      const restored = await withTenant(deps.db, tenantId, (tx) => restoreJobEvents(tx, name, job.data));
      try {
        await job.retry('failed');
        retried.push(String(job.id));
        result.events_restored += restored;
      } catch (err) {
        deps.log.warn({ err, queue: name, jobId: job.id }, 'job not retried (no longer failed)');
        if (restored > 0) await withTenant(deps.db, tenantId, (tx) => failJobEvents(tx, name, job.data, job.failedReason ?? 'job failed'));
      }
    }
    if (retried.length === 0) continue;
    result.retried[name] = retried.length;
    result.total += retried.length;
    result.dead_letters_marked += await withTenant(deps.db, tenantId, (tx) => markDeadLettersRetried(tx, name, retried));
  }
  return result;
}
