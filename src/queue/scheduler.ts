import type { Queue } from 'bullmq';
import type { Deps } from '../deps.js';

/** Periodic maintenance tasks; each is one BullMQ job scheduler, so one tick runs once across all replicas. */
export const MAINTENANCE_TASKS = ['requeue', 'ttl-sweep', 'decay', 'dream-triggers', 'briefing', 'reembed'] as const;
export type MaintenanceTask = (typeof MAINTENANCE_TASKS)[number];

export interface RunningScheduler {
  close(): Promise<void>;
}

export function scheduleIntervals(deps: Deps): Record<MaintenanceTask, number> {
  const c = deps.config;
  return {
    requeue: c.REQUEUE_INTERVAL_MS,
    'ttl-sweep': c.TTL_SWEEP_INTERVAL_MS,
    decay: c.DECAY_INTERVAL_MS,
    'dream-triggers': c.DREAM_CHECK_INTERVAL_MS,
    briefing: c.BRIEFING_INTERVAL_MS,
    reembed: c.REEMBED_INTERVAL_MS,
  };
}

const schedulerId = (task: MaintenanceTask): string => `maintenance-${task}`;

async function upsertSchedules(queue: Queue, intervals: Record<MaintenanceTask, number>): Promise<void> {
  // A scheduler of a task that no longer exists (renamed in an upgrade) would tick forever.
  const wanted = new Set(MAINTENANCE_TASKS.map(schedulerId));
  for (const s of await queue.getJobSchedulers()) {
    if (s.key && !wanted.has(s.key)) await queue.removeJobScheduler(s.key);
  }
  for (const task of MAINTENANCE_TASKS) {
    await queue.upsertJobScheduler(
      schedulerId(task),
      { every: intervals[task] },
      { name: task, data: { task }, opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } },
    );
  }
}

/**
 * Registers the maintenance job schedulers, then registers them again every SCHEDULER_REFRESH_MS:
 * a Redis that keeps nothing on disk forgets them when it restarts, and without this the
 * requeue task (and every other schedule) would stay stopped until memloom restarts. Upserting is
 * idempotent: an existing scheduler keeps its next run, so a refresh never adds or moves a tick.
 */
export async function startScheduler(deps: Deps): Promise<RunningScheduler> {
  const queue = deps.queues.get('maintenance');
  const intervals = scheduleIntervals(deps);
  const log = deps.log.child({ component: 'scheduler' });
  await upsertSchedules(queue, intervals);
  log.info({ intervals, refreshMs: deps.config.SCHEDULER_REFRESH_MS }, 'schedules registered');

  let closed = false;
  // While the queue backend is down an upsert waits for it (ioredis queues commands): one refresh
  // in flight at a time, and a failed one is simply tried again on the next tick.
  let inFlight: Promise<void> | undefined;
  const refresh = async (): Promise<void> => {
    const present = await queue.getJobSchedulersCount();
    await upsertSchedules(queue, intervals);
    if (present < MAINTENANCE_TASKS.length && !closed) {
      log.warn({ present, expected: MAINTENANCE_TASKS.length }, 'job schedulers were missing (queue backend lost them); registered again');
      // The queue lost its state, so it may have lost pipeline jobs too: requeue now rather than
      // at the next tick (the requeue task queues stored events no live job holds).
      await queue.add(
        'requeue',
        { task: 'requeue' },
        { jobId: `maintenance-requeue-now-${Date.now().toString(36)}`, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
      );
    }
  };
  const timer = setInterval(() => {
    if (inFlight || closed) return;
    inFlight = refresh()
      .catch((err: unknown) => {
        if (!closed) log.warn({ err }, 'schedules not refreshed; retrying on the next tick');
      })
      .finally(() => (inFlight = undefined));
  }, deps.config.SCHEDULER_REFRESH_MS);
  timer.unref();

  return {
    // Does not wait for a refresh in flight: with the backend down it would wait as long as the
    // outage; closing the queue (deps.close) ends it.
    close: async () => {
      closed = true;
      clearInterval(timer);
    },
  };
}
