import type { QueueName } from '../src/queue/names.js';
import type { AnyStage } from '../src/queue/stage.js';
import { maintenance } from './maintenance/handler.js';

/** The one list of stages: queue name -> input schema, job key, handler, next stages. */
export const CATALOG: ReadonlyMap<QueueName, AnyStage> = new Map<QueueName, AnyStage>([
  ['maintenance', maintenance],
]);
