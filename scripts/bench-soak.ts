/**
 * Soak: memory that grows (issue 19). One embedded memloom on disk (PGlite, the PostgreSQL queue
 * backend, every worker, the scheduler, offline providers) receives one user's 20,000 events over
 * 100 sessions, most of them near-duplicates of a few hundred statements, plus 100 other users'
 * events; some events carry a 30 s TTL. Schedules are short (dream checks every 5 s, TTL sweep and
 * decay every 20 s) so every kind of background run happens during the soak. While the events go
 * in and until all background work is done, probes in a process of their own (scripts/soak-probes.mjs)
 * post single events and recall, and time them.
 *
 * Run: npm run bench:soak [-- --events 20000 --sessions 100 --others 100 --per-other 20 --rate 250 --keep]
 * (--keep leaves the MEMLOOM_HOME in place, for EXPLAIN afterwards)
 *
 * Prints: total time; POST /v1/events p50/p95/p99 (single-event probes) and /v1/recall p50/p95
 * while background work runs; the longest time one connection held the database for background
 * work and for the API (the session queue's figures, startup excluded), and the background turns
 * over 100 ms (by their longest statement) and the delay of memloom's event loop; dream runs and their batches; peak and idle RSS of this process (memloom and the
 * light load generator; the probes run apart); pgdata size (and WAL) against the raw content posted. Done means: every
 * event processed, no dream backlog or undreamed scope left, a TTL sweep and a decay run completed
 * after the pipeline drained, and no failed maintenance or dream job.
 */
import '../src/v8-flags.mjs';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTenant } from '../src/db/pool.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { startTestMemloom, type TestMemloom } from '../test/support/memloom.js';
import { formatRssBreakdown, rssBreakdown, type RssBreakdown } from './rss-breakdown.js';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const EVENTS = arg('events', 20_000);
const SESSIONS = arg('sessions', 100);
const OTHERS = arg('others', 100);
const PER_OTHER = arg('per-other', 20);
const RATE = arg('rate', 250);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Deterministic choices, so two runs post the same events. */
let seed = 42;
const rnd = () => {
  seed = (seed * 48271) % 2147483647;
  return seed / 2147483647;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;

const TOOLS = ['PostgreSQL', 'Redis', 'Kafka', 'Grafana', 'Terraform', 'BullMQ', 'Prometheus', 'Elasticsearch', 'SQLite', 'RabbitMQ', 'Vault', 'Nginx'];
const SERVICES = [
  'billing service',
  'search service',
  'auth gateway',
  'notification worker',
  'reporting pipeline',
  'payments API',
  'image resizer',
  'audit log',
];
const INFRA = ['Kubernetes', 'bare metal', 'Fly.io', 'ECS', 'Nomad', 'a single VM'];
const PEOPLE = ['Alice', 'Bogdan', 'Chen', 'Dana', 'Emeka', 'Farah'];
const TEMPLATES = [
  () => `We decided to use ${pick(TOOLS)} for the ${pick(SERVICES)}.`,
  () => `I prefer ${pick(TOOLS)} dashboards for watching the ${pick(SERVICES)}.`,
  () => `The ${pick(SERVICES)} runs on ${pick(INFRA)} in the Frankfurt region.`,
  () => `Next week we will migrate the ${pick(SERVICES)} to ${pick(INFRA)}.`,
  () => `${pick(PEOPLE)} owns the ${pick(SERVICES)} and reviews every release of it.`,
];
const VARIANTS = [
  (s: string) => s,
  (s: string) => `As I said, ${s[0]!.toLowerCase()}${s.slice(1)}`,
  (s: string) => `Just to confirm: ${s}`,
  (s: string) => s.replace(/\.$/, '!'),
  (s: string) => `${s} That still holds.`,
];

function events(): { main: object[]; others: object[]; bytes: number } {
  const pool = Array.from({ length: 400 }, () => pick(TEMPLATES)());
  let bytes = 0;
  const ev = (user: string, session: string, i: number, content: string) => {
    bytes += Buffer.byteLength(content);
    return { id: `${user}-${i}`, user_id: user, session_id: session, role: 'user', content, ...(rnd() < 0.05 ? { ttl: 'PT30S' } : {}) };
  };
  const main = Array.from({ length: EVENTS }, (_, i) => ev('main', `main-s${i % SESSIONS}`, i, pick(VARIANTS)(pick(pool))));
  const others = Array.from({ length: OTHERS * PER_OTHER }, (_, i) => ev(`u${i % OTHERS}`, `u${i % OTHERS}-s${i % 3}`, i, pick(TEMPLATES)()));
  return { main, others, bytes };
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : (s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number);
}

const rssMb = () => process.memoryUsage().rss / 2 ** 20;
const peakRssMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;

async function du(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? await du(p) : (await stat(p)).size;
  }
  return n;
}

