import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { parseInput } from '../../../src/memories/schema.js';
import { RetryBody } from '../../../src/ops/schema.js';
import { QUEUE_NAMES } from '../../../src/queue/names.js';
import { retryFailedJobs } from '../../../src/queue/retry.js';

/**
 * POST /v1/jobs/retry {queue} | {all: true} — the caller's tenant's failed jobs back to waiting,
 * their dead letters marked retried (`memloom retry` calls this).
 */
export function jobRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/jobs/retry', async (req) => {
    const body = parseInput(RetryBody, req.body, 'retry request');
    const queues = body.queue ? [body.queue] : QUEUE_NAMES;
    return retryFailedJobs(deps, req.tenantId, queues);
  });
}
