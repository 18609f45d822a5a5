import pg from 'pg';
import { isEmbedded, type Config } from './config.js';
import type { Logger } from './logger.js';
import { AutoAnalyze } from './db/auto-analyze.js';
import { openEmbeddedDatabase, type EmbeddedDatabase } from './db/embedded.js';
import { upgradeFullTextKeys } from './db/fts-upgrade.js';
import { upgradeSlots } from './db/slot-upgrade.js';
import { ensureTenants, migrate } from './db/migrator.js';
import { createPool, listTenants, type Db } from './db/pool.js';
import { EMBEDDED_ANN_MIN_ROWS, ensureVectorIndexes } from './db/vector-index.js';
import { createQueueBackend } from './queue/backend.js';
import { Queues } from './queue/queues.js';
import { Dispatcher } from './queue/dispatcher.js';
import { createProviders, LLM_MAX_OUTPUT_TOKENS, type Providers } from './providers/index.js';
import { createMetrics, type Metrics } from './metrics.js';
import { Gate } from './providers/gate.js';
import { PgGateStore, type GateStore } from './providers/gate-store.js';
import { RedisGateStore } from './providers/gate-redis.js';
import { gateProviders } from './providers/gated.js';

/**
 * Everything a component needs, built once per process by its entrypoint and passed down.
 * No module-level singletons: tests build their own with createDeps(config).
 */
export interface Deps {
  config: Config;
  log: Logger;
  /** Application pool, role memloom_app, row-level security applies. */
  db: Db;
  /** URL of the database (the embedded server's loopback URL in embedded mode). */
  dbUrl: string;
  queues: Queues;
  /** Hands committed events to the triage queue off the request path. */
  dispatcher: Dispatcher;
  /** Paid providers are behind `gate` (src/providers/gated.ts); local ones are not gated. */
  providers: Providers;
  /** The shared provider gate: rate limits, budgets, concurrency (state in Redis or PostgreSQL). */
  gate: Gate;
  /** This process's Prometheus registry and metrics (GET /metrics). */
  metrics: Metrics;
  embedded: EmbeddedDatabase | undefined;
  close(): Promise<void>;
}

/** How often embedded mode looks for tables to ANALYZE (a look costs 1–3 ms of PGlite's time). */
const AUTO_ANALYZE_INTERVAL_MS = 2000;

export interface CreateDepsOptions {
  /** Tests: keep the embedded database in memory. */
  inMemory?: boolean;
  /** Redis key prefix for BullMQ; tests pass a fresh one per file. */
  queuePrefix?: string;
  /** The embedded database, opened by the caller (`memloom start` opens it while the rest loads); the deps stop it. */
  embedded?: EmbeddedDatabase;
}

export async function createDeps(config: Config, log: Logger, opts: CreateDepsOptions = {}): Promise<Deps> {
  let embedded: EmbeddedDatabase | undefined;
  let dbUrl: string;
  if (isEmbedded(config)) {
    embedded = opts.embedded ?? (await openEmbeddedDatabase(config, log, opts));
    dbUrl = embedded.url;
  } else {
    dbUrl = config.DATABASE_URL as string;
  }
  try {
    const rawProviders = await createProviders(config, log.child({ component: 'providers' }));
    await prepareDatabase(dbUrl, config, rawProviders, embedded !== undefined, log);
    await embedded?.dropPrivileges();
    const stream = embedded ? () => (embedded as EmbeddedDatabase).connect() : undefined;
    const db = createPool(dbUrl, { setRole: embedded === undefined, max: embedded ? 20 : 10, stream });
    // A server runs autovacuum; PGlite does not, and would never have planner statistics.
    // It also builds the vector indexes that embedded mode leaves out while tables are small.
    const autoAnalyze = embedded
      ? new AutoAnalyze(db, log.child({ component: 'auto-analyze' }), AUTO_ANALYZE_INTERVAL_MS, {
          dims: rawProviders.embeddings.dimensions,
          minRows: EMBEDDED_ANN_MIN_ROWS,
        })
      : undefined;
    const backend = createQueueBackend({ redisUrl: config.REDIS_URL, databaseUrl: dbUrl, prefix: opts.queuePrefix ?? config.QUEUE_PREFIX, stream });
    await backend.migrate();
    const queues = new Queues(backend);
    const dispatcher = new Dispatcher({ db, queues, log });
    const metrics = createMetrics({ tenantLabels: config.METRICS_TENANT_LABELS });
    const gateStore: GateStore = config.REDIS_URL ? new RedisGateStore(config.REDIS_URL, backend.prefix) : new PgGateStore(db);
    const gate = new Gate({ config, db, store: gateStore, metrics, log: log.child({ component: 'gate' }) });
    const providers = gateProviders(rawProviders, gate, {
      embeddingsBatchSize: config.EMBEDDINGS_BATCH_SIZE,
      embeddingsCoalesceMs: config.EMBEDDINGS_COALESCE_MS,
      llmMaxOutputTokens: LLM_MAX_OUTPUT_TOKENS,
      embeddingsProvider: config.EMBEDDINGS_PROVIDER,
      llmProvider: config.LLM_PROVIDER,
    });
    metrics.bind({
      log,
      queueCounts: () => queues.counts(),
      ...(embedded ? { sessionStats: () => (embedded as EmbeddedDatabase).sessionStats() } : {}),
      // Tenant ids appear as labels only when asked for (METRICS_TENANT_LABELS).
      gateState: async () => gate.state(config.METRICS_TENANT_LABELS ? (await listTenants(db)).slice(0, 100) : []),
    });
    return {
      config,
      log,
      db,
      dbUrl,
      queues,
      dispatcher,
      providers,
      gate,
      metrics,
      embedded,
      async close() {
        await dispatcher.close();
        await queues.close();
        await providers.close();
        await gateStore.close();
        await autoAnalyze?.close();
        await db.end().catch(() => undefined);
        await embedded?.stop();
      },
    };
  } catch (err) {
    await embedded?.stop().catch(() => undefined);
    throw err;
  }
}

/**
 * Migrations, tenants, full-text keys of an older tokenizer and vector indexes, as the database owner, before the app role takes over.
 * A server gets every vector index now; embedded mode leaves them to AutoAnalyze (tables past EMBEDDED_ANN_MIN_ROWS rows).
 */
async function prepareDatabase(url: string, config: Config, providers: Providers, embedded: boolean, log: Logger): Promise<void> {
  const owner = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await owner.connect();
  try {
    await migrate(owner, log.child({ component: 'migrate' }));
    await ensureTenants(owner, config.MEMLOOM_API_KEYS.values());
    await upgradeFullTextKeys(owner, log.child({ component: 'migrate' }));
    await upgradeSlots(owner, log.child({ component: 'migrate' }));
    // Embedded mode: an AutoAnalyze pass ~10 s later builds those of tables past
    // EMBEDDED_ANN_MIN_ROWS (searches are exact without them), so /readyz does not wait for it.
    if (!embedded) await ensureVectorIndexes(owner, providers.embeddings.dimensions, 0, log);
  } finally {
    await owner.end();
  }
}
