import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import type { GateStateRow } from '../../../src/metrics.js';

/**
 * GET /metrics — Prometheus text format of this process's registry (public, like /healthz).
 * GET /v1/budget — the caller's token budgets, provider rate windows and background task quota,
 * read from the shared gate state (the same figures as the memloom_budget_* gauges).
 */
export function metricsRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/metrics', async (_req, reply) => {
    const body = await deps.metrics.registry.metrics();
    return reply.header('content-type', deps.metrics.registry.contentType).send(body);
  });

  app.get('/v1/budget', async (req) => {
    const rows = await deps.gate.state([req.tenantId]);
    const figure = (r: GateStateRow | undefined) => (r ? { limit: r.limit, used: r.used, remaining: Math.max(0, r.limit - r.used) } : null);
    const find = (what: GateStateRow['what'], labels: Record<string, string>) =>
      rows.find((r) => r.what === what && Object.entries(labels).every(([k, v]) => r.labels[k] === v));
    return {
      tenant: req.tenantId,
      window_ms: { hour: deps.config.BUDGET_WINDOW_MS, day: 24 * deps.config.BUDGET_WINDOW_MS, rate: deps.config.RATE_WINDOW_MS },
      per_task: deps.config.TOKEN_BUDGET_PER_TASK,
      tokens: {
        tenant: { hour: figure(find('tokens', { scope: 'tenant', window: 'hour' })), day: figure(find('tokens', { scope: 'tenant', window: 'day' })) },
        global: { hour: figure(find('tokens', { scope: 'global', window: 'hour' })), day: figure(find('tokens', { scope: 'global', window: 'day' })) },
      },
      rate: {
        llm: { requests: figure(find('rate', { provider: 'llm', unit: 'requests' })), tokens: figure(find('rate', { provider: 'llm', unit: 'tokens' })) },
        embeddings: {
          requests: figure(find('rate', { provider: 'embeddings', unit: 'requests' })),
          tokens: figure(find('rate', { provider: 'embeddings', unit: 'tokens' })),
        },
      },
      tasks: figure(find('tasks', {})),
    };
  });
}
