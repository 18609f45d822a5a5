import type { Deps } from '../deps.js';

/** Periodic maintenance tasks; each is one BullMQ job scheduler, so one tick runs once across all replicas. */
export const MAINTENANCE_TASKS = ['reconcile', 'ttl-sweep', 'decay', 'dream-triggers', 'briefing'] as const;
export type MaintenanceTask = (typeof MAINTENANCE_TASKS)[number];

export interface RunningScheduler {
  close(): Promise<void>;
}

export function scheduleIntervals(deps: Deps): Record<MaintenanceTask, number> {
  const c = deps.config;
  return {
    reconcile: c.RECONCILE_INTERVAL_MS,
    'ttl-sweep': c.TTL_SWEEP_INTERVAL_MS,
    decay: c.DECAY_INTERVAL_MS,
    'dream-triggers': c.DREAM_CHECK_INTERVAL_MS,
    briefing: c.BRIEFING_INTERVAL_MS,
  };
}

export async function startScheduler(deps: Deps): Promise<RunningScheduler> {
  const queue = deps.queues.get('maintenance');
  const intervals = scheduleIntervals(deps);
  for (const task of MAINTENANCE_TASKS) {
    await queue.upsertJobScheduler(`maintenance-${task}`, { every: intervals[task] }, { name: task, data: { task }, opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } });
  }
  deps.log.child({ component: 'scheduler' }).info({ intervals }, 'schedules registered');
  return { close: async () => undefined };
}
