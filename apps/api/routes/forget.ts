import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { InputError } from '../../../src/errors.js';
import { ForgetScope, forget, forgetMemory } from '../../../src/forget/index.js';
import { MemoryId } from '../../../src/memories/schema.js';

/**
 * POST /v1/forget {event_id | chunk_id | session_id | user_id | dataset} (exactly one) → 200 with the counts
 * removed per object type; a second call answers `nothing_to_forget: true`.
 * DELETE /v1/memories/:id → 200 with what went; 404 for an unknown (or already deleted) memory.
 */
export function forgetRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/forget', async (req) => {
    const parsed = ForgetScope.safeParse(req.body ?? {});
    if (!parsed.success) {
      throw new InputError(
        'Invalid forget request: give exactly one of event_id, chunk_id, session_id, user_id, dataset.',
        parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      );
    }
    return forget(deps, req.tenantId, parsed.data);
  });

  app.delete<{ Params: { id: string } }>('/v1/memories/:id', async (req) => {
    const id = MemoryId.safeParse(req.params.id);
    if (!id.success) throw new InputError('Invalid memory id.', [{ path: 'id', message: 'a UUID' }]);
    return forgetMemory(deps, req.tenantId, id.data.toLowerCase());
  });
}
