import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../../src/deps.js';
import { withTenant } from '../../../src/db/pool.js';
import { entityNeighbourhood, findEntity, schemaCounts, searchEntities } from '../../../src/db/sql/graph-read.js';
import { ftsQuery, normalizeText } from '../../../src/domain/text.js';
import { InputError, MemloomError } from '../../../src/errors.js';
import { storableText } from '../../../src/input.js';
import { isUuid } from '../../../src/memories/read.js';

/** Bounds of one neighbourhood answer: work is at most FANOUT^depth edge visits. */
const FANOUT = 25;
const MAX_NODES = 200;

const SearchQuery = z
  .object({
    q: storableText(200).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();

const EntityQuery = z
  .object({
    depth: z.coerce.number().int().min(1).max(3, 'at most 3').default(1),
  })
  .strict();

function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw new InputError('Invalid query parameters.', parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
  return parsed.data;
}

/**
 * GET /v1/graph/entities?q= (fuzzy by name), GET /v1/graph/entities/:id?depth=1..3 (the entity and
 * its neighbourhood), GET /v1/schema (entity types, relation types and memory kinds with counts).
 */
export function graphRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/v1/graph/entities', async (req) => {
    const { q, limit } = parse(SearchQuery, req.query);
    const needle = q ? normalizeText(q) : undefined;
    const entities = await withTenant(deps.db, req.tenantId, (tx) => searchEntities(tx, needle || undefined, q ? ftsQuery(q) : [], limit));
    return { entities };
  });

  app.get<{ Params: { id: string } }>('/v1/graph/entities/:id', async (req) => {
    const { depth } = parse(EntityQuery, req.query);
    const id = req.params.id.toLowerCase();
    if (!isUuid(id)) throw new InputError('Invalid entity id.', [{ path: 'id', message: 'a UUID' }]);
    const answer = await withTenant(deps.db, req.tenantId, async (tx) => {
      const entity = await findEntity(tx, id);
      if (!entity) return undefined;
      return { entity, depth, ...(await entityNeighbourhood(tx, id, { depth, fanout: FANOUT, maxNodes: MAX_NODES })) };
    });
    if (!answer) throw new MemloomError('NOT_FOUND', 'No entity with this id.', { kind: 'not_found', details: { id } });
    return answer;
  });

  app.get('/v1/schema', async (req) => withTenant(deps.db, req.tenantId, (tx) => schemaCounts(tx)));
}
