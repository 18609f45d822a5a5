import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../src/config.js';
import { createDeps, type Deps } from '../../../src/deps.js';
import type { EmbeddedDatabase } from '../../../src/db/embedded.js';
import type { Logger } from '../../../src/logger.js';
import { startWorkers, type RunningWorkers } from '../../../src/queue/runner.js';
import { startScheduler, type RunningScheduler } from '../../../src/queue/scheduler.js';
import type { QueueName } from '../../../src/queue/names.js';
import { CATALOG } from '../../../workers/catalog.js';
import { buildServer } from '../../api/server.js';
import { startWatcher, type RunningWatcher } from '../../watcher/watcher.js';
import { startMetricsServer, type MetricsServer } from '../../../src/metrics-server.js';
import { preflight } from '../preflight.js';
import { defaultUrl } from '../remote.js';

export interface Roles {
  api: boolean;
  watcher: boolean;
  workers: readonly QueueName[];
  scheduler: boolean;
}

export interface Running {
  deps: Deps;
  app: FastifyInstance | undefined;
  /** Stop everything in order: stop intake, drain workers, close connections. */
  stop(): Promise<void>;
}

/**
 * Starts the requested roles in this process; `memloom start` runs them all on one deps.
 * `embedded`: the embedded database, already opened by the caller (serve.ts) after its own
 * preflight; it then belongs to the deps, which stop it.
 */
export async function startRoles(
  config: Config,
  log: Logger,
  roles: Roles,
  opts: { inMemory?: boolean; queuePrefix?: string; embedded?: EmbeddedDatabase } = {},
): Promise<Running> {
  if (!opts.embedded) await preflight(config, roles, opts);
  const deps = await createDeps(config, log, opts);
  if (process.platform === 'linux' && process.env.MALLOC_ARENA_MAX === undefined)
    log.info('MALLOC_ARENA_MAX is not set: with MALLOC_ARENA_MAX=2 (npm start and the image set it) RSS under load is ~70 MB lower (docs/operations.md)');
  let app: FastifyInstance | undefined;
  let workers: RunningWorkers | undefined;
  let scheduler: RunningScheduler | undefined;
  let watcher: RunningWatcher | undefined;
  let metricsServer: MetricsServer | undefined;
  try {
    // They consume once the API listens (below): their first claims would hold PGlite's session before /readyz.
    if (roles.workers.length > 0) workers = startWorkers(deps, CATALOG, roles.workers, { autorun: false });
    const running = workers;
    // These steps mostly wait on the database; the API's routes are built on this thread meanwhile
    // (~0.3 s of CPU), and the API listens once both are done.
    const starting = (async () => {
      if (roles.scheduler) scheduler = await startScheduler(deps);
      // On BullMQ's PostgreSQL backend, every queue and worker connection checks the queue
      // schema's version on its first use (createDeps migrated it once). Done here, before events
      // are accepted, so the first events do not wait for it. (Redis is not awaited: events are
      // stored first and enqueued once Redis answers.)
      if (deps.queues.backend.kind === 'postgres') {
        await Promise.all([...deps.queues.all(), ...(running?.workers ?? [])].map((q) => q.waitUntilReady()));
      }
      if (roles.watcher) watcher = await startWatcher(deps);
    })();
    // Handled here (awaited below, after the API is built): a failure meanwhile is no unhandled rejection.
    const settled = starting.catch(() => undefined);
    try {
      // /readyz reports this process's workers' provider readiness too.
      if (roles.api) app = await buildServer(deps, { readiness: { checks: running?.readiness.checks ?? [] }, workers: running?.workers ?? [] });
    } catch (err) {
      // The roles still starting settle first, so the cleanup below stops each one that started.
      await settled;
      throw err;
    }
    await starting;
    if (app) {
      await app.listen({ host: config.HOST, port: config.PORT });
      const port = (app.server.address() as { port: number }).port;
      log.info({ url: `http://${config.HOST}:${port}`, console: '/', docs: '/docs', admin: '/admin/queues' }, 'memloom api listening');
      // CLI commands on this MEMLOOM_HOME find the API in the data directory's lock and go there.
      await deps.embedded?.advertise(defaultUrl({ ...config, PORT: port }));
    }
    workers?.run();
    // A port of its own for Prometheus, in any process: a scraper that cannot send the admin key
    // (pod annotations) reads it there, on a port the Service does not expose.
    if (config.METRICS_PORT !== undefined && !(roles.api && config.METRICS_PORT === config.PORT)) {
      metricsServer = await startMetricsServer(deps.metrics, config.HOST, config.METRICS_PORT, config.MEMLOOM_ADMIN_KEYS);
      log.info({ url: `http://${config.HOST}:${metricsServer.port}/metrics` }, 'metrics listening');
    }
  } catch (err) {
    await app?.close().catch(() => undefined);
    await metricsServer?.close().catch(() => undefined);
    await watcher?.close().catch(() => undefined);
    await workers?.close().catch(() => undefined);
    await scheduler?.close().catch(() => undefined);
    await deps.close().catch(() => undefined);
    throw err;
  }
  return {
    deps,
    app,
    async stop() {
      await app?.close();
      await metricsServer?.close();
      await watcher?.close();
      await scheduler?.close();
      await workers?.close();
      await deps.close();
    },
  };
}
