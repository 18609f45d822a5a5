import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { WorkingMemoryQuery, parseInput } from '../../../src/memories/schema.js';
import { readWorkingMemory } from '../../../src/memories/working-memory.js';

/**
 * GET /v1/working-memory?user_id=&budget_tokens= → the user's digest as text/markdown (the same
 * text as MEMLOOM_HOME/working-memory/<user>.md, or trimmed to budget_tokens); 404 while there is
 * none (nothing to say yet).
 */
export function workingMemoryRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/v1/working-memory', async (req, reply) => {
    const { user_id, budget_tokens } = parseInput(WorkingMemoryQuery, req.query, 'query parameters');
    const wm = await readWorkingMemory(deps, req.tenantId, user_id, budget_tokens);
    return reply.type('text/markdown; charset=utf-8').header('last-modified', wm.refreshed_at.toUTCString()).send(wm.markdown);
  });
}
