/**
 * Recall latency in embedded or server mode (issue 6 item 5, issue 20 item 5): p50/p95/p99 of POST /v1/recall (mode
 * memories, limit 10, a random user scope and a random vocabulary query) with 1 client and with 8
 * concurrent clients, at each requested memory count. A benchmark prints figures; nothing asserts.
 *
 *   npx tsx scripts/bench-recall-latency.ts [--sizes 10000,100000] [--requests 300] [--clients 1,8]
 *     [--home DIR (on-disk PGlite; default in memory)] [--breakdown] [--explain] [--no-analyze]
 *     [--profile FILE.cpuprofile] [--server]
 *
 * `--server`: memloom on PostgreSQL + pgvector and Redis instead (scripts/bench-server.ts: a scratch
 * database and key prefix, removed afterwards); recall then takes the server path (each retriever
 * on its own connection). The memories are loaded the same way, as the database owner.
 *
 * memloom runs in this process with only the API role (no workers, scheduler or watcher), on the
 * embedded PGlite served over its loopback socket; requests are real HTTP with keep-alive.
 * `--breakdown` times each retriever's SQL on its own; `--explain` prints EXPLAIN ANALYZE of the
 * vector and keyword queries of src/db/sql/recall.ts for one sample query.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { Session } from 'node:inspector/promises';
import { writeFile } from 'node:fs/promises';
import { startRoles } from '../apps/cli/commands/roles.js';
import { loadConfig } from '../src/config.js';
import type { Deps } from '../src/deps.js';
import { withTenant, type Queryable } from '../src/db/pool.js';
import { keywordSearch } from '../src/db/sql/recall-bm25.js';
import { entitiesInQuery, loadMemories as loadMemoryRows, memoriesOfEntities, neighbourEntities, setVectorSearch, vectorSearch } from '../src/db/sql/recall.js';
import { ftsQuery, normalizeText } from '../src/domain/text.js';
import { createLogger } from '../src/logger.js';
import pg from 'pg';
import { USERS, loadMemories, query, rng, vocabulary, type SqlRunner, type Vocabulary } from './bench-recall-corpus.js';
import { createBenchServer, type BenchServer } from './bench-server.js';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    requests: { type: 'string', default: '300' },
    clients: { type: 'string', default: '1,8' },
    home: { type: 'string' },
    breakdown: { type: 'boolean', default: false },
    explain: { type: 'boolean', default: false },
    'no-analyze': { type: 'boolean', default: false },
    profile: { type: 'string' },
    /** `user`: each request scoped to one of the 50 users (2% of memories); `tenant`: no user_id. */
    scope: { type: 'string', default: 'user' },
    /** Also measure recall with one transaction per retriever (the server-mode path). */
    'compare-tx': { type: 'boolean', default: false },
    server: { type: 'boolean', default: false },
  },
});
const sizes = args.sizes.split(',').map(Number);
const requests = Number(args.requests);
const clientCounts = args.clients.split(',').map(Number);
const out = (s: string) => process.stdout.write(`${s}\n`);
const err = (s: string) => process.stderr.write(`${s}\n`);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

interface Row {
  memories: number;
  variant: string;
  clients: number;
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  server50: number;
  server95: number;
  cpu: number;
  rps: number;
}

/**
 * The load generator runs in a worker thread: PGlite, the API and the clients would otherwise share
 * one thread, and the clients' HTTP work would count as server latency.
 */
const CLIENT = `
const { parentPort, workerData: { url, bodies, clients } } = require('node:worker_threads');
(async () => {
  const latencies = [], server = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let i = next++; i < bodies.length; i = next++) {
      const t0 = performance.now();
      const res = await fetch(url + '/v1/recall', { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[i] });
      const body = await res.json();
      if (res.status !== 200) throw new Error('recall answered ' + res.status + ': ' + JSON.stringify(body));
      latencies.push(performance.now() - t0);
      server.push(body.took_ms);
    }
  }));
  parentPort.postMessage({ latencies, server, seconds: (performance.now() - started) / 1000 });
})().catch((e) => { throw e; });
`;

