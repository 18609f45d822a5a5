import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { giveFeedback } from '../../../src/memories/feedback.js';
import { FeedbackInput, parseInput } from '../../../src/memories/schema.js';

/**
 * POST /v1/feedback {recall_id, score 1–5, text?} → 201 with the stored feedback (and the
 * `feedback` event a positive score became); 200 `{duplicate: true}` when the recall already has
 * feedback (nothing is added); 404 for an unknown recall.
 */
export function feedbackRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/feedback', async (req, reply) => {
    const result = await giveFeedback(deps, req.tenantId, parseInput(FeedbackInput, req.body, 'feedback'));
    return reply.status(result.duplicate ? 200 : 201).send(result);
  });
}
