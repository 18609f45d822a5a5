import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../../src/deps.js';
import { MEMORY_STATUSES } from '../../../src/db/sql/memories-read.js';
import { InputError } from '../../../src/errors.js';
import { identifier, storableText } from '../../../src/input.js';
import { getMemoryDetail, isUuid, listMemoriesPage } from '../../../src/memories/read.js';
import { MEMORY_KINDS } from '../../../src/providers/llm/types.js';

const scopeId = identifier(200);

const ListQuery = z
  .object({
    user_id: scopeId.optional(),
    agent_id: scopeId.optional(),
    session_id: scopeId.optional(),
    dataset: scopeId.optional(),
    /** One kind or a comma-separated list. */
    kind: z
      .string()
      .transform((s) => s.split(',').map((k) => k.trim()).filter((k) => k !== ''))
      .pipe(z.array(z.enum(MEMORY_KINDS, { error: `one of ${MEMORY_KINDS.join(', ')}` })).min(1))
      .optional(),
    status: z.enum([...MEMORY_STATUSES, 'all']).default('active'),
    conflicts: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
    q: storableText(1000).pipe(z.string().min(1)).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z.string().min(1).max(200).optional(),
  })
  .strict();

function parse<T extends z.ZodType>(schema: T, value: unknown, message: string): z.infer<T> {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw new InputError(message, parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
  return parsed.data;
}

/**
 * GET /v1/memories — newest first with filters; page with `cursor=<next_cursor>` (null on the last
 * page). GET /v1/memories/:id — one memory with provenance, version chain, relations and entities.
 */
export function memoryRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/v1/memories', async (req) => {
    const q = parse(ListQuery, req.query, 'Invalid query parameters.');
    return listMemoriesPage(deps, req.tenantId, { ...q, kinds: q.kind });
  });

  app.get<{ Params: { id: string } }>('/v1/memories/:id', async (req) => {
    const { id } = req.params;
    if (!isUuid(id)) throw new InputError('Invalid memory id.', [{ path: 'id', message: 'a UUID' }]);
    return getMemoryDetail(deps, req.tenantId, id.toLowerCase());
  });
}
