import { ConfigError, type Config } from '../../../src/config.js';
import type { Logger } from '../../../src/logger.js';
import { QUEUE_NAMES, isQueueName, type QueueName } from '../../../src/queue/names.js';
import { flagString, type ParsedArgs } from '../args.js';
import { serve } from './serve.js';

/** `memloom worker [--queues a,b]`: pipeline workers for some or all queues. */
export async function workerCommand(config: Config, log: Logger, args: ParsedArgs): Promise<void> {
  await serve(config, log, { api: false, watcher: false, workers: parseQueues(flagString(args, 'queues')), scheduler: false });
}

function parseQueues(value: string | undefined): QueueName[] {
  if (!value) return [...QUEUE_NAMES];
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = names.filter((n) => !isQueueName(n));
  if (bad.length > 0) throw new ConfigError(`invalid --queues: unknown queue ${bad.join(', ')}; expected some of ${QUEUE_NAMES.join(', ')}`);
  return names as QueueName[];
}
