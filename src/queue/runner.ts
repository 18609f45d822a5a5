import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Deps } from '../deps.js';
import { MemloomError } from '../errors.js';
import { failureReason, failureStack } from '../errors-describe.js';
import { translateError } from '../errors-translate.js';
import { withTenant } from '../db/pool.js';
import { insertJobDeadLetter } from '../db/sql/dead-letters.js';
import { failJobEvents } from '../db/sql/failed-events.js';
import { enqueueAll } from './enqueue.js';
import type { QueueName } from './names.js';
import type { AnyStage, NextJob } from './stage.js';
import { GATE_CODES } from '../providers/gate.js';
import { runInGateScope } from '../providers/gate-scope.js';
import { delayJob } from './delay.js';
import { ProviderReadiness, type ReadinessCheck } from './readiness.js';

export interface RunningWorkers {
  workers: Worker[];
  /** Provider readiness of these workers, for /readyz (apps/api/routes/ops.ts Readiness). */
  readiness: { checks: ReadinessCheck[] };
  /** Starts consuming (startWorkers with `autorun: false`; a second call does nothing). */
  run(): void;
  /** Stops taking new jobs and waits for in-flight ones (graceful drain). */
  close(): Promise<void>;
}

export type StageCatalog = ReadonlyMap<QueueName, AnyStage>;

/** A retryable failure as BullMQ records it: the reason as message, the cause's frames as stack. */
class JobFailure extends Error {
  constructor(reason: string, e: MemloomError) {
    super(reason);
    this.name = 'JobFailure';
    this.stack = failureStack(this.name, reason, e);
  }
}

/** A stage's worker concurrency: its own (a number, or a function of the configuration), else WORKER_CONCURRENCY. */
function concurrencyOf(stage: AnyStage, config: Deps['config']): number {
  return typeof stage.concurrency === 'function' ? stage.concurrency(config) : (stage.concurrency ?? config.WORKER_CONCURRENCY);
}

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
    { deduplicated: (queue) => deps.metrics.debounced.inc({ queue }) },
  );
}

/**
 * Runs workers for the given stages. The one error boundary of job processing: invalid payloads
 * and non-retryable errors fail permanently (UnrecoverableError) and are dead-lettered; provider
 * 429s and the gate's RATE_WAIT rate-limit the whole queue without using an attempt; the gate's
 * BUDGET_WAIT moves the job to delayed until its budget window has room (src/queue/delay.ts);
 * other errors retry with backoff. Stages that need a paid provider start consuming once it is
 * ready (src/queue/readiness.ts). With `autorun: false` they consume once `run()` is called:
 * `memloom start` calls it after the API listens, so their first claims (BullMQ's plpgsql
 * functions, planned on first use) do not hold PGlite's one session before /readyz.
 */
