import { answeredCode, MemloomError } from '../../src/errors.js';
import type { MemloomApi } from '../client/api.js';
import type { ForgetAnswer } from '../client/types.js';
import type { MemloomClient } from '../client/index.js';
import type { McpBackend } from './tools.js';

/**
 * The tools over the client. `buffered` (stdio): remember goes through `event()`, which returns at
 * once and retries or spills to the events directory when the API is away. `direct` (/mcp inside
 * the API): remember awaits the durable write, a few milliseconds in-process.
 */
export function clientBackend(api: MemloomApi & Partial<Pick<MemloomClient, 'event'>>, mode: 'buffered' | 'direct'): McpBackend {
  return {
    async remember(event) {
      if (mode === 'buffered' && api.event) return { id: api.event(event), status: 'queued' };
      const answer = await api.sendEvents(event);
      const id = answer.ids[0];
      if (!id)
        throw new MemloomError(
          answer.error?.code ? answeredCode(answer.error.code) : 'INPUT_INVALID',
          answer.error?.details.map((d) => `${d.path || 'event'}: ${d.message}`).join('; ') ?? 'The event was rejected.',
          { kind: 'input' },
        );
      return { id, status: 'stored' };
    },
    recall: (r) => api.recall(r),
    context: (r) => api.context(r),
    forget: (scope) => ('id' in scope ? forgetResult(api, scope.id) : api.forget(scope)),
    workingMemory: (userId, budgetTokens) => api.workingMemory(userId, budgetTokens),
  };
}

/**
 * A recall result's id: a memory (`memories`, `auto`) is deleted; a chunk (`chunks`, `auto`) is
 * forgotten with the event it was cut from. Ids are UUIDs of either table, so the memory is tried
 * first and an unknown one falls through to the chunk; neither is `nothing_to_forget`.
 */
async function forgetResult(api: MemloomApi, id: string): Promise<ForgetAnswer> {
  try {
    return await api.memories.delete(id);
  } catch (err) {
    if (!(err instanceof MemloomError) || err.code !== 'MEMORY_NOT_FOUND') throw err;
  }
  return api.forget({ chunk_id: id });
}