/** CPU seconds (user + system) of this process's main thread: the API, recall and PGlite all run on it. */
function mainThreadCpu(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

async function measure(url: string, v: Vocabulary, memories: number, variant: string, clients: number, seed: number): Promise<Row> {
  const r = rng(seed);
  const bodies = Array.from({ length: requests }, () => {
    const user = USERS[Math.floor(r() * USERS.length)];
    return JSON.stringify({ query: query(v, r), ...(args.scope === 'user' ? { user_id: user } : {}), mode: 'memories', limit: 10 });
  });
  const cpu0 = mainThreadCpu();
  const result = await new Promise<{ latencies: number[]; server: number[]; seconds: number }>((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: { url, bodies, clients } });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const cpu = mainThreadCpu() - cpu0;
  const latencies = result.latencies.sort((a, b) => a - b);
  const server = result.server.sort((a, b) => a - b);
  return {
    memories,
    variant,
    clients,
    requests,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    server50: percentile(server, 50),
    server95: percentile(server, 95),
    cpu: (cpu * 1000) / requests,
    rps: requests / result.seconds,
  };
}

/** Median time of each retriever's SQL alone (each in its own tenant transaction, as recall runs them). */
async function breakdown(deps: Deps, v: Vocabulary, samples: number): Promise<Record<string, number>> {
  const r = rng(99);
  const times: Record<string, number[]> = { embed: [], vector: [], keyword: [], entity_graph: [], load: [], empty_tx: [] };
  const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const result = await fn();
    times[name]?.push(performance.now() - t0);
    return result;
  };
  const run = <T>(fn: (tx: Queryable) => Promise<T>) =>
    withTenant(deps.db, 'default', async (tx) => {
      await setVectorSearch(tx, true, 80);
      return fn(tx);
    });
  for (let i = 0; i < samples; i++) {
    const text = query(v, r);
    const scope = { userId: USERS[Math.floor(r() * USERS.length)] };
    const { vectors } = await timed('embed', () => deps.providers.embeddings.embed([text], 'query'));
    const vec = vectors[0] as number[];
    const a = await timed('vector', () =>
      run((tx) => vectorSearch(tx, 'memories', scope, vec, { model: deps.providers.embeddings.model, dims: deps.providers.embeddings.dimensions }, 40)),
    );
    const b = await timed('keyword', () => run((tx) => keywordSearch(tx, 'memories', scope, ftsQuery(text).join(' '), 40)));
    const c = await timed('entity_graph', () =>
      run(async (tx) => {
        const named = await entitiesInQuery(tx, ` ${normalizeText(text)} `, ftsQuery(text), 10, scope);
        const hops = named.length > 0 ? await neighbourEntities(tx, named, 2, 50) : new Map<string, number>();
        return memoriesOfEntities(tx, scope, [...named, ...hops.keys()], 40);
      }),
    );
    await timed('load', () => run((tx) => loadMemoryRows(tx, [...new Set([...a, ...b, ...c].map((x) => x.id))])));
    await timed('empty_tx', () => run(async () => undefined));
  }
  return Object.fromEntries(
    Object.entries(times).map(([k, xs]) => [
      k,
      percentile(
        xs.sort((x, y) => x - y),
        50,
      ),
    ]),
  );
}

/**
 * EXPLAIN ANALYZE of the exact SQL the memory retrievers send, in recall's order: a Queryable that
 * runs each statement for its rows, then once more under EXPLAIN.
 */
async function explain(deps: Deps, v: Vocabulary): Promise<void> {
  const r = rng(5);
  const text = query(v, r);
  const scope = { userId: USERS[0] };
  const vec = (await deps.providers.embeddings.embed([text], 'query')).vectors[0] as number[];
  await withTenant(deps.db, 'default', async (tx) => {
    await setVectorSearch(tx, true, 80);
    const plans: string[] = [];
    const explaining = {
      query: async (sql: string, params: unknown[]) => {
        const res = await tx.query(sql, params);
        const plan = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
        plans.push(
          plan.rows
            .map((x) => x['QUERY PLAN'])
            .join('\n')
            .replace(/'\[[-0-9.e,]+\]'/g, "'[…]'"),
        );
        return res;
      },
    } as unknown as Queryable;
    const terms = ftsQuery(text);
    await vectorSearch(explaining, 'memories', scope, vec, { model: deps.providers.embeddings.model, dims: deps.providers.embeddings.dimensions }, 40);
    await keywordSearch(explaining, 'memories', scope, terms.join(' '), 40);
    const named = await entitiesInQuery(explaining, ` ${normalizeText(text)} `, terms, 10, scope);
    const hops = named.length > 0 ? await neighbourEntities(explaining, named, 2, 50) : new Map<string, number>();
    await memoriesOfEntities(explaining, scope, [...named, ...hops.keys()], 40);
    out(`\nEXPLAIN ANALYZE for query ${JSON.stringify(text)}, user ${scope.userId} (vector, keyword, entities, hops…, memories of entities):`);
    for (const plan of plans) out(`---\n${plan}`);
  });
}

