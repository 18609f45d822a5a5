import { defineStage } from '../../src/queue/stage.js';
import { reconcileEvents } from './reconcile.js';
import { MaintenanceInput } from './schema.js';

/** Scheduled maintenance (one BullMQ job scheduler per task, so one tick runs once across replicas). */
export const maintenance = defineStage({
  name: 'maintenance',
  input: MaintenanceInput,
  key: (i) => `maintenance-${i.task}-${Date.now()}`,
  concurrency: 1,
  async handle(input, { deps, log }) {
    switch (input.task) {
      case 'reconcile': {
        const result = await reconcileEvents(deps);
        if (result.requeued > 0) log.info(result, 'reconciler re-enqueued events');
        return result;
      }
    }
  },
});
