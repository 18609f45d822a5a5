import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../src/deps.js';
import { withTenant } from '../../../src/db/pool.js';
import { vectorsByModel } from '../../../src/db/sql/reembed.js';
import { countObjects } from '../../../src/db/sql/stats.js';

export interface Readiness {
  /** Extra checks (e.g. provider readiness of local workers); each answers ok or a reason. */
  checks: Array<() => Promise<{ name: string; ok: boolean; reason?: string }>>;
}

const QUEUE_COUNTS_TIMEOUT_MS = 2000;

export function opsRoutes(app: FastifyInstance, deps: Deps, readiness: Readiness): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_req, reply) => {
    const results = await Promise.all([
      probe('database', async () => void (await deps.db.query('SELECT 1'))),
      probe('queue', async () => void (await deps.queues.get('triage').getJobCounts('waiting'))),
      ...readiness.checks.map((check) => check().catch((err: Error) => ({ name: 'check', ok: false, reason: err.message }))),
    ]);
    const ready = results.every((r) => r.ok);
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks: results });
  });

  app.get('/v1/stats', async (req) => {
    // The queue backend may be down (writes still answer 202): the stored counts are still the
    // truth, so they are answered without the queue's, flagged, rather than after the outage.
    const queueCounts = withTimeout(deps.queues.counts(), QUEUE_COUNTS_TIMEOUT_MS).then(
      (counts) => ({ counts }),
      () => ({ counts: {} }),
    );
    const [{ objects, pending_events, byModel }, queues] = await Promise.all([
      withTenant(deps.db, req.tenantId, async (tx) => ({ ...(await countObjects(tx)), byModel: await vectorsByModel(tx) })),
      queueCounts,
    ]);
    const { model, dimensions: dims } = deps.providers.embeddings;
    const otherModel = byModel.filter((r) => r.model !== model || r.dims !== dims).reduce((n, r) => n + r.rows, 0);
    const vectors = { model, dims, by_model: byModel, other_model: otherModel };
    return { objects, queues: queues.counts, pending_events, vectors, ...(Object.keys(queues.counts).length === 0 ? { queues_unavailable: true } : {}) };
  });
}

async function probe(name: string, fn: () => Promise<void>): Promise<{ name: string; ok: boolean; reason?: string }> {
  try {
    await withTimeout(fn(), 3000);
    return { name, ok: true };
  } catch (err) {
    return { name, ok: false, reason: (err as Error).message };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
