import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { InputError } from '../../../src/errors.js';
import { AccessRecorder } from '../../../src/recall/access.js';
import { recall } from '../../../src/recall/index.js';
import { RecallInput } from '../../../src/recall/schema.js';
import { contextRoutes } from './context.js';

export function recallRoutes(app: FastifyInstance, deps: Deps): void {
  const access = new AccessRecorder(deps.db, deps.log.child({ component: 'access' }));
  app.addHook('onClose', async () => access.flush());

  app.post('/v1/recall', async (req) => {
    const parsed = RecallInput.safeParse(req.body);
    if (!parsed.success) {
      throw new InputError(
        'Invalid recall request.',
        parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      );
    }
    return recall(deps, req.tenantId, parsed.data, (ids) => access.record(req.tenantId, ids));
  });
  // The context block is a recall too: the same access signals.
  contextRoutes(app, deps, access);
}
