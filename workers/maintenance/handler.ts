import { defineStage } from '../../src/queue/stage.js';
import { reembedTick } from '../../src/reembed/index.js';
import { enqueueBriefings } from './briefing-tick.js';
import { enqueueDueDreams } from './dream-triggers.js';
import { foldAllTermDeltas } from './fold.js';
import { refreshDecay, sweepExpired } from './lifecycle.js';
import { requeueStoredEvents } from './requeue.js';
import { MaintenanceInput } from './schema.js';

/** Scheduled maintenance (one BullMQ job scheduler per task, so one tick runs once across replicas). */
export const maintenance = defineStage({
  name: 'maintenance',
  input: MaintenanceInput,
  key: (i) => `maintenance-${i.task}-${Date.now()}`,
  concurrency: 1,
  async handle(input, { deps, log }) {
    switch (input.task) {
      case 'requeue': {
        const result = await requeueStoredEvents(deps);
        if (result.requeued > 0 || result.lost > 0) log.info(result, 'requeued stored events');
        return { ...result, termDeltasFolded: await foldAllTermDeltas(deps) };
      }
      case 'ttl-sweep': {
        const result = await sweepExpired(deps);
        if (result.expired > 0 || result.ttl_defaults > 0) log.info(result, 'expired memories swept');
        return result;
      }
      case 'decay': {
        const result = await refreshDecay(deps);
        if (result.archived > 0) log.info(result, 'decay refreshed');
        return result;
      }
      case 'dream-triggers':
        return enqueueDueDreams(deps);
      case 'briefing':
        return enqueueBriefings(deps);
      case 'reembed': {
        // After a model change: one bounded batch per tick (under the provider's gate), until no
        // row of another model is left; `memloom reembed` does the same in one run.
        const result = await reembedTick(deps);
        const n = result.reembedded.chunks + result.reembedded.memories + result.reembedded.entities;
        if (n > 0) log.info({ ...result.reembedded, model: deps.providers.embeddings.model }, 'rows re-embedded');
        return result;
      }
    }
  },
});
