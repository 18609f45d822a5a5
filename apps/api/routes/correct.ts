import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { InputError } from '../../../src/errors.js';
import { correctMemory } from '../../../src/memories/correct.js';
import { restoreArchived } from '../../../src/memories/restore.js';
import { CorrectInput, MemoryId, parseInput, SupersedeInput } from '../../../src/memories/schema.js';
import { supersedeMemory } from '../../../src/memories/supersede.js';

function memoryId(raw: string): string {
  const id = MemoryId.safeParse(raw);
  if (!id.success) throw new InputError('Invalid memory id.', [{ path: 'id', message: 'a UUID' }]);
  return id.data.toLowerCase();
}

/**
 * PATCH /v1/memories/:id {content, kind?, importance?} → 200 with the new version; the old one is
 * superseded (readable in the version chain and through recall's as_of). 404 unknown, 409 not the
 * active version. POST /v1/memories/:id/restore → 200; brings an archived memory back.
 * POST /v1/memories/:id/supersede {by} → 200; settles a conflict: `by` is kept, :id superseded.
 */
export function correctRoutes(app: FastifyInstance, deps: Deps): void {
  app.patch<{ Params: { id: string } }>('/v1/memories/:id', async (req) => {
    const id = memoryId(req.params.id);
    return correctMemory(deps, req.tenantId, id, parseInput(CorrectInput, req.body, 'correction'));
  });

  app.post<{ Params: { id: string } }>('/v1/memories/:id/supersede', async (req) => {
    const { by } = parseInput(SupersedeInput, req.body, 'supersede request');
    return supersedeMemory(deps, req.tenantId, memoryId(req.params.id), by.toLowerCase());
  });

  app.post<{ Params: { id: string } }>('/v1/memories/:id/restore', async (req) => restoreArchived(deps, req.tenantId, memoryId(req.params.id)));
}
