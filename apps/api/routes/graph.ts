import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { withTenant } from '../../../src/db/pool.js';
import { entityNeighbourhood, findEntity, schemaCounts, searchEntities } from '../../../src/db/sql/graph-read.js';
import { ftsQuery, normalizeText } from '../../../src/domain/text.js';
import { InputError, MemloomError } from '../../../src/errors.js';
import { EntityQuery, EntitySearchQuery, SchemaQuery } from '../../../src/graph/schema.js';
import { isUuid } from '../../../src/memories/read.js';
import { parseInput } from '../../../src/memories/schema.js';

/** Bounds of one neighbourhood answer: work is at most FANOUT^depth edge visits. */
const FANOUT = 25;
const MAX_NODES = 200;

/**
 * GET /v1/graph/entities?q= (fuzzy by name), GET /v1/graph/entities/:id?depth=1..3 (the entity and
 * its neighbourhood), GET /v1/schema (entity types, relation types and memory kinds with counts).
 * Each takes `user_id` and `dataset`: an entity of another user (or dataset) is not found.
 */
export function graphRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/v1/graph/entities', async (req) => {
    const { q, limit, user_id, dataset } = parseInput(EntitySearchQuery, req.query, 'query parameters');
    const needle = q ? normalizeText(q) : undefined;
    const entities = await withTenant(deps.db, req.tenantId, (tx) =>
      searchEntities(tx, needle || undefined, q ? ftsQuery(q) : [], limit, { userId: user_id, dataset }),
    );
    return { entities };
  });

  app.get<{ Params: { id: string } }>('/v1/graph/entities/:id', async (req) => {
    const { depth, user_id, dataset } = parseInput(EntityQuery, req.query, 'query parameters');
    const id = req.params.id.toLowerCase();
    if (!isUuid(id)) throw new InputError('Invalid entity id.', [{ path: 'id', message: 'a UUID' }]);
    const answer = await withTenant(deps.db, req.tenantId, async (tx) => {
      const entity = await findEntity(tx, id, { userId: user_id, dataset });
      if (!entity) return undefined;
      return { entity, depth, ...(await entityNeighbourhood(tx, id, { depth, fanout: FANOUT, maxNodes: MAX_NODES })) };
    });
    if (!answer) throw new MemloomError('NOT_FOUND', 'No entity with this id.', { kind: 'not_found', details: { id } });
    return answer;
  });

  app.get('/v1/schema', async (req) => {
    const { user_id, dataset } = parseInput(SchemaQuery, req.query, 'query parameters');
    return withTenant(deps.db, req.tenantId, (tx) => schemaCounts(tx, { userId: user_id, dataset }));
  });
}
