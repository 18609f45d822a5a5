import {
  Queue,
  Worker,
  withBackend,
  createPostgresBackend,
  runMigrations,
  type ConnectionOptions,
  type Processor,
  type WorkerOptions,
  type QueueOptions,
} from 'bullmq';
import type { Duplex } from 'node:stream';
import pg from 'pg';
import type { QueueName } from './names.js';

export type QueueBackendKind = 'redis' | 'postgres';

/**
 * Builds BullMQ queues and workers on Redis (REDIS_URL set) or on BullMQ's PostgreSQL backend
 * (the same database as the data). Both expose the same Queue / Worker API to the rest of the code.
 */
export interface QueueBackend {
  kind: QueueBackendKind;
  /** Redis key prefix / a label for the PostgreSQL backend; tests use a fresh one per file. */
  prefix: string;
  /** Brings the queue schema up to date (PostgreSQL), once, before any queue or worker connects. */
  migrate(): Promise<void>;
  createQueue(name: QueueName): Queue;
  createWorker(
    name: QueueName,
    processor: Processor,
    opts: Pick<WorkerOptions, 'concurrency' | 'autorun' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount' | 'limiter'>,
  ): Worker;
}

/** A limiter max no queue reaches in its window: the limiter is there for `rateLimit()` only. */
const NEVER_LIMITS = 2 ** 31 - 1;

export function redisConnection(redisUrl: string): ConnectionOptions {
  const u = new URL(redisUrl);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    // BullMQ workers block on Redis; a finite retry count would make them give up during an outage.
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
  };
}

export function createQueueBackend(opts: {
  redisUrl?: string | undefined;
  databaseUrl: string;
  prefix: string;
  stream?: (() => Duplex) | undefined;
}): QueueBackend {
  if (opts.redisUrl) {
    const connection = redisConnection(opts.redisUrl);
    const base: QueueOptions = { connection, prefix: opts.prefix };
    return {
      kind: 'redis',
      prefix: opts.prefix,
      migrate: async () => undefined,
      createQueue: (name) => new Queue(name, base),
      // On Redis, `worker.rateLimit()` (a provider's 429) pauses the queue for every worker only
      // when the worker has a limiter max: BullMQ's moveToActive checks the limiter key only then.
      // Without one, other slots and processes kept taking jobs during the pause. This max never
      // limits by itself; the PostgreSQL backend honours the pause without it.
      createWorker: (name, processor, workerOpts) => new Worker(name, processor, { ...base, limiter: { max: NEVER_LIMITS, duration: 60_000 }, ...workerOpts }),
    };
  }
  const pgClasses = withBackend(createPostgresBackend);
  // A config object (not a bare string) so BullMQ pins search_path on real PostgreSQL.
  // `stream`: the embedded database's in-process connections (embedded.ts); BullMQ hands its
  // config to pg for the pool and for its LISTEN connection alike.
  const stream = opts.stream ? { stream: opts.stream } : {};
  // No `migrate: true`: each connection only reads the schema's version (one statement) after
  // migrate() ran BullMQ's migrations once. With it, every connection (14 in `memloom start`) ran
  // them on its first use: ~12 statements in a transaction under one advisory lock, one connection
  // after another, ~170 of a warm start's ~320 statements on PGlite's one session.
  const connection = { connectionString: opts.databaseUrl, max: 4, ...stream };
  return {
    kind: 'postgres',
    prefix: opts.prefix,
    async migrate() {
      const client = new pg.Client({ connectionString: opts.databaseUrl, ...stream });
      await client.connect();
      try {
        await runMigrations(client);
      } finally {
        await client.end();
      }
    },
    createQueue: (name) => new pgClasses.Queue(name, { connection }) as unknown as Queue,
    createWorker: (name, processor, workerOpts) => new pgClasses.Worker(name, processor, { connection, ...workerOpts }) as unknown as Worker,
  };
}
