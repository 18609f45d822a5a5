import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { InputError } from '../../../src/errors.js';
import { getMemoryDetail, listMemoriesPage, resolveMemoryId } from '../../../src/memories/read.js';
import { ListMemoriesQuery, parseInput } from '../../../src/memories/schema.js';

/**
 * GET /v1/memories — newest first with filters; page with `cursor=<next_cursor>` (null on the last
 * page). GET /v1/memories/:id — one memory with provenance, version chain, relations and entities;
 * :id may be the working memory's short id `m:abcd1234`.
 */
export function memoryRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/v1/memories', async (req) => {
    const q = parseInput(ListMemoriesQuery, req.query, 'query parameters');
    return listMemoriesPage(deps, req.tenantId, { ...q, kinds: q.kind });
  });

  app.get<{ Params: { id: string } }>('/v1/memories/:id', async (req) => {
    const id = await resolveMemoryId(deps, req.tenantId, req.params.id);
    if (!id) throw new InputError('Invalid memory id.', [{ path: 'id', message: 'a UUID, or m: and its first 8 hex digits' }]);
    return getMemoryDetail(deps, req.tenantId, id);
  });
}
