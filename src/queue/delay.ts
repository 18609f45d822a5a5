import { DelayedError, type Job } from 'bullmq';
import type { MemloomError } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * Parks a job that is over a token budget until the window with room: moved to `delayed` without
 * using an attempt (BullMQ's moveToDelayed skips the attempt), with the reason in the job's log so
 * Bull Board shows why it waits. Throws DelayedError, which tells the worker the job was moved.
 */
export async function delayJob(job: Job, token: string | undefined, e: MemloomError, log: Logger): Promise<never> {
  const waitMs = e.retryAfterMs ?? 60_000;
  const until = Date.now() + waitMs;
  const reason = typeof e.details?.reason === 'string' ? e.details.reason : 'limit';
  log.info({ code: e.code, reason, retryAfterMs: waitMs }, 'job delayed by the provider gate');
  await job.log(`${new Date().toISOString()} ${e.code} (${reason}): waits until ${new Date(until).toISOString()}`);
  await job.moveToDelayed(until, token);
  throw new DelayedError();
}
