import { QUEUE_NAMES, type QueueName } from '../src/queue/names.js';
import type { AnyStage } from '../src/queue/stage.js';
import { briefing } from './briefing/handler.js';
import { chunk } from './chunk/handler.js';
import { dream } from './dream/handler.js';
import { embed } from './embed/handler.js';
import { extract } from './extract/handler.js';
import { maintenance } from './maintenance/handler.js';
import { triage } from './triage/handler.js';

/**
 * The one list of stages: queue name -> input schema, job key, handler, next stages.
 * Flow: triage → chunk → embed → extract (debounced per session, reconciles into memory).
 * See workers/README.md for the diagram and invariants.
 */
const STAGES: Record<QueueName, AnyStage> = { triage, chunk, embed, extract, dream, briefing, maintenance };
export const CATALOG: ReadonlyMap<QueueName, AnyStage> = new Map(QUEUE_NAMES.map((name) => [name, STAGES[name]]));
