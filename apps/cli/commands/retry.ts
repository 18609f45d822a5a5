import { ConfigError, isEmbedded, type Config } from '../../../src/config.js';
import { createDeps } from '../../../src/deps.js';
import { MemloomError } from '../../../src/errors.js';
import type { Logger } from '../../../src/logger.js';
import { QUEUE_NAMES, isQueueName } from '../../../src/queue/names.js';
import { retryFailedJobs, type RetryResult } from '../../../src/queue/retry.js';
import { flagString, type ParsedArgs } from '../args.js';
import { defaultUrl, embeddedOwnerUrl, unreachable } from '../remote.js';

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
  const url = flagString(args, 'url');
  const apiKey = flagString(args, 'api-key') ?? process.env.MEMLOOM_API_KEY;
  let result: RetryResult | undefined;
  const ownerUrl = url === undefined ? await embeddedOwnerUrl(config) : undefined;
  if (url !== undefined) result = await viaApi(url, body, apiKey);
  else if (ownerUrl !== undefined) result = await viaApi(ownerUrl, body, apiKey);
  else if (isEmbedded(config)) result = await viaApi(defaultUrl(config), body, apiKey, { unreachableOk: true });
  if (result === undefined) {
    const deps = await createDeps(config, log);
    try {
      result = await retryFailedJobs(deps, flagString(args, 'tenant') ?? 'default', body.queue ? [body.queue] : QUEUE_NAMES);
    } finally {
      await deps.close();
    }
  }
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

/** POSTs /v1/jobs/retry; `undefined` when nothing listens and `unreachableOk` (embedded, no server running). */
async function viaApi(url: string, body: object, apiKey: string | undefined, opts: { unreachableOk?: boolean } = {}): Promise<RetryResult | undefined> {
  let res: Response;
  try {
    res = await fetch(`${url.replace(/\/+$/, '')}/v1/jobs/retry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
  } catch (err) {
    if (opts.unreachableOk && (err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') return undefined;
    throw unreachable(url, err);
  }
  const answer = (await res.json().catch(() => ({}))) as RetryResult & { error?: { code?: string; message?: string } };
  if (!res.ok) {
    throw new MemloomError(answer.error?.code ?? 'RETRY_FAILED', `retry failed (${res.status}): ${answer.error?.message ?? res.statusText}`, {
      kind: res.status < 500 ? 'input' : 'upstream',
    });
  }
  return answer;
}
