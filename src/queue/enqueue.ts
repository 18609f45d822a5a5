import type { JobsOptions } from 'bullmq';
import type { QueueBackendKind } from './backend.js';
import type { QueueName } from './names.js';
import type { Queues } from './queues.js';

/** A job to enqueue next: the stage, its input, and optional BullMQ options (delay, dedup, priority). */
export interface NextJob {
  stage: QueueName;
  input: Record<string, unknown>;
  opts?: { delay?: number; priority?: number; deduplication?: Debounce | Throttle | { id: string } };
}

/** Deduplication without replacement: a pending job keeps its delay, so adds cannot postpone it; see throttled(). */
export interface Throttle {
  id: string;
  keepLastIfActive: true;
}

/** BullMQ's debounce mode, with at most one job pending per id: see debounced(). */
export interface Debounce {
  id: string;
  replace: true;
  keepLastIfActive: true;
}

/**
 * Deduplication options for a debounced job: while the pending job of `id` is delayed, an add
 * replaces it and restarts its delay (the quiet period); while it waits for a worker, an add is
 * merged into it; while it runs, the add is kept (only the latest) and queued when it finishes.
 * So a key has at most one job waiting and one running, however long the queue's backlog. With
 * a TTL alone the key expired `delay` after the add while its job still waited behind a backlog,
 * and every later add queued another job for the same key (7,800 extract jobs waiting at once in
 * a soak run). BullMQ keeps such a key without expiry (a TTL is ignored with keepLastIfActive)
 * and clears it when its job finishes or is removed, on Redis and on its PostgreSQL backend alike;
 * the job's own `delay` is the quiet period.
 */
export function debounced(id: string): Debounce {
  return { id, replace: true, keepLastIfActive: true };
}

/**
 * Deduplication options for a throttled job: while the pending job of `id` waits (delayed or not),
 * an add is merged into it and does not move its time; while it runs, the add is kept (only the
 * latest) and queued when it finishes. Used when a debounce must not be restarted any more (the
 * working memory's max wait, workers/briefing/schema.ts).
 */
export function throttled(id: string): Throttle {
  return { id, keepLastIfActive: true };
}

/** Attempts and backoff for every pipeline job; a job keeps its attempts while rate-limited. */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnFail: { age: 14 * 24 * 3600 },
};

/**
 * How long completed jobs stay visible (Bull Board). On Redis, trimming to a count is a cheap
 * sorted-set trim. On BullMQ's PostgreSQL backend every finish with a `count` deletes the jobs
 * `NOT IN` the newest `count`, sorting all kept jobs of the queue each time: measured in PGlite,
 * a job cost 3.0 ms with 1,000 completed jobs kept and 7.6 ms with 6,000 (1.3 ms with no count),
 * so with 50,000 kept every finish would sort 50,000 rows. There it keeps jobs by age only, for
 * one hour (the age rule deletes through an index, only what has expired since the last finish).
 */
export function completedRetention(kind: QueueBackendKind): Pick<JobsOptions, 'removeOnComplete'> {
  return { removeOnComplete: kind === 'redis' ? { age: 24 * 3600, count: 50_000 } : { age: 3600 } };
}

export function jobOptions(jobId: string, opts: NextJob['opts'] = {}): JobsOptions {
  const o: JobsOptions = { ...DEFAULT_JOB_OPTIONS, jobId };
  if (opts.delay !== undefined) o.delay = opts.delay;
  if (opts.priority !== undefined) o.priority = opts.priority;
  if (opts.deduplication !== undefined) o.deduplication = opts.deduplication;
  return o;
}

export interface EnqueueHooks {
  /** Called when a debounced add merged into a job already pending (metrics: debounced-away jobs). */
  deduplicated?(stage: NextJob['stage']): void;
}

/**
 * On BullMQ's PostgreSQL backend an addBulk costs about 16 ms in PGlite whatever its size (its
 * function creates and drops two temporary tables), a single add about 2 ms; below this many jobs,
 * adds one by one are cheaper. On Redis an addBulk is one pipelined round trip at any size.
 */
const PG_BULK_MIN = 8;

/** Adds plain (not deduplicated) jobs to one queue the cheapest way for its backend. */
export async function addJobs(queues: Queues, stage: QueueName, jobs: Array<{ data: Record<string, unknown>; opts: JobsOptions }>): Promise<void> {
  const queue = queues.get(stage);
  const retention = completedRetention(queues.backend.kind);
  if (queues.backend.kind === 'postgres' && jobs.length < PG_BULK_MIN) {
    for (const j of jobs) await queue.add(stage, j.data, { ...j.opts, ...retention });
    return;
  }
  await queue.addBulk(jobs.map((j) => ({ name: stage, data: j.data, opts: { ...j.opts, ...retention } })));
}

/** Enqueue jobs grouped per queue (addJobs; deduplicated ones one by one). `jobId` dedups in the queue only. */
export async function enqueueAll(queues: Queues, jobs: Array<NextJob & { jobId: string }>, hooks: EnqueueHooks = {}): Promise<void> {
  const byQueue = new Map<NextJob['stage'], Array<NextJob & { jobId: string }>>();
  for (const j of jobs) {
    // deduplicated (debounced) jobs are added one by one: addBulk does not apply deduplication everywhere
    const list = byQueue.get(j.stage) ?? [];
    list.push(j);
    byQueue.set(j.stage, list);
  }
  await Promise.all(
    [...byQueue].map(async ([stage, list]) => {
      const queue = queues.get(stage);
      const plain = list.filter((j) => !j.opts?.deduplication);
      const deduped = list.filter((j) => j.opts?.deduplication);
      if (plain.length > 0)
        await addJobs(
          queues,
          stage,
          plain.map((j) => ({ data: j.input, opts: jobOptions(j.jobId, j.opts) })),
        );
      for (const j of deduped) {
        // In debounce mode (replace) BullMQ swaps a delayed pending job for the new one, or keeps
        // the add as the pending job's follow-up when that job is running; either way a job was
        // already pending under the key, which the answer's id alone cannot tell.
        const dedupId = j.opts?.deduplication?.id as string;
        const pending = hooks.deduplicated ? await queue.getDeduplicationJobId(dedupId) : null;
        await queue.add(stage, j.input, { ...jobOptions(j.jobId, j.opts), ...completedRetention(queues.backend.kind) });
        if (pending !== null) hooks.deduplicated?.(stage);
      }
    }),
  );
}
