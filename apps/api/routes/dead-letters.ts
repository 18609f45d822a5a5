import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { withTenant } from '../../../src/db/pool.js';
import { listDeadLetters } from '../../../src/db/sql/dead-letters.js';
import { parseInput } from '../../../src/memories/schema.js';
import { DeadLettersQuery } from '../../../src/ops/schema.js';
import { InputError } from '../../../src/errors.js';
import { isUuid } from '../../../src/memories/read.js';
import { retryDeadLetter } from '../../../src/queue/retry.js';

/**
 * GET /v1/dead-letters — malformed file lines and jobs that failed for good, newest first, for
 * the caller's tenant. Page with `before=<next_before>`; next_before is null on the last page.
 * POST /v1/dead-letters/:id/retry — that dead letter's job back to waiting (409 for a file line,
 * or a job no longer failed).
 */
export function deadLetterRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/v1/dead-letters', async (req) => {
    const { limit, source, before } = parseInput(DeadLettersQuery, req.query, 'query parameters');
    const rows = await withTenant(deps.db, req.tenantId, (tx) => listDeadLetters(tx, { limit, source, before }));
    const last = rows[rows.length - 1];
    return { dead_letters: rows, next_before: rows.length >= limit && last ? last.created_at : null };
  });

  app.post<{ Params: { id: string } }>('/v1/dead-letters/:id/retry', async (req) => {
    const id = req.params.id.toLowerCase();
    if (!isUuid(id)) throw new InputError('Invalid dead letter id.', [{ path: 'id', message: 'a UUID' }]);
    return retryDeadLetter(deps, req.tenantId, id);
  });
}
