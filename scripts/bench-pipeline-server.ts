/**
 * The server-mode run of scripts/bench-pipeline.ts (`--server --workers 1,2,4`): a scratch
 * database on PostgreSQL + pgvector, BullMQ on Redis, the API in this process (no workers) and N
 * `memloom worker` processes (separate OS processes, every queue, the offline embedder and
 * extractor). `warmup` events (another user's) are posted first and processed untimed, so that
 * each worker process has loaded its lazy modules (extractor, token tables) and JIT-compiled its
 * hot paths before the timed burst. The same events are posted in batches of 200; the time runs
 * from the first POST until no event is pending (triage, chunk, embed and extraction all done). Beside the wall time,
 * the CPU seconds each process used over that span: every worker, this process (API and the
 * load generator), the PostgreSQL backends of the scratch database, and the shared redis-server
 * (other people's queues count there too).
 *
 * This process also runs the scheduler role, as every deployment does: its requeue task (every
 * REQUEUE_INTERVAL_MS, 30 s) repairs events a triage job left `received` (see `stalled` below).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startRoles } from '../apps/cli/commands/roles.js';
import { loadConfig } from '../src/config.js';
import { withTenant } from '../src/db/pool.js';
import { createLogger } from '../src/logger.js';
import { backendCpu, cpuBetween, createBenchServer, databaseName, processCpu, redisPid } from './bench-server.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const PG_ADMIN = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface ServerBurst {
  workers: number;
  events: number;
  seconds: number;
  ingestSeconds: number;
  /** CPU seconds over the burst, per worker process. */
  workerCpu: number[];
  apiCpu: number;
  pgCpu: number;
  redisCpu: number;
  loadBefore: number;
  loadAfter: number;
  /**
   * Most events seen at once still `received` 5 s after they were handed to the queue: a triage job
   * ran without claiming them (its FOR UPDATE SKIP LOCKED skips rows the dispatcher's enqueued-mark
   * UPDATE holds at that moment), and they wait for the requeue task.
   */
  stalled: number;
}

function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/memloom.js'), 'worker'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`worker ${child.pid} did not start in 120 s: ${seen.slice(-2000)}`)), 120_000);
    child.stderr?.on('data', (d: Buffer) => {
      seen += d.toString();
      if (seen.includes('"workers started"')) {
        clearTimeout(timer);
        child.stderr?.removeAllListeners('data');
        child.stderr?.resume(); // keep draining, never block the child on a full pipe
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}: ${seen.slice(-2000)}`));
    });
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  await exited;
  clearTimeout(timer);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One burst of `list` on a fresh scratch database with `workerCount` worker processes. */
export async function serverThroughput(model: string, list: object[], workerCount: number, debounceMs: number, warmup: object[] = []): Promise<ServerBurst> {
  const server = await createBenchServer();
  const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-bench-'));
  const env: Record<string, string> = {
    DATABASE_URL: server.databaseUrl,
    REDIS_URL: server.redisUrl,
    QUEUE_PREFIX: server.queuePrefix,
    MEMLOOM_HOME: home,
    EVENTS_DIR: path.join(home, 'events'),
    EMBEDDINGS_PROVIDER: 'local',
    EMBEDDINGS_MODEL: model,
    LLM_PROVIDER: 'heuristic',
    EXTRACT_DEBOUNCE_MS: String(debounceMs),
    INGEST_RATE_PER_SEC: '1000000000',
  };
  const workers: ChildProcess[] = [];
  const config = loadConfig({ ...env, PORT: '0', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' });
  const running = await startRoles(
    config,
    createLogger(config, process.stderr),
    { api: true, watcher: false, workers: [], scheduler: true },
    { queuePrefix: server.queuePrefix },
  );
  try {
    // Started one after the other: each runs the (idempotent, advisory-locked) migrations first.
    for (let i = 0; i < workerCount; i++) workers.push(await startWorker({ ...process.env, ...env, LOG_LEVEL: 'info' }));
    const url = `http://127.0.0.1:${(running.app!.server.address() as { port: number }).port}`;
    const post = async (batch: object[]) => {
      const res = await fetch(`${url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ events: batch }) });
      if (res.status !== 202) throw new Error(`POST /v1/events answered ${res.status}: ${await res.text()}`);
    };
    const pendingSql = `SELECT EXISTS (SELECT 1 FROM events WHERE status NOT IN ('done', 'skipped', 'failed')) AS any`;
    const stalledSql = `SELECT count(*)::int AS n FROM events WHERE status = 'received' AND enqueued_at < now() - interval '5 seconds'`;
    let stalled = 0;
    const drained = async () => {
      for (let i = 0; (await withTenant(running.deps.db, 'default', (tx) => tx.query<{ any: boolean }>(pendingSql))).rows[0]?.any; i++) {
        if (i % 20 === 19)
          stalled = Math.max(stalled, (await withTenant(running.deps.db, 'default', (tx) => tx.query<{ n: number }>(stalledSql))).rows[0]?.n ?? 0);
        await sleep(100);
      }
    };
    for (let i = 0; i < warmup.length; i += 200) await post(warmup.slice(i, i + 200));
    await drained();
    stalled = 0;
    const redis = await redisPid(server.redisUrl);
    const db = databaseName(server.databaseUrl);
    const loadBefore = os.loadavg()[0] ?? Number.NaN;
    const w0 = workers.map((w) => processCpu(w.pid as number));
    const pg0 = await backendCpu(PG_ADMIN, db);
    const r0 = redis ? processCpu(redis) : Number.NaN;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < list.length; i += 200) await post(list.slice(i, i + 200));
    const ingestSeconds = (performance.now() - t0) / 1000;
    await drained();
    const seconds = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(c0);
    const failed =
      (await withTenant(running.deps.db, 'default', (tx) => tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE status = 'failed'`))).rows[0]
        ?.n ?? 0;
    if (failed > 0) throw new Error(`${failed} events failed`);
    return {
      workers: workerCount,
      events: list.length,
      seconds,
      ingestSeconds,
      workerCpu: workers.map((w, i) => processCpu(w.pid as number) - (w0[i] as number)),
      apiCpu: (c.user + c.system) / 1e6,
      pgCpu: cpuBetween(pg0, await backendCpu(PG_ADMIN, db)),
      redisCpu: redis ? processCpu(redis) - r0 : Number.NaN,
      loadBefore,
      loadAfter: os.loadavg()[0] ?? Number.NaN,
      stalled,
    };
  } finally {
    await Promise.all(workers.map(stopWorker));
    await running.stop();
    await server.drop();
    await rm(home, { recursive: true, force: true });
  }
}
