import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../../src/deps.js';
import { InputError } from '../../../src/errors.js';
import { QUEUE_NAMES } from '../../../src/queue/names.js';
import { retryFailedJobs } from '../../../src/queue/retry.js';

const RetryBody = z
  .object({ queue: z.enum(QUEUE_NAMES).optional(), all: z.literal(true).optional() })
  .strict()
  .refine((b) => (b.queue === undefined) !== (b.all === undefined), { message: 'give either "queue" or "all": true' });

/**
 * POST /v1/jobs/retry {queue} | {all: true} — the caller's tenant's failed jobs back to waiting,
 * their dead letters marked retried (`memloom retry` calls this).
 */
export function jobRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/jobs/retry', async (req) => {
    const parsed = RetryBody.safeParse(req.body ?? {});
    if (!parsed.success) {
      throw new InputError('Invalid retry request.', parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
    }
    const queues = parsed.data.queue ? [parsed.data.queue] : QUEUE_NAMES;
    return retryFailedJobs(deps, req.tenantId, queues);
  });
}