async function post(url: string, body: unknown): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - t;
}

const sql = async <T>(m: TestMemloom, text: string): Promise<T[]> => withTenant(m.deps.db, 'default', async (tx) => (await tx.query(text)).rows as T[]);

/** Events of the load (the probes' own user keeps receiving events until the end) not yet processed. */
async function pending(m: TestMemloom): Promise<number> {
  const [r] = await sql<{ n: number }>(
    m,
    `SELECT count(*)::int AS n FROM events WHERE status NOT IN ('done', 'skipped', 'failed') AND user_id IS DISTINCT FROM 'probe'`,
  );
  return r?.n ?? 1;
}

/** Everything done: the load processed, no dream pending or due, TTL and decay runs finished since `since`. */
async function settled(m: TestMemloom, since: number): Promise<string | undefined> {
  const p = await pending(m);
  if (p > 0) return `${p} events pending`;
  const dq = await m.deps.queues.get('dream').getJobCounts('waiting', 'active', 'delayed', 'prioritized');
  if (Object.values(dq).some((n) => n > 0)) return `dream jobs ${JSON.stringify(dq)}`;
  const [due] = await sql<{ n: number }>(
    m,
    `SELECT count(*)::int AS n FROM (SELECT coalesce(m.user_id, '') AS u FROM memories m LEFT JOIN user_state s ON s.user_id = coalesce(m.user_id, '')
    WHERE m.status = 'active' AND coalesce(m.user_id, '') <> 'probe' AND (s.last_dream_at IS NULL OR m.created_at > s.last_dream_at OR s.dream_backlog) GROUP BY 1) x`,
  );
  if ((due?.n ?? 1) > 0) return `${due?.n} scopes due for a dream`;
  const done = (await m.deps.queues.get('maintenance').getJobs(['completed'], 0, 200)).filter((j) => (j.finishedOn ?? 0) > since).map((j) => j.name);
  return done.includes('ttl-sweep') && done.includes('decay') ? undefined : 'waiting for a TTL sweep and a decay run';
}