export function startWorkers(deps: Deps, catalog: StageCatalog, names: readonly QueueName[], opts: { autorun?: boolean } = {}): RunningWorkers {
  const workers: Worker[] = [];
  const starts: Array<() => void> = [];
  const readiness = new ProviderReadiness(deps);
  let closing = false;
  // Stages of this process that warm up when a job of an upstream queue arrives (Stage.warm).
  const warming = names.flatMap((n) => catalog.get(n)?.warm ?? []);
  const warm = (queue: QueueName) => {
    for (const w of warming.filter((x) => x.on.includes(queue))) {
      warming.splice(warming.indexOf(w), 1);
      w.run(deps);
    }
  };
  for (const name of names) {
    const stage = catalog.get(name);
    if (!stage) continue;
    const log = deps.log.child({ stage: name });
    const worker: Worker = deps.queues.backend.createWorker(
      name,
      async (job: Job, token?: string) => {
        if (warming.length > 0) warm(name);
        const parsed = stage.input.safeParse(job.data);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new UnrecoverableError(`INPUT_INVALID: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid payload'}`);
        }
        const input = parsed.data as Record<string, unknown>;
        const jobLog = log.child({ jobId: job.id, eventId: input.eventId, tenantId: input.tenantId });
        const ctx = { deps, log: jobLog, job };
        const timer = deps.metrics.jobDuration.startTimer({ queue: name });
        let status = 'failed';
        try {
          // Paid provider calls inside the job are charged to its tenant and job (the gate reads this scope).
          const scope = { tenantId: typeof input.tenantId === 'string' ? input.tenantId : undefined, jobId: job.id, queue: name };
          const cpu = deps.metrics.stageCpu;
          const result = await cpu.job(name, () =>
            runInGateScope(scope, async () => {
              const r = await stage.handle(input, ctx);
              // What follows (a read of stored state, then the enqueue): the queue's share of a job.
              await cpu.part('enqueue', async () => enqueueNext(deps, catalog, (await stage.next?.(input, r, ctx)) ?? []));
              return r;
            }),
          );
          status = 'completed';
          return result;
        } catch (err) {
          const e = translateError(err);
          if (e.code === GATE_CODES.budgetWait) {
            status = 'delayed';
            return await delayJob(job, token, e, jobLog);
          }
          if (e.kind === 'rate_limited') {
            status = 'rate_limited';
            jobLog.warn({ code: e.code, retryAfterMs: e.retryAfterMs }, 'rate limited; queue paused');
            await worker.rateLimit(e.retryAfterMs ?? 1000);
            throw Worker.RateLimitError();
          }
          // The reason names the cause (class, code, content-free message): BullMQ keeps it as
          // the job's failedReason (Bull Board), and a final failure as the dead letter's message.
          const reason = failureReason(e);
          if (!e.retryable) {
            const final = new UnrecoverableError(reason);
            final.stack = failureStack(final.name, reason, e);
            throw final;
          }
          status = 'retry';
          jobLog.warn({ code: e.code, reason, attempt: job.attemptsMade + 1 }, 'job failed; will retry');
          throw new JobFailure(reason, e);
        } finally {
          timer({ status });
        }
      },
      // Consumes once run() is called; a stage that needs a paid provider, once the provider answers too.
      { concurrency: concurrencyOf(stage, deps.config), autorun: false },
    );
    const needs = readiness.needs(name);
    const consume = () => {
      if (closing) return;
      worker.run().catch((err: unknown) => log.error({ err }, 'worker stopped'));
    };
    // The provider checks start now, so /readyz reports them from the first request (its checks are read once, at startWorkers' return).
    const ready = needs.length === 0 ? undefined : readiness.whenReady(needs);
    starts.push(ready === undefined ? consume : () => void ready.then(consume));
    worker.on('failed', (job, err) => {
      if (!job) return;
      const attempts = job.opts.attempts ?? 1;
      const final = err instanceof UnrecoverableError || err.name === 'UnrecoverableError' || job.attemptsMade >= attempts;
      if (!final) return;
      log.error({ jobId: job.id, err: { message: err.message } }, 'job failed permanently');
      deps.metrics.deadLetters.inc({ queue: name });
      const tenantId = typeof job.data?.tenantId === 'string' ? job.data.tenantId : 'default';
      // Its events become `failed` with the reason in the same transaction: pending_events stops
      // counting work that will not finish by itself, and /v1/jobs/retry puts both back.
      void withTenant(deps.db, tenantId, async (tx) => {
        await insertJobDeadLetter(tx, { queue: name, jobId: String(job.id), message: err.message, payload: JSON.stringify(job.data ?? null) });
        await failJobEvents(tx, name, job.data, err.message);
      }).catch((dlErr: unknown) => log.error({ err: dlErr, jobId: job.id }, 'dead letter not recorded'));
    });
    worker.on('error', (err) => log.error({ err }, 'worker error'));
    workers.push(worker);
  }
  deps.log.info({ queues: workers.map((w) => w.name), backend: deps.queues.backend.kind }, 'workers started');
  const run = () => {
    for (const start of starts.splice(0)) start();
  };
  if (opts.autorun !== false) run();
  return {
    workers,
    readiness: { checks: readiness.checks },
    run,
    async close() {
      closing = true;
      readiness.close();
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