/** A V8 CPU profile of the main thread (API + recall + PGlite's WASM) over `fn`, with a self-time summary. */
async function profile(file: string, fn: () => Promise<unknown>): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  await fn();
  const { profile: prof } = await session.post('Profiler.stop');
  session.disconnect();
  await writeFile(file, JSON.stringify(prof));
  const self = new Map<string, number>();
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const dt = prof.timeDeltas ?? [];
  (prof.samples ?? []).forEach((id, i) => {
    const n = byId.get(id);
    if (!n) return;
    const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}`;
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  out(`\nCPU profile (${file}), top self time of ${total.toFixed(0)} ms:`);
  for (const [k, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
    out(`${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${k}`);
}

const HNSW = 'memories_hnsw';

/** The database owner's session, for bulk loading: PGlite's, or a pg client on the scratch database. */
interface Owner extends SqlRunner {
  exec(sql: string): Promise<unknown>;
  close(): Promise<void>;
}

async function ownerOf(deps: Deps, server: BenchServer | undefined): Promise<Owner> {
  const pglite = deps.embedded?.owner;
  if (pglite) {
    await pglite.exec('RESET ROLE');
    return {
      exec: (sql) => pglite.exec(sql),
      query: (sql, params) => pglite.query(sql, params),
      close: () => pglite.exec('SET ROLE memloom_app').then(() => undefined),
    };
  }
  if (!server) throw new Error('the benchmark needs embedded mode (unset DATABASE_URL) or --server');
  const c = new pg.Client({ connectionString: server.databaseUrl });
  c.on('error', () => undefined); // dropping the scratch database after a failure ends it too
  await c.connect();
  return {
    exec: (sql) => c.query(sql),
    query: async <T>(sql: string, params?: unknown[]) => ({ rows: (await c.query(sql, params)).rows as T[] }),
    close: () => c.end(),
  };
}

async function main(): Promise<void> {
  const home = args.home ?? (await mkdtemp(path.join(os.tmpdir(), 'memloom-bench-')));
  const server = args.server ? await createBenchServer() : undefined;
  const config = loadConfig({
    PORT: '0',
    MEMLOOM_HOME: home,
    EVENTS_DIR: path.join(home, 'events'),
    LOG_LEVEL: 'warn',
    ...(server ? { DATABASE_URL: server.databaseUrl, REDIS_URL: server.redisUrl } : {}),
  });
  const log = createLogger(config, process.stderr);
  const running = await startRoles(
    config,
    log,
    { api: true, watcher: false, workers: [], scheduler: false },
    { inMemory: args.home === undefined, queuePrefix: server?.queuePrefix ?? `bench-${process.pid}` },
  );
  const { deps } = running;
  const embedded = deps.embedded;
  const variants = server ? ['server'] : args['compare-tx'] ? ['shared-tx', 'tx-per-retriever'] : ['shared-tx'];
  const url = `http://127.0.0.1:${(running.app!.server.address() as { port: number }).port}`;
  const v = vocabulary();
  const dims = deps.providers.embeddings.dimensions;
  const rows: Row[] = [];
  try {
    let loaded = (await withTenant(deps.db, 'default', (tx) => tx.query<{ n: number }>('SELECT count(*)::int AS n FROM memories'))).rows[0]?.n ?? 0;
    for (const size of sizes) {
      if (size > loaded) {
        // Owner work on the one PGlite session while nothing else runs: bulk insert without the HNSW
        // and GIN indexes, then build them once (much faster than maintaining them row by row).
        const owner = await ownerOf(deps, server);
        await owner.exec(`DROP INDEX IF EXISTS ${HNSW}_${dims}, memories_fts_idx; SET maintenance_work_mem = '1GB'`);
        let t0 = performance.now();
        await loadMemories(owner, deps.providers.embeddings, v, loaded, size, (done) => err(`  loaded ${done}/${size}`));
        const insertS = (performance.now() - t0) / 1000;
        t0 = performance.now();
        // The definitions memloom uses (prisma/migrations; queries must match them): the GIN index of
        // the init migration, the HNSW index as memloom_ensure_ann_index builds it.
        await owner.exec(`CREATE INDEX memories_fts_idx ON memories USING gin (fts);
          SELECT memloom_ensure_ann_index('memories', ${dims}, 0)`);
        const indexS = (performance.now() - t0) / 1000;
        t0 = performance.now();
        if (!args['no-analyze']) await owner.exec('ANALYZE');
        const analyzeS = (performance.now() - t0) / 1000;
        // pg_column_toast_chunk_id exists from PostgreSQL 17 (PGlite is 18); not on a PostgreSQL 15 server.
        if (embedded) {
          const toasted = (
            await owner.query<{ v: number; f: number }>(
              'SELECT round(100 * avg((pg_column_toast_chunk_id(embedding) IS NOT NULL)::int)) AS v, round(100 * avg((pg_column_toast_chunk_id(fts) IS NOT NULL)::int)) AS f FROM memories',
            )
          ).rows[0];
          err(`stored out of line (TOAST): ${toasted?.v}% of vectors, ${toasted?.f}% of tsvectors`);
        }
        await owner.exec('RESET maintenance_work_mem');
        await owner.close();
        err(
          `${size} memories: insert ${insertS.toFixed(1)} s (${Math.round((size - loaded) / insertS)} rows/s), GIN + HNSW build ${indexS.toFixed(1)} s, ANALYZE ${analyzeS.toFixed(1)} s`,
        );
        loaded = size;
      }
      await measure(url, v, size, 'warm-up', 2, 1); // JIT, plan caches, buffer cache
      for (const clients of clientCounts) {
        for (const variant of variants) {
          // recall() shares one transaction in embedded mode; without `embedded` it takes the
          // server-mode path (one transaction per retriever), on the same data and server.
          (deps as { embedded: unknown }).embedded = variant === 'tx-per-retriever' ? undefined : embedded;
          rows.push(await measure(url, v, size, variant, clients, 1000 + clients));
        }
      }
      (deps as { embedded: unknown }).embedded = embedded;
      if (args.profile) await profile(args.profile, () => measure(url, v, size, 'profile', 1, 77));
      if (args.breakdown) out(`\nmedian ms per retriever at ${size} memories (sequential, 1 client): ${JSON.stringify(await breakdown(deps, v, 60))}`);
      if (args.explain) await explain(deps, v);
    }
  } finally {
    await running.stop();
    await server?.drop();
    if (args.home === undefined) await rm(home, { recursive: true, force: true });
  }
  const f = (x: number) => x.toFixed(1).padStart(7);
  out(
    `\nrecall latency — ${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? 'unknown CPU'} (${os.cpus().length} cores), load avg ${os.loadavg()[0]?.toFixed(1)}, ` +
      `Node ${process.version}, ${server ? 'server: PostgreSQL + pgvector, Redis' : `embedded PGlite ${args.home ? 'on disk' : 'in memory'}`}, ${deps.providers.embeddings.model} ${dims}-d, ${args.scope} scope, mode memories, limit 10`,
  );
  out('memories  variant           clients  requests   p50 ms   p95 ms   p99 ms  server p50  server p95  cpu ms/req   req/s');
  for (const x of rows)
    out(
      `${String(x.memories).padStart(8)}  ${x.variant.padEnd(16)}  ${String(x.clients).padStart(7)}  ${String(x.requests).padStart(8)}  ${f(x.p50)}  ${f(x.p95)}  ${f(x.p99)}     ${f(x.server50)}     ${f(x.server95)}      ${f(x.cpu)}  ${f(x.rps)}`,
    );
}

await main();
