import { z } from 'zod';
import { identifier, timestamp } from '../input.js';
import { QUEUE_NAMES } from '../queue/names.js';

/** GET /v1/dead-letters — newest first; page with `before=<next_before>`. */
export const DeadLettersQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(50),
    source: z.enum(['file', 'job', 'http']).optional(),
    before: timestamp('an ISO-8601 timestamp, e.g. the next_before of the previous page').optional(),
  })
  .strict();

/** POST /v1/jobs/retry — one queue's failed jobs, or every queue's. */
export const RetryBody = z
  .object({ queue: z.enum(QUEUE_NAMES).optional(), all: z.literal(true).optional() })
  .strict()
  .refine((b) => (b.queue === undefined) !== (b.all === undefined), { message: 'give either "queue" or "all": true' });

/** GET /admin/doctor — the invariant checks of every tenant, or of one. */
export const DoctorQuery = z.object({ tenant: identifier().optional() }).strict();
