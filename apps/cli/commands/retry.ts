import { ConfigError, type Config } from '../../../src/config.js';
import { createDeps } from '../../../src/deps.js';
import type { Logger } from '../../../src/logger.js';
import { QUEUE_NAMES, isQueueName } from '../../../src/queue/names.js';
import { retryFailedJobs, type RetryResult } from '../../../src/queue/retry.js';
import { flagString, type ParsedArgs } from '../args.js';
import { viaApiOrDirect } from '../remote.js';

const USAGE = 'usage: memloom retry --queue Q | --all [--url URL] [--api-key KEY] [--tenant T]';

export interface RetryIo {
  stdout: NodeJS.WritableStream;
}

/**
 * `memloom retry --queue Q | --all`: failed jobs back to waiting, their dead letters marked
 * retried, their failed events restored; prints `{retried, total, dead_letters_marked, events_restored}`
 * on stdout.
 *
 * Through the API (POST /v1/jobs/retry) when `--url` is given (the API key picks the tenant), or
 * in embedded mode when a memloom already runs on this MEMLOOM_HOME (the API its data-directory lock
 * names) or answers on HOST:PORT (its process owns the embedded database).
 * Otherwise the queues and database are opened directly (`--tenant`, default `default`).
 */
export async function retryCommand(config: Config, log: Logger, args: ParsedArgs, io: RetryIo = { stdout: process.stdout }): Promise<void> {
  const body = parseTarget(args);
  const result = await viaApiOrDirect<RetryResult>(config, args, { path: '/v1/jobs/retry', body, what: 'retry', failed: 'RETRY_FAILED' }, async () => {
    const deps = await createDeps(config, log);
    try {
      return await retryFailedJobs(deps, flagString(args, 'tenant') ?? 'default', body.queue ? [body.queue] : QUEUE_NAMES);
    } finally {
      await deps.close();
    }
  });
  io.stdout.write(`${JSON.stringify(result)}\n`);
}

function parseTarget(args: ParsedArgs): { queue?: (typeof QUEUE_NAMES)[number]; all?: true } {
  const queue = flagString(args, 'queue');
  const all = args.flags.get('all') === true;
  if ((queue === undefined) === !all) throw new ConfigError(USAGE);
  if (all) return { all: true };
  if (!isQueueName(queue as string)) throw new ConfigError(`invalid --queue: expected one of ${QUEUE_NAMES.join(', ')}\n${USAGE}`);
  return { queue: queue as (typeof QUEUE_NAMES)[number] };
}
