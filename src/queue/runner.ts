import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Deps } from '../deps.js';
import { MemloomError } from '../errors.js';
import { translateError } from '../errors-translate.js';
import { withTenant } from '../db/pool.js';
import { insertJobDeadLetter } from '../db/sql/dead-letters.js';
import { enqueueAll } from './enqueue.js';
import type { QueueName } from './names.js';
import type { AnyStage, NextJob } from './stage.js';

export interface RunningWorkers {
  workers: Worker[];
  /** Stops taking new jobs and waits for in-flight ones (graceful drain). */
  close(): Promise<void>;
}

export type StageCatalog = ReadonlyMap<QueueName, AnyStage>;

/** Turns NextJob descriptors into queue jobs with the target stage's idempotent job id. */
export async function enqueueNext(deps: Deps, catalog: StageCatalog, next: NextJob[]): Promise<void> {
  if (next.length === 0) return;
  await enqueueAll(
    deps.queues,
    next.map((n) => {
      const stage = catalog.get(n.stage);
      if (!stage) throw new MemloomError('STAGE_UNKNOWN', `No stage named ${n.stage}`, { kind: 'internal', retryable: false });
      return { ...n, jobId: stage.key(n.input) };
    }),
  );
}

/**
 * Runs workers for the given stages. The one error boundary of job processing: invalid payloads
 * and non-retryable errors fail permanently (UnrecoverableError) and are dead-lettered; provider
 * 429s rate-limit the whole queue without using an attempt; other errors retry with backoff.
 */
export function startWorkers(deps: Deps, catalog: StageCatalog, names: readonly QueueName[]): RunningWorkers {
  const workers: Worker[] = [];
  for (const name of names) {
    const stage = catalog.get(name);
    if (!stage) continue;
    const log = deps.log.child({ stage: name });
    const worker: Worker = deps.queues.backend.createWorker(
      name,
      async (job: Job) => {
        const parsed = stage.input.safeParse(job.data);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new UnrecoverableError(`INPUT_INVALID: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid payload'}`);
        }
        const input = parsed.data as Record<string, unknown>;
        const jobLog = log.child({ jobId: job.id, eventId: input.eventId, tenantId: input.tenantId });
        const ctx = { deps, log: jobLog, job };
        try {
          const result = await stage.handle(input, ctx);
          const next = (await stage.next?.(input, result, ctx)) ?? [];
          await enqueueNext(deps, catalog, next);
          return result;
        } catch (err) {
          const e = translateError(err);
          if (e.kind === 'rate_limited') {
            jobLog.warn({ code: e.code, retryAfterMs: e.retryAfterMs }, 'rate limited; queue paused');
            await worker.rateLimit(e.retryAfterMs ?? 1000);
            throw Worker.RateLimitError();
          }
          if (!e.retryable) throw new UnrecoverableError(`${e.code}: ${e.message}`);
          jobLog.warn({ code: e.code, err: e.cause ?? e, attempt: job.attemptsMade + 1 }, 'job failed; will retry');
          throw e;
        }
      },
      { concurrency: stage.concurrency ?? deps.config.WORKER_CONCURRENCY, autorun: true },
    );
    worker.on('failed', (job, err) => {
      if (!job) return;
      const attempts = job.opts.attempts ?? 1;
      const final = err instanceof UnrecoverableError || err.name === 'UnrecoverableError' || job.attemptsMade >= attempts;
      if (!final) return;
      log.error({ jobId: job.id, err: { message: err.message } }, 'job failed permanently');
      const tenantId = typeof job.data?.tenantId === 'string' ? job.data.tenantId : 'default';
      void withTenant(deps.db, tenantId, (tx) =>
        insertJobDeadLetter(tx, { queue: name, jobId: String(job.id), message: err.message, payload: JSON.stringify(job.data ?? null) }),
      ).catch((dlErr: unknown) => log.error({ err: dlErr, jobId: job.id }, 'dead letter not recorded'));
    });
    worker.on('error', (err) => log.error({ err }, 'worker error'));
    workers.push(worker);
  }
  return {
    workers,
    async close() {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