async function main(): Promise<void> {
  const { main: mainEvents, others, bytes } = events();
  const keep = process.argv.includes('--keep');
  const m = await startTestMemloom({
    inMemory: false,
    // A home passed in is left in place by close().
    ...(keep ? { home: await mkdtemp(path.join(os.tmpdir(), 'memloom-soak-')) } : {}),
    roles: { api: true, watcher: false, workers: QUEUE_NAMES, scheduler: true },
    env: {
      EXTRACT_DEBOUNCE_MS: '2000',
      DREAM_CHECK_INTERVAL_MS: '5000',
      DREAM_INTERVAL_MS: '30000',
      TTL_SWEEP_INTERVAL_MS: '20000',
      DECAY_INTERVAL_MS: '20000',
      BRIEFING_INTERVAL_MS: '60000',
      TENANT_TASKS_PER_HOUR: '100000',
      INGEST_RATE_PER_SEC: '100000',
      REQUEUE_INTERVAL_MS: '30000',
    },
  });
  const embedded = m.deps.embedded;
  if (!embedded) throw new Error('the soak measures the embedded database');
  await sleep(2000);
  await embedded.sessionStats({ reset: true }); // startup (migrations, index checks) is not background work
  const idleBefore = rssMb();
  const idleMap = rssBreakdown();
  const t0 = performance.now();
  const elu0 = performance.eventLoopUtilization();
  const dbElu0 = embedded.utilization();
  let peak = rssMb();
  // What the peak is made of: read from /proc at most every 5 s, when RSS rose 8 MB above the last reading.
  let peakMap: RssBreakdown | undefined;
  let mappedAt = 0;
  let mappedRss = 0;
  const sampler = setInterval(() => {
    const now = rssMb();
    if (now > mappedRss + 8 && Date.now() - mappedAt > 5000) {
      peakMap = rssBreakdown() ?? peakMap;
      mappedAt = Date.now();
      mappedRss = now;
    }
    peak = Math.max(peak, now);
  }, 500);
  // How late memloom's main thread runs what is due (the API's handlers, the queues, the stages' JavaScript).
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();

  // Probes: single events and recalls, all the time until the end, from a process of their own.
  const probes = fork(fileURLToPath(new URL('./soak-probes.mjs', import.meta.url)), [m.url], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const probed = new Promise<{ post: number[]; recall: number[] }>((resolve, reject) => {
    probes.once('message', (msg: { post?: number[]; recall?: number[]; error?: string }) =>
      msg.error ? reject(new Error(`probes: ${msg.error}`)) : resolve({ post: msg.post ?? [], recall: msg.recall ?? [] }),
    );
    probes.once('exit', (code) => reject(new Error(`the probe process exited with ${code} before reporting`)));
  });
  probed.catch(() => undefined); // awaited below

  // The load: every event once, in batches of 100 at RATE events/s, the other users interleaved.
  const all = [...mainEvents, ...others]
    .map((e, i) => ({ e, k: (i * 7919) % 1_000_003 }))
    .sort((a, b) => a.k - b.k)
    .map((x) => x.e);
  const batchLat: number[] = [];
  for (let i = 0; i < all.length; i += 100) {
    const started = performance.now();
    batchLat.push(await post(`${m.url}/v1/events`, { events: all.slice(i, i + 100) }));
    await sleep(Math.max(0, (100 / RATE) * 1000 - (performance.now() - started)));
  }
  const sent = performance.now();
  await waitUntil(async () => ((await pending(m)) === 0 ? undefined : 'pipeline'));
  const drained = performance.now();
  const drainedAt = Date.now();
  await waitUntil(() => settled(m, drainedAt));
  const finished = performance.now();
  probes.send('stop');
  const { post: postLat, recall: recallLat } = await probed;
  clearInterval(sampler);
  loopDelay.disable();
  const busy = { main: performance.eventLoopUtilization(elu0), db: embedded.utilization(dbElu0) };
  const hold = await embedded.sessionStats();

  const dreams = (await m.deps.queues.get('dream').getJobs(['completed'], 0, 10_000)).map(
    (j) => j.returnvalue as { memories: number; batches: number; merged: number; links: number },
  );
  const failed = {
    dream: (await m.deps.queues.get('dream').getJobCounts('failed')).failed,
    maintenance: (await m.deps.queues.get('maintenance').getJobCounts('failed')).failed,
  };
  const [counts] = await sql<Record<string, number>>(
    m,
    `SELECT (SELECT count(*) FROM events)::int AS events, (SELECT count(*) FROM memories WHERE status = 'active')::int AS active,
    (SELECT count(*) FROM memories)::int AS memories, (SELECT count(*) FROM memory_relations)::int AS relations, (SELECT count(*) FROM provenance)::int AS provenance`,
  );
  await m.deps.db.query('CHECKPOINT');
  if (global.gc) global.gc();
  await sleep(5000);
  const idleAfter = rssMb();
  const usage = process.memoryUsage();
  const dbMemory = await embedded.memory();
  const pgdata = await du(path.join(m.home, 'pgdata'));
  const wal = await du(path.join(m.home, 'pgdata', 'pg_wal'));
  const f = (x: number, d = 1) => x.toFixed(d);
  const line = (k: string, v: string) => process.stdout.write(`${k.padEnd(44)}${v}\n`);
  line('events (main user / others / probes)', `${mainEvents.length} / ${others.length} / ${postLat.length}`);
  line(
    'total time (first POST to all settled)',
    `${f((finished - t0) / 1000)} s (sent ${f((sent - t0) / 1000)} s, pipeline drained ${f((drained - t0) / 1000)} s)`,
  );
  line(
    'POST /v1/events single, p50 / p95 / p99',
    `${f(percentile(postLat, 50))} / ${f(percentile(postLat, 95))} / ${f(percentile(postLat, 99))} ms (${postLat.length})`,
  );
  line('POST /v1/events batch of 100, p50 / p99', `${f(percentile(batchLat, 50))} / ${f(percentile(batchLat, 99))} ms (${batchLat.length})`);
  line(
    'POST /v1/recall, p50 / p95 / p99',
    `${f(percentile(recallLat, 50))} / ${f(percentile(recallLat, 95))} / ${f(percentile(recallLat, 99))} ms (${recallLat.length})`,
  );
  line(
    'longest hold of the database: background',
    `${f(hold.maxMs.background)} ms (${hold.over100Ms.background} of ${hold.turns.background} turns over 100 ms)`,
  );
  line('longest hold of the database: API', `${f(hold.maxMs.api)} ms (${hold.over100Ms.api} of ${hold.turns.api} turns over 100 ms)`);
  line('longest wait for the database: API', `${f(hold.maxWaitMs.api)} ms`);
  const ms = (ns: number) => f(ns / 1e6);
  line('event loop delay p50 / p99 / max', `${ms(loopDelay.percentile(50))} / ${ms(loopDelay.percentile(99))} / ${ms(loopDelay.max)} ms`);
  const pct = (u: { utilization: number }) => `${(100 * u.utilization).toFixed(0)}%`;
  line('busy: main thread / PGlite thread', `${pct(busy.main)} / ${pct(busy.db)}`);
  for (const t of hold.slowest)
    line(`  slow turn (${t.priority})`, `${t.ms} ms, busy ${t.busyMs}, longest statement ${t.statementMs} ms: ${t.sql.slice(0, 100)}`);
  const by = Object.entries(hold.over100MsBy).sort((a, b) => b[1].ms - a[1].ms);
  for (const [sql, t] of by.slice(0, 8)) line('  turns over 100 ms by longest statement', `${t.turns}, ${f(t.ms / 1000)} s: ${sql}`);
  line(
    'dream runs / batches / memories looked at',
    `${dreams.length} / ${dreams.reduce((n, d) => n + (d?.batches ?? 0), 0)} / ${dreams.reduce((n, d) => n + (d?.memories ?? 0), 0)}`,
  );
  line('merged / links', `${dreams.reduce((n, d) => n + (d?.merged ?? 0), 0)} / ${dreams.reduce((n, d) => n + (d?.links ?? 0), 0)}`);
  line('failed jobs: dream / maintenance', `${failed.dream} / ${failed.maintenance}`);
  line(
    'rows: events / memories (active) / rel. / prov.',
    `${counts!.events} / ${counts!.memories} (${counts!.active}) / ${counts!.relations} / ${counts!.provenance}`,
  );
  line('MALLOC_ARENA_MAX (npm run bench:soak sets 2)', process.env.MALLOC_ARENA_MAX ?? 'unset');
  line('RSS: idle before / peak / VmHWM / idle after', `${f(idleBefore, 0)} / ${f(peak, 0)} / ${f(peakRssMb(), 0)} / ${f(idleAfter, 0)} MB`);
  // After the run: PGlite's WebAssembly memory never shrinks, so it is also its peak.
  const mb = (bytes: number) => f(bytes / 2 ** 20, 0);
  line(
    '  of it after: PGlite wasm / its heap / main heap',
    `${mb(dbMemory.wasmBytes)} / ${mb(dbMemory.heapBytes)} / ${mb(usage.heapTotal)} MB (process external ${mb(usage.external)} MB)`,
  );
  if (idleMap) line('  idle before, from /proc/self/smaps', formatRssBreakdown(idleMap));
  if (peakMap) line('  near the peak, from /proc/self/smaps', formatRssBreakdown(peakMap));
  const afterMap = rssBreakdown();
  if (afterMap) line('  after, from /proc/self/smaps', formatRssBreakdown(afterMap));
  line('pgdata (of it WAL) / raw content', `${f(pgdata / 2 ** 20)} MB (${f(wal / 2 ** 20)} MB) / ${f(bytes / 2 ** 20, 2)} MB`);
  await m.close();
  if (keep) console.error(`kept the soak's MEMLOOM_HOME: ${m.home}`);
  else await rm(m.home, { recursive: true, force: true });
}

/** Polls `fn` until it answers undefined (done) or why it is not done yet, printed to stderr every 15 s. */
async function waitUntil(fn: () => Promise<string | undefined>, timeoutMs = 3_600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let told = 0;
  for (let why = await fn(); why !== undefined; why = await fn()) {
    if (Date.now() > deadline) throw new Error(`soak did not settle within the hour: ${why}`);
    if (Date.now() - told > 15_000) {
      process.stderr.write(`soak: ${why}\n`);
      told = Date.now();
    }
    await sleep(1000);
  }
}

await main();
process.exit(0);
