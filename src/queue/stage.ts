import type { Job } from 'bullmq';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { Deps } from '../deps.js';
import type { Logger } from '../logger.js';
import type { NextJob } from './enqueue.js';
import type { QueueName } from './names.js';

export type { NextJob } from './enqueue.js';

export interface StageContext {
  deps: Deps;
  log: Logger;
  job: Job;
}

/**
 * One pipeline stage. `input` parses the job payload (schemas only grow: new fields are optional),
 * `key` is the BullMQ job id (it only saves work; correctness lives in PostgreSQL unique keys),
 * `handle` is replay-safe, and `next` is computed from the input and stored state, never from
 * "this attempt did work", so a retry after a committed write still moves the pipeline on.
 */
export interface Stage<I extends object, R = unknown> {
  name: QueueName;
  input: z.ZodType<I>;
  key(input: I): string;
  handle(input: I, ctx: StageContext): Promise<R>;
  next?(input: I, result: R, ctx: StageContext): NextJob[] | Promise<NextJob[]>;
  /**
   * Starts loading what this stage's first job needs, without waiting. The runner calls `run` once,
   * at the first job this process takes from a queue in `on` (stages upstream of this one): their
   * work means this stage's jobs will follow. Maintenance jobs and an idle process load nothing.
   */
  warm?: { on: readonly QueueName[]; run(deps: Deps): void };
  /** Worker concurrency for this queue (default WORKER_CONCURRENCY), or a function of the configuration. */
  concurrency?: number | ((config: Config) => number);
  attempts?: number;
}

// biome-ignore lint/suspicious/noExplicitAny: a catalog of stages with different payload types; each stage checks its own
export type AnyStage = Stage<any, any>;

export function defineStage<I extends object, R>(stage: Stage<I, R>): Stage<I, R> {
  return stage;
}
