import { z } from 'zod';
import { MAINTENANCE_TASKS } from '../../src/queue/scheduler.js';

/** `reconcile` is the requeue task's name before 0.1.1; jobs of that name may still be queued. */
export const MaintenanceInput = z.object({
  task: z.preprocess((t) => (t === 'reconcile' ? 'requeue' : t), z.enum(MAINTENANCE_TASKS)),
});
export type MaintenanceInput = z.infer<typeof MaintenanceInput>;
