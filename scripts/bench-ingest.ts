/**
 * Ingest benchmark (a script, not a test): `npx tsx scripts/bench-ingest.ts [--quick] [--server] [--modes postgres,redis,server]`.
 *
 * Starts memloom in this process (embedded PGlite; queues on the PostgreSQL backend, then on Redis
 * at REDIS_URL or redis://127.0.0.1:6379) with the API and the watcher, no workers, and measures:
 *   (a) single-event POSTs from 8 concurrent clients: acknowledged events/s and ack latency;
 *   (b) 1,000-event batch POSTs, 2 concurrent;
 *   (c) the directory watcher: one 100k-line file written at once, time until every line is stored.
 * "queued" is the time from the end of a phase until the dispatcher has handed every event of it
 * to the queue (the ack never waits for that). "cpu s" is the main thread's CPU time in the phase,
 * queueing included
 * (PGlite, API and watcher all run there): on a busy machine wall-clock figures fall with the CPU
 * share this process gets, while events per CPU second estimate what one idle core sustains.
 *
 * `--server` adds server mode (scripts/bench-server.ts: a scratch database on PostgreSQL +
 * pgvector, BullMQ on Redis with a prefix of its own, both removed afterwards). There "cpu s" is
 * this process's main thread only (API and watcher); "pg cpu s" is the CPU of the PostgreSQL
 * backends serving the scratch database.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '../src/config.js';
import { withTenant } from '../src/db/pool.js';
import { createLogger } from '../src/logger.js';
import { startRoles, type Running } from '../apps/cli/commands/roles.js';
import { backendCpu, cpuBetween, createBenchServer, databaseName, wantsServer, type BenchServer } from './bench-server.js';

const quick = process.argv.includes('--quick');
const SINGLE_REQUESTS = quick ? 1_000 : 5_000;
const SINGLE_CLIENTS = 8;
const BATCHES = quick ? 10 : 50;
const BATCH_SIZE = 1_000;
const BATCH_CLIENTS = 2;
const FILE_LINES = quick ? 20_000 : 100_000;
const PG_ADMIN = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
type Mode = 'postgres' | 'redis' | 'server';
const modesArg = process.argv.indexOf('--modes');
const MODES: Mode[] =
  modesArg > 0 ? ((process.argv[modesArg + 1] ?? '').split(',') as Mode[]) : wantsServer() ? ['postgres', 'redis', 'server'] : ['postgres', 'redis'];

interface Row {
  mode: string;
  test: string;
  events: number;
  seconds: number;
  p50?: number;
  p95?: number;
  p99?: number;
  queuedSeconds?: number;
  /** CPU seconds of the main thread (PGlite + API + watcher) from the start of the phase until all its events are queued. */
  cpuSeconds: number;
  /** Server mode: CPU seconds of the scratch database's PostgreSQL backends over the same span. */
  pgCpuSeconds?: number;
}

/**
 * CPU time of this process's main thread (Linux /proc; NaN elsewhere). On a loaded machine wall
 * time says little; events per main-thread CPU second is what one idle core would sustain.
 */
function mainThreadCpu(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ (100/s)
  } catch {
    return NaN;
  }
}

