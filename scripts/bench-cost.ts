/**
 * The pipeline's cost per event (issue 37): the shape of the side-by-side comparison with mem0,
 * against the project's own provider stub. One memloom process (API and every pipeline worker)
 * with its OpenAI-compatible providers (chat and embeddings) pointed at the stub, which runs in a
 * process of its own (scripts/bench-cost-stub.ts) so that its CPU is not memloom's.
 *
 * Run: npm run bench:cost -- [--data ../shared/data/locomo-dev.json] [--events 300] [--db pglite,server] [--latency 0,200] [--sessions several,one] [--clients 1,8] [--debounce 1000] [--queries 50] [--warmup 50]
 *
 * Per run (a fresh database each, after `--warmup` untimed events of other users): `--events` LoCoMo turns of 10 users (the first turns of each
 * of the corpus's 10 conversations), one event per POST from 1 or 8 concurrent clients, in their
 * LoCoMo sessions (`several`: ~20 turns a session) or each event its own session (`one`). Printed:
 * - events/s end to end: from the first POST until no event is pending (everything recallable);
 * - add p50 (the POST's answer), chat calls and prompt tokens per event (memloom's own provider
 *   metrics: calls that passed the gate, tokens as the provider reported or as estimated);
 * - CPU ms per event: this process (every thread: with PGlite, the database's statements too), by
 *   stage and part from memloom_stage_cpu_seconds_total (src/stage-cpu.ts); on server PostgreSQL
 *   also the database backends' CPU (from /proc);
 * - search p50 / p95 over `--queries` recalls (a turn's text, its user) after the run.
 * `pglite` is embedded mode (PGlite on disk in a temporary home, queue on PostgreSQL); `server` is
 * a scratch database on the local PostgreSQL (DATABASE_URL's server, default 127.0.0.1:5432, with
 * pgvector) with the queue on PostgreSQL too. The LoCoMo file (CC BY-NC 4.0) is read from
 * ../shared/data, never copied into the repository. Figures go to stdout; nothing here is a test.
 */
