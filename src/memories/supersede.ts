import type { Deps } from '../deps.js';
import { withTenant } from '../db/pool.js';
import { lockMemory, supersedeByChoice } from '../db/sql/correct.js';
import { InputError, MemloomError } from '../errors.js';
import { memoryNotFound } from './correct.js';
import { MemoryId } from './schema.js';
import { refreshWorkingMemory } from './working-memory.js';

export interface Supersession {
  id: string;
  status: 'superseded';
  superseded_by: string;
}

/**
 * POST /v1/memories/:id/supersede {by} — settles a conflict the pipeline leaves open (two active
 * memories in a `challenges` relation): `id` is superseded by `by`. Both must be active and of the
 * same user; the rows are locked in id order, so two opposite choices at once give one success and
 * one 409. The working memory is rebuilt after the commit, as after a correction.
 */
export async function supersedeMemory(deps: Deps, tenantId: string, id: string, by: string): Promise<Supersession> {
  if (!MemoryId.safeParse(id).success) throw memoryNotFound(id);
  if (id === by) throw new InputError('A memory cannot supersede itself.', [{ path: 'by', message: 'the id of another memory' }]);
  const userKey = await withTenant(deps.db, tenantId, async (tx) => {
    const [first, second] = [id, by].sort();
    const locked = new Map([
      [first, await lockMemory(tx, first as string)],
      [second, await lockMemory(tx, second as string)],
    ]);
    const loser = locked.get(id);
    const winner = locked.get(by);
    if (!loser) throw memoryNotFound(id);
    if (!winner) throw memoryNotFound(by);
    for (const m of [loser, winner]) {
      if (m.status !== 'active')
        throw new MemloomError('MEMORY_NOT_ACTIVE', `Only active memories can be chosen between; ${m.id} is ${m.status}.`, {
          kind: 'conflict',
          details: { id: m.id, status: m.status },
        });
    }
    if (loser.user_id !== winner.user_id)
      throw new MemloomError('MEMORY_SCOPE_MISMATCH', 'The two memories belong to different users.', { kind: 'conflict', details: { id, by } });
    await supersedeByChoice(tx, id, by);
    return loser.user_id ?? '';
  });
  await refreshWorkingMemory(deps, tenantId, userKey);
  return { id, status: 'superseded', superseded_by: by };
}
