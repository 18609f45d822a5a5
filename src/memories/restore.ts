import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import { restoreMemory } from '../db/sql/lifecycle.js';
import { MemloomError } from '../errors.js';
import { memoryNotFound } from './correct.js';
import { MemoryId } from './schema.js';
import { refreshWorkingMemory } from './working-memory.js';

/**
 * POST /v1/memories/:id/restore — brings an archived memory back into default recall. Restoring an
 * active memory changes nothing (idempotent); a superseded version cannot be restored (correct
 * the current version instead), nor one whose content another active memory already holds.
 */
export async function restoreArchived(deps: Deps, tenantId: string, id: string): Promise<{ id: string; status: 'active'; restored: boolean }> {
  if (!MemoryId.safeParse(id).success) throw memoryNotFound(id);
  const r = await withTenant(deps.db, tenantId, (tx) => restoreMemory(tx, id));
  switch (r.outcome) {
    case 'restored':
      // Back among the current memories: the working memory may show it again.
      await refreshWorkingMemory(deps, tenantId, r.userKey);
      return { id: r.id, status: 'active', restored: true };
    case 'already_active':
      return { id: r.id, status: 'active', restored: false };
    case 'not_found':
      throw memoryNotFound(id);
    case 'not_archived':
      throw new MemloomError('MEMORY_NOT_ARCHIVED', `Only an archived memory can be restored; this one is ${r.status}.`, {
        kind: 'conflict',
        details: { id, status: r.status },
      });
    case 'conflict':
      throw new MemloomError('MEMORY_CONFLICT', 'Another active memory of this scope already says this.', {
        kind: 'conflict',
        details: { id, existing_id: r.existingId },
      });
  }
}
