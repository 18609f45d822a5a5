/**
 * Server mode for the benchmark scripts (`--server`): a scratch database of the bench's own on a
 * PostgreSQL with pgvector, and a BullMQ key prefix of its own on Redis, both removed afterwards.
 *
 * The PostgreSQL server is DATABASE_URL's (the scratch database is created beside the one it
 * names; the connecting role must be allowed CREATE DATABASE and, for the migrations,
 * CREATE EXTENSION vector), or the local postgresql://postgres@127.0.0.1:5432/postgres. Redis is
 * REDIS_URL, or redis://127.0.0.1:6379.
 *
 * BENCH_PG_SETTINGS (`name=value,name=value`) sets parameters on the scratch database only
 * (ALTER DATABASE … SET), e.g. `synchronous_commit=off` to see what the WAL flush costs.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';

export interface BenchServer {
  /** The scratch database's URL (DATABASE_URL of every memloom process of the run). */
  databaseUrl: string;
  redisUrl: string;
  /** BullMQ key prefix (QUEUE_PREFIX) of the run. */
  queuePrefix: string;
  /** Drops the database and deletes the prefix's Redis keys. */
  drop(): Promise<void>;
}

export function wantsServer(argv = process.argv): boolean {
  return argv.includes('--server');
}

export async function createBenchServer(): Promise<BenchServer> {
  const admin = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const tag = randomUUID().replace(/-/g, '').slice(0, 10);
  const name = `memloom_bench_${tag}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    if (rows.length === 0) throw new Error('pgvector is not installed on this PostgreSQL: run scripts/install-pgvector.sh');
    await c.query(`CREATE DATABASE ${name}`);
    for (const pair of (process.env.BENCH_PG_SETTINGS ?? '').split(',').filter(Boolean)) {
      const [key, value] = pair.split('=');
      if (!key || value === undefined || !/^[a-z_.]+$/.test(key)) throw new Error(`BENCH_PG_SETTINGS: bad pair ${pair}`);
      await c.query(`ALTER DATABASE ${name} SET ${key} = ${pg.escapeLiteral(value)}`);
    }
  } finally {
    await c.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const queuePrefix = `bench-${tag}`;
  return {
    databaseUrl: url.toString(),
    redisUrl,
    queuePrefix,
    async drop() {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      try {
        await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await d.end();
      }
      const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${queuePrefix}:*`, 'COUNT', 1000);
          cursor = next;
          if (keys.length > 0) await redis.del(...keys);
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}

/** CPU seconds (user + system) of a process, all its threads (Linux /proc; NaN if it is gone). */
export function processCpu(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime in USER_HZ (100/s)
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU of the PostgreSQL backends serving one database: a snapshot per backend pid, so that the
 * difference of two snapshots counts only the time spent between them (a backend that started in
 * between counts from 0). Other databases' backends (other people's work) are not counted.
 */
export async function backendCpu(adminUrl: string, database: string): Promise<Map<number, number>> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
    return new Map(rows.map((r) => [r.pid, processCpu(r.pid)]));
  } finally {
    await c.end();
  }
}

export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, t] of after) if (Number.isFinite(t)) sum += t - (before.get(pid) ?? 0);
  return sum;
}

/** The pid of the redis-server listening on REDIS_URL's port (shared with others: its CPU is indicative only). */
export async function redisPid(redisUrl: string): Promise<number | undefined> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const info = await redis.info('server');
    const m = /process_id:(\d+)/.exec(info);
    return m ? Number(m[1]) : undefined;
  } finally {
    redis.disconnect();
  }
}

export function databaseName(url: string): string {
  return new URL(url).pathname.slice(1);
}