import '../src/v8-flags.mjs';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { withTenant } from '../src/db/pool.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { startTestMemloom, type TestMemloom } from '../test/support/memloom.js';
import { backendCpu, cpuBetween, createBenchServer, databaseName, type BenchServer } from './bench-server.js';
import { loadTurns, type Turn } from './locomo-turns.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const PG_ADMIN = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const list = (name: string, fallback: string) => arg(name, fallback).split(',').filter(Boolean);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function post(url: string, event: object): Promise<void> {
  const res = await fetch(`${url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
  if (res.status !== 202) throw new Error(`POST /v1/events answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

/** The stub in its own process; resolves with its base URL and a stop function. */
async function startStub(latencyMs: number): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/bench-cost-stub.ts'), String(latencyMs)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`stub exited with ${code}`)));
  });
  return {
    url,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `n` turns of 10 users: the first n/10 turns of each LoCoMo conversation, as events. */
function corpus(turns: Turn[], n: number, sessions: 'several' | 'one', tag: string): object[] {
  const byUser = new Map<string, Turn[]>();
  for (const t of turns) byUser.set(t.user, [...(byUser.get(t.user) ?? []), t]);
  const users = [...byUser.values()].slice(0, 10);
  const per = Math.ceil(n / users.length);
  const out: object[] = [];
  // Interleaved across users, in each user's order, as 10 agents talking at once would send them.
  for (let i = 0; i < per; i++)
    for (const [u, ts] of users.entries()) {
      const t = ts[i];
      if (!t || out.length >= n) continue;
      out.push({
        id: `${tag}-${u}-${i}`,
        user_id: `${t.user}-${tag}`,
        session_id: sessions === 'one' ? `${tag}-${u}-${i}` : `${t.session}-${tag}`,
        role: 'user',
        content: t.text,
        metadata: { speaker: t.speaker },
      });
    }
  return out;
}

async function counter(m: TestMemloom, name: string, match: Record<string, string>): Promise<number> {
  const metric = m.deps.metrics.registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.filter((v) => Object.entries(match).every(([k, x]) => v.labels[k] === x)).reduce((s, v) => s + v.value, 0);
}

/** CPU seconds by `stage.part` so far (empty on a build without the counter). */
function stageCpu(m: TestMemloom): Record<string, number> {
  return (m.deps.metrics as { stageCpu?: { snapshot(): Record<string, number> } }).stageCpu?.snapshot() ?? {};
}

interface Run {
  seconds: number;
  addP50: number;
  chatCalls: number;
  promptTokens: number;
  cpuMs: number;
  dbCpuMs: number;
  stages: Record<string, number>;
  searchP50: number;
  searchP95: number;
}

async function run(db: string, stubUrl: string, events: object[], warmup: object[], clients: number, debounceMs: number, queries: number): Promise<Run> {
  let server: BenchServer | undefined;
  const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-bench-cost-'));
  if (db === 'server') server = await createBenchServer();
  const m = await startTestMemloom({
    home,
    inMemory: false,
    redis: false,
    env: {
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDINGS_BASE_URL: stubUrl,
      EMBEDDINGS_MODEL: 'stub-embed',
      EMBEDDINGS_DIMENSIONS: '384',
      EMBEDDINGS_API_KEY: 'bench',
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: stubUrl,
      LLM_MODEL: 'stub-chat',
      LLM_API_KEY: 'bench',
      EXTRACT_DEBOUNCE_MS: String(debounceMs),
      INGEST_RATE_PER_SEC: '1000000000',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
      ...(server ? { DATABASE_URL: server.databaseUrl } : {}),
    },
    roles: { api: true, workers: QUEUE_NAMES },
  });
  try {
    const pendingSql = `SELECT EXISTS (SELECT 1 FROM events WHERE status NOT IN ('done', 'skipped', 'failed')) AS any`;
    const pending = async () => (await withTenant(m.deps.db, 'default', (tx) => tx.query<{ any: boolean }>(pendingSql))).rows[0]?.any ?? false;
    // Untimed warm-up (another user's events): the first jobs' JIT, lazy modules and token tables.
    for (const e of warmup) await post(m.url, e);
    while (await pending()) await sleep(50);
    const calls0 = await counter(m, 'memloom_provider_calls_total', { provider: 'llm' });
    const tokens0 = await counter(m, 'memloom_provider_tokens_total', { provider: 'llm', direction: 'in' });
    const stages0 = stageCpu(m);
    const pg0 = server ? await backendCpu(PG_ADMIN, databaseName(server.databaseUrl)) : undefined;
    const cpu0 = process.cpuUsage();
    const adds: number[] = [];
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < events.length) {
          const e = events[next++];
          const s = performance.now();
          await post(m.url, e as object);
          adds.push(performance.now() - s);
        }
      }),
    );
    while (await pending()) await sleep(50);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const stages1 = stageCpu(m);
    const stages: Record<string, number> = {};
    for (const [k, v] of Object.entries(stages1)) stages[k] = ((v - (stages0[k] ?? 0)) * 1000) / events.length;
    const dbCpuMs = server && pg0 ? (cpuBetween(pg0, await backendCpu(PG_ADMIN, databaseName(server.databaseUrl))) * 1000) / events.length : 0;
    const chatCalls = (await counter(m, 'memloom_provider_calls_total', { provider: 'llm' })) - calls0;
    const promptTokens = (await counter(m, 'memloom_provider_tokens_total', { provider: 'llm', direction: 'in' })) - tokens0;
    const searches: number[] = [];
    for (let i = 0; i < queries; i++) {
      const e = events[Math.floor((i * events.length) / queries)] as { content: string; user_id: string };
      const s = performance.now();
      const res = await fetch(`${m.url}/v1/recall`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: e.content, user_id: e.user_id }),
      });
      if (res.status !== 200) throw new Error(`recall answered ${res.status}`);
      await res.arrayBuffer();
      searches.push(performance.now() - s);
    }
    return {
      seconds,
      addP50: percentile(adds, 50),
      chatCalls: chatCalls / events.length,
      promptTokens: promptTokens / events.length,
      cpuMs: (cpu.user + cpu.system) / 1000 / events.length,
      dbCpuMs,
      stages,
      searchP50: percentile(searches, 50),
      searchP95: percentile(searches, 95),
    };
  } finally {
    await m.close();
    await server?.drop();
    await rm(home, { recursive: true, force: true });
  }
}