async function start(mode: Mode, server?: BenchServer): Promise<{ running: Running; url: string; eventsDir: string; home: string }> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-bench-'));
  const eventsDir = path.join(home, 'events');
  const config = loadConfig({
    PORT: '0',
    MEMLOOM_HOME: home,
    EVENTS_DIR: eventsDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    INGEST_RATE_PER_SEC: '1000000000',
    ...(mode === 'redis' ? { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' } : {}),
    ...(server ? { DATABASE_URL: server.databaseUrl, REDIS_URL: server.redisUrl } : {}),
  });
  const log = createLogger(config, process.stderr);
  const running = await startRoles(
    config,
    log,
    { api: true, watcher: true, workers: [], scheduler: false },
    { inMemory: true, queuePrefix: server?.queuePrefix ?? `bench-${randomUUID().slice(0, 8)}` },
  );
  const address = running.app?.server.address();
  if (!address || typeof address !== 'object') throw new Error('the API did not start');
  return { running, url: `http://127.0.0.1:${address.port}`, eventsDir, home };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/**
 * The load generator runs in a worker thread: PGlite, the API and the watcher share the main
 * thread, and a client on that thread would take its time from them and inflate every figure.
 */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, clients, bodies } = workerData;
(async () => {
  const latencies = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let i = next++; i < bodies.length; i = next++) {
      const t = performance.now();
      const res = await fetch(url + '/v1/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[i] });
      await res.text();
      if (res.status !== 202) throw new Error('POST /v1/events answered ' + res.status);
      latencies.push(performance.now() - t);
    }
  }));
  parentPort.postMessage({ latencies, seconds: (performance.now() - t0) / 1000 });
})().catch((err) => parentPort.postMessage({ error: String(err) }));
`;

/** Sends every body from `clients` concurrent loops; returns the sorted latencies and the wall time. */
function load(url: string, clients: number, bodies: string[]): Promise<{ latencies: number[]; seconds: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: { url, clients, bodies } });
    worker.once('message', (m: { latencies?: number[]; seconds?: number; error?: string }) => {
      void worker.terminate();
      if (m.error !== undefined) reject(new Error(m.error));
      else resolve({ latencies: (m.latencies ?? []).sort((a, b) => a - b), seconds: m.seconds ?? NaN });
    });
    worker.once('error', reject);
  });
}

async function queued(running: Running): Promise<number> {
  const t0 = performance.now();
  await running.deps.dispatcher.flush();
  return (performance.now() - t0) / 1000;
}

async function countEvents(running: Running): Promise<number> {
  return withTenant(running.deps.db, 'default', async (tx) => (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0]?.n ?? 0);
}

async function benchMode(mode: Mode): Promise<Row[]> {
  const label = mode === 'postgres' ? 'embedded, PG queue' : mode === 'redis' ? 'embedded, Redis queue' : 'server, Redis queue';
  const server = mode === 'server' ? await createBenchServer() : undefined;
  const { running, url, eventsDir, home } = await start(mode, server).catch(async (err) => {
    await server?.drop();
    throw err;
  });
  const db = server ? databaseName(server.databaseUrl) : '';
  const pgCpu = async () => (server ? backendCpu(PG_ADMIN, db) : new Map<number, number>());
  const rows: Row[] = [];
  const run = randomUUID().slice(0, 8);
  try {
    // warm-up: JIT, connection pools, PGlite caches
    await load(
      url,
      SINGLE_CLIENTS,
      Array.from({ length: 300 }, (_, i) => JSON.stringify({ content: `warm-up ${run} ${i}` })),
    );
    await running.deps.dispatcher.flush();

    const singles = Array.from({ length: SINGLE_REQUESTS }, (_, i) =>
      JSON.stringify({ content: `single event ${run} ${i}: the user prefers dark mode in every editor`, user_id: 'u-1', session_id: 's-1' }),
    );
    let cpu0 = mainThreadCpu();
    let pg0 = await pgCpu();
    const single = await load(url, SINGLE_CLIENTS, singles);
    let queuedSeconds = await queued(running);
    rows.push({
      mode: label,
      test: `single, ${SINGLE_CLIENTS} clients`,
      events: SINGLE_REQUESTS,
      seconds: single.seconds,
      p50: percentile(single.latencies, 50),
      p95: percentile(single.latencies, 95),
      p99: percentile(single.latencies, 99),
      queuedSeconds,
      cpuSeconds: mainThreadCpu() - cpu0,
      ...(server ? { pgCpuSeconds: cpuBetween(pg0, await pgCpu()) } : {}),
    });

    const batchBody = (b: number) =>
      JSON.stringify({
        events: Array.from({ length: BATCH_SIZE }, (_, i) => ({
          content: `batch ${run} ${b} event ${i}: deploys go through GitHub Actions now`,
          user_id: 'u-1',
          session_id: `s-${b}`,
          type: 'note',
        })),
      });
    const bodies = Array.from({ length: BATCHES }, (_, b) => batchBody(b));
    cpu0 = mainThreadCpu();
    pg0 = await pgCpu();
    const batch = await load(url, BATCH_CLIENTS, bodies);
    queuedSeconds = await queued(running);
    rows.push({
      mode: label,
      test: `batch of ${BATCH_SIZE}, ${BATCH_CLIENTS} clients`,
      events: BATCHES * BATCH_SIZE,
      seconds: batch.seconds,
      p50: percentile(batch.latencies, 50),
      p95: percentile(batch.latencies, 95),
      p99: percentile(batch.latencies, 99),
      queuedSeconds,
      cpuSeconds: mainThreadCpu() - cpu0,
      ...(server ? { pgCpuSeconds: cpuBetween(pg0, await pgCpu()) } : {}),
    });

    const before = await countEvents(running);
    const text = Array.from(
      { length: FILE_LINES },
      (_, i) => `${JSON.stringify({ content: `file line ${run} ${i}: a decision about the release train`, session_id: 's-file' })}\n`,
    ).join('');
    const t0 = performance.now();
    cpu0 = mainThreadCpu();
    pg0 = await pgCpu();
    await writeFile(path.join(eventsDir, 'bench.jsonl'), text);
    for (;;) {
      if ((await countEvents(running)) - before >= FILE_LINES) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - t0) / 1000;
    queuedSeconds = await queued(running);
    rows.push({
      mode: label,
      test: `watcher, ${FILE_LINES / 1000}k-line file`,
      events: FILE_LINES,
      seconds,
      queuedSeconds,
      cpuSeconds: mainThreadCpu() - cpu0,
      ...(server ? { pgCpuSeconds: cpuBetween(pg0, await pgCpu()) } : {}),
    });
  } finally {
    await running.stop();
    await rm(home, { recursive: true, force: true });
    await server?.drop();
  }
  return rows;
}

function table(rows: Row[]): string {
  const ms = (v: number | undefined) => (v === undefined ? '' : v.toFixed(1));
  const header = ['mode', 'test', 'events', 'seconds', 'events/s', 'p50 ms', 'p95 ms', 'p99 ms', 'queued s', 'cpu s', 'events/cpu-s', 'pg cpu s'];
  const body = rows.map((r) => [
    r.mode,
    r.test,
    String(r.events),
    r.seconds.toFixed(2),
    Math.round(r.events / r.seconds).toLocaleString('en-US'),
    ms(r.p50),
    ms(r.p95),
    ms(r.p99),
    r.queuedSeconds === undefined ? '' : r.queuedSeconds.toFixed(2),
    r.cpuSeconds.toFixed(2),
    Math.round(r.events / r.cpuSeconds).toLocaleString('en-US'),
    r.pgCpuSeconds === undefined ? '' : r.pgCpuSeconds.toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => (i >= 2 ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number))).join(' | ')} |`;
  return [fmt(header), `|${widths.map((w, i) => (i >= 2 ? `${'-'.repeat(w + 1)}:` : `${'-'.repeat(w + 2)}`)).join('|')}|`, ...body.map(fmt)].join('\n');
}

const rows: Row[] = [];
const load0 = os.loadavg()[0]?.toFixed(2);
for (const mode of MODES) {
  rows.push(...(await benchMode(mode)));
  process.stderr.write(`${mode} done, load average ${os.loadavg()[0]?.toFixed(2)}\n`);
}
process.stdout.write(
  `\nmemloom ingest benchmark — ${new Date().toISOString().slice(0, 16)}Z, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${load0} at the start, ${os.loadavg()[0]?.toFixed(2)} at the end\n\n${table(rows)}\n`,
);
