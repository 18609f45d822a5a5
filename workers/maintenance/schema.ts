import { z } from 'zod';
import { MAINTENANCE_TASKS } from '../../src/queue/scheduler.js';

export const MaintenanceInput = z.object({ task: z.enum(MAINTENANCE_TASKS) });
export type MaintenanceInput = z.infer<typeof MaintenanceInput>;