/** Stage parts in print order, with the issue's names; the rest are summed as `other`. */
const PARTS: Array<[string, string[]]> = [
  ['triage', ['triage.handle']],
  ['chunk (tokenise)', ['chunk.handle']],
  ['chunk write (keys, BM25 stats triggers, term fold)', ['chunk.write', 'chunk.fold']],
  ['embed call', ['embed.handle', 'embed.provider']],
  ['embed write (HNSW, key vectors)', ['embed.write']],
  ['extract ask', ['extract.handle', 'extract.provider']],
  ['extract write', ['extract.write']],
  ['queue (next, enqueue)', ['triage.enqueue', 'chunk.enqueue', 'embed.enqueue', 'extract.enqueue']],
  ['outside jobs (API, polling)', ['outside']],
];

async function main(): Promise<void> {
  const n = Number(arg('events', '300'));
  const debounceMs = Number(arg('debounce', '1000'));
  const queries = Number(arg('queries', '50'));
  const warmupN = Number(arg('warmup', '50'));
  const file = arg('data', path.resolve(ROOT, '../shared/data/locomo-dev.json'));
  const turns = await loadTurns(file);
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out(
    `bench:cost — ${n} events of 10 users per run after ${warmupN} untimed, one event per POST, EXTRACT_DEBOUNCE_MS=${debounceMs}, ${queries} recalls after each run; ${os.cpus().length} cores, Node ${process.version}`,
  );
  const rows: string[] = [];
  let k = 0;
  for (const latency of list('latency', '0,200').map(Number)) {
    const stub = await startStub(latency);
    try {
      for (const db of list('db', 'pglite,server'))
        for (const sessions of list('sessions', 'several,one') as Array<'several' | 'one'>)
          for (const clients of list('clients', '1,8').map(Number)) {
            const warm = corpus(turns, warmupN, sessions, `w${k}`);
            const r = await run(db, stub.url, corpus(turns, n, sessions, `c${k++}`), warm, clients, debounceMs, queries);
            const label = `${db}, stub ${latency} ms, ${sessions === 'one' ? 'one-event sessions' : 'sessions of several events'}, ${clients} client(s)`;
            const parts = PARTS.map(([name, keys]) => [name, keys.reduce((s, key) => s + (r.stages[key] ?? 0), 0)] as const);
            const known = new Set(PARTS.flatMap(([, keys]) => keys));
            const other = Object.entries(r.stages)
              .filter(([key]) => !known.has(key))
              .reduce((s, [, v]) => s + v, 0);
            out(
              `${label}: ${(n / r.seconds).toFixed(1)} events/s end to end (${r.seconds.toFixed(1)} s), add p50 ${r.addP50.toFixed(1)} ms, ` +
                `${r.chatCalls.toFixed(3)} chat calls and ${r.promptTokens.toFixed(0)} prompt tokens per event, CPU ${r.cpuMs.toFixed(2)} ms per event` +
                `${db === 'server' ? ` + PostgreSQL ${r.dbCpuMs.toFixed(2)} ms` : ''}, search p50 / p95 ${r.searchP50.toFixed(1)} / ${r.searchP95.toFixed(1)} ms`,
            );
            if (Object.keys(r.stages).length > 0)
              out(`  CPU ms per event by stage: ${[...parts, ['other', other] as const].map(([name, v]) => `${name} ${v.toFixed(2)}`).join(', ')}`);
            rows.push(
              `| ${db} | ${latency} | ${sessions} | ${clients} | ${(n / r.seconds).toFixed(1)} | ${r.addP50.toFixed(1)} | ${r.chatCalls.toFixed(3)} | ${r.promptTokens.toFixed(0)} | ${r.cpuMs.toFixed(2)}${db === 'server' ? ` + ${r.dbCpuMs.toFixed(2)}` : ''} | ${r.searchP50.toFixed(1)} / ${r.searchP95.toFixed(1)} |`,
            );
          }
    } finally {
      await stub.stop();
    }
  }
  out('');
  out(
    '| database | stub ms | sessions | clients | events/s | add p50 ms | chat calls / event | prompt tokens / event | CPU ms / event (process + PostgreSQL) | search p50 / p95 ms |',
  );
  out('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) out(r);
}

await main();
