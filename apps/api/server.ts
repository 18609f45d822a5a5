import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Worker } from 'bullmq';
import type { Deps } from '../../src/deps.js';
import { resolveTenant } from './auth.js';
import { registerBullBoard } from './bull-board.js';
import { runAsApi } from '../../src/db/priority.js';
import { errorHandler } from './errors.js';
import { opsRoutes, type Readiness } from './routes/ops.js';
import { eventRoutes } from './routes/events.js';
import { recallRoutes } from './routes/recall.js';
import { deadLetterRoutes } from './routes/dead-letters.js';
import { doctorRoutes } from './routes/doctor.js';
import { memoryRoutes } from './routes/memories.js';
import { graphRoutes } from './routes/graph.js';
import { forgetRoutes } from './routes/forget.js';
import { correctRoutes } from './routes/correct.js';
import { feedbackRoutes } from './routes/feedback.js';
import { workingMemoryRoutes } from './routes/working-memory.js';
import { metricsRoutes } from './routes/metrics.js';
import { jobRoutes } from './routes/jobs.js';
import { registerStrictJson } from './json.js';
import { docsRoutes } from './routes/docs.js';
import { browseRoutes } from './routes/browse.js';
import { consoleRoutes } from './routes/console.js';
import { exportRoutes } from './routes/export.js';
import { mcpRoutes } from '../mcp/http.js';
import { VERSION } from './version.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered (method, url), for the OpenAPI catalog's test. */
    routeTable: Array<{ method: string; url: string }>;
  }
}

export interface ApiOptions {
  readiness?: Readiness;
  /** This process's workers, which Bull Board lists on BullMQ's PostgreSQL backend. */
  workers?: readonly Worker[];
}

/** A route as registered (tests enumerate them, so a new route is fuzzed and tenant-tested automatically). */
export interface RegisteredRoute {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: RegisteredRoute[];
  }
}

/** Builds the HTTP API; routes are thin adapters over src/ (no SQL, no prompts here). */
export async function buildServer(deps: Deps, opts: ApiOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log.child({ component: 'api' }) as unknown as FastifyBaseLogger,
    // Per-request logs would dominate at thousands of events/s; errors are logged at the boundary.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    genReqId: () => crypto.randomUUID(),
    // A path that is not valid percent-encoding is the client's error, answered in our format.
    frameworkErrors: (err, req, reply) => errorHandler(err, req, reply),
  });
  const routes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', routes);
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) if (method !== 'HEAD') routes.push({ method, url: r.url });
  });
  const routeTable: Array<{ method: string; url: string }> = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) routeTable.push({ method, url: r.url });
  });
  // On the embedded database the statements of a request go before background work's (src/db/priority.ts);
  // again before the handler, in case body parsing continued in another async context.
  app.addHook('onRequest', (_req, _reply, done) => runAsApi(done));
  app.addHook('preHandler', (_req, _reply, done) => runAsApi(done));
  app.decorateRequest('tenantId', '');
  app.addHook('onRequest', async (req, reply) => {
    try {
      req.tenantId = resolveTenant(deps.config, req);
    } catch (err) {
      // Answered here, not thrown: a plugin's own error handler (Bull Board's answers 500) must
      // not turn a missing key into a server error.
      errorHandler(err as Error, req, reply);
      return reply;
    }
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send({ error: { code: 'NOT_FOUND', message: `No route ${req.method} ${req.url.split('?')[0]}` } });
  });
  registerStrictJson(app);
  opsRoutes(app, deps, opts.readiness ?? { checks: [] });
  eventRoutes(app, deps);
  recallRoutes(app, deps);
  deadLetterRoutes(app, deps);
  forgetRoutes(app, deps);
  memoryRoutes(app, deps);
  graphRoutes(app, deps);
  correctRoutes(app, deps);
  feedbackRoutes(app, deps);
  workingMemoryRoutes(app, deps);
  metricsRoutes(app, deps);
  doctorRoutes(app, deps);
  jobRoutes(app, deps);
  exportRoutes(app, deps);
  browseRoutes(app, deps);
  consoleRoutes(app);
  mcpRoutes(app, VERSION);
  await docsRoutes(app);
  await registerBullBoard(app, deps.queues, { local: opts.workers ?? [], server: deps.embedded ? undefined : deps.db, startedAt: Date.now() });
  return app;
}
