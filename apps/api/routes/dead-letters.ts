import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../../src/deps.js';
import { withTenant } from '../../../src/db/pool.js';
import { listDeadLetters } from '../../../src/db/sql/dead-letters.js';
import { InputError } from '../../../src/errors.js';
import { timestamp } from '../../../src/input.js';

const Query = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(50),
    source: z.enum(['file', 'job', 'http']).optional(),
    before: timestamp('an ISO-8601 timestamp, e.g. the next_before of the previous page').optional(),
  })
  .strict();

/**
 * GET /v1/dead-letters — malformed file lines and jobs that failed for good, newest first, for
 * the caller's tenant. Page with `before=<next_before>`; next_before is null on the last page.
 */
export function deadLetterRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/v1/dead-letters', async (req) => {
    const parsed = Query.safeParse(req.query ?? {});
    if (!parsed.success) {
      throw new InputError('Invalid query parameters.', parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
    }
    const { limit, source, before } = parsed.data;
    const rows = await withTenant(deps.db, req.tenantId, (tx) => listDeadLetters(tx, { limit, source, before }));
    const last = rows[rows.length - 1];
    return { dead_letters: rows, next_before: rows.length >= limit && last ? last.created_at : null };
  });
}
