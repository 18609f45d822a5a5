import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import { markDeadLettersRetried } from '../db/sql/dead-letters-retried.js';
import { failJobEvents, restoreJobEvents } from '../db/sql/failed-events.js';
import type { Job } from 'bullmq';
import { findDeadLetter } from '../db/sql/dead-letters.js';
import { MemloomError } from '../errors.js';
import { QUEUE_NAMES, type QueueName } from './names.js';

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
      const restored = await retryJob(deps, tenantId, name, job);
      if (restored === undefined) continue;
      retried.push(String(job.id));
      result.events_restored += restored;
    }
    if (retried.length === 0) continue;
    result.retried[name] = retried.length;
    result.total += retried.length;
    result.dead_letters_marked += await withTenant(deps.db, tenantId, (tx) => markDeadLettersRetried(tx, name, retried));
  }
  return result;
}

/**
 * One failed job back to waiting (fresh attempts), its `failed` events first back to the status
 * its stage takes, so the job finds them when it runs. Returns how many events came back, or
 * undefined when the job had left the failed state meanwhile (its events are failed again).
 */
async function retryJob(deps: Deps, tenantId: string, name: QueueName, job: Job): Promise<number | undefined> {
  const restored = await withTenant(deps.db, tenantId, (tx) => restoreJobEvents(tx, name, job.data));
  try {
    await job.retry('failed');
    return restored;
  } catch (err) {
    deps.log.warn({ err, queue: name, jobId: job.id }, 'job not retried (no longer failed)');
    if (restored > 0) await withTenant(deps.db, tenantId, (tx) => failJobEvents(tx, name, job.data, job.failedReason ?? 'job failed'));
    return undefined;
  }
}

const notRetryable = (id: string, reason: string) => new MemloomError('DEAD_LETTER_NOT_RETRYABLE', reason, { kind: 'conflict', details: { id } });

/**
 * POST /v1/dead-letters/:id/retry — the job of one dead letter back to waiting, as retryFailedJobs
 * does for a queue. A malformed file line cannot be retried (fix the line: the watcher reads a
 * changed file again), nor a job that is no longer failed (already retried, or removed).
 */
export async function retryDeadLetter(deps: Deps, tenantId: string, id: string): Promise<RetryResult> {
  const dead = await withTenant(deps.db, tenantId, (tx) => findDeadLetter(tx, id));
  if (!dead) throw new MemloomError('NOT_FOUND', 'No dead letter with this id.', { kind: 'not_found', details: { id } });
  const name = QUEUE_NAMES.find((q) => q === dead.queue);
  if (dead.source !== 'job' || !name || !dead.job_id) throw notRetryable(id, 'Only a failed job can be retried; fix a malformed line in its file instead.');
  const job = await deps.queues.get(name).getJob(dead.job_id);
  const owner = typeof job?.data?.tenantId === 'string' ? job.data.tenantId : 'default';
  if (!job || owner !== tenantId || (await job.getState()) !== 'failed') throw notRetryable(id, 'Its job is no longer failed (already retried, or removed).');
  const restored = await retryJob(deps, tenantId, name, job);
  if (restored === undefined) throw notRetryable(id, 'Its job is no longer failed (already retried, or removed).');
  const marked = await withTenant(deps.db, tenantId, (tx) => markDeadLettersRetried(tx, name, [String(job.id)]));
  return { retried: { [name]: 1 }, total: 1, dead_letters_marked: marked, events_restored: restored };
}
