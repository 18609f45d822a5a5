import type { FastifyInstance } from 'fastify';
import { buildContext } from '../../../src/context/index.js';
import { ContextInput } from '../../../src/context/schema.js';
import type { Deps } from '../../../src/deps.js';
import { InputError } from '../../../src/errors.js';
import type { AccessRecorder } from '../../../src/recall/access.js';

/** POST /v1/context: a token-budgeted block of current facts and dated evidence for a prompt (docs/api.md "Context block"). */
export function contextRoutes(app: FastifyInstance, deps: Deps, access: AccessRecorder): void {
  app.post('/v1/context', async (req) => {
    const parsed = ContextInput.safeParse(req.body);
    if (!parsed.success) {
      throw new InputError(
        'Invalid context request.',
        parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      );
    }
    return buildContext(deps, req.tenantId, parsed.data, (ids) => access.record(req.tenantId, ids));
  });
}
