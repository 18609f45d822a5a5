/**
 * Pipeline throughput and freshness in embedded mode (one process: PGlite on disk, the PostgreSQL
 * queue backend, every pipeline worker), for each local embedder.
 *
 * Run: npx tsx scripts/bench-pipeline.ts [path/to/locomo-dev.json] [--models hashing,use-lite] [--repeat 1] [--bursts 2] [--warmup 0] [--seconds 20] [--rate 50] [--only throughput|freshness] [--debounce 100] [--redis] [--in-memory]
 *
 * (a) throughput: N conversational events (LoCoMo turns, with speakers and sessions) posted in
 *     batches of 200; events/s from the first POST until pending_events == 0, i.e. until everything
 *     is recallable as memory (triage, chunk, embed and the debounced extraction all done). Also
 *     printed: how long the main thread and PGlite's thread were busy, and the process's CPU time.
 *     `--bursts` (default 2) times that many bursts one after the other on the same instance, each
 *     another copy of the corpus (other users and sessions): the first is a fresh process's, with
 *     its one-time costs (the JIT of the first jobs, loading the token tables, starting the
 *     extractor's thread); the next ones are a running instance's. `--warmup N` first sends the
 *     corpus's first N turns as another user's and waits until they are done, untimed.
 * (b) freshness: a fresh instance receives events at a steady rate (default 50/s, round-robin over
 *     the sessions, 5 per POST every 100 ms); per event, the time from the POST's answer until its
 *     chunk has a vector, and until its extraction is done (minus EXTRACT_DEBOUNCE_MS). Chunks are
 *     polled every 50 ms and events every 500 ms, so chunk figures carry up to 50 ms of polling
 *     error and extraction figures up to 500 ms. Chunk freshness is printed twice: over all events,
 *     and over those sent after the first 3 s (a fresh process's first seconds are slower: JIT,
 *     first module loads, first plans).
 *
 * `--debounce` sets EXTRACT_DEBOUNCE_MS: 100 ms by default, so that extraction runs while events
 * arrive and competes with chunking and embedding for PGlite's one thread. With memloom's default
 * (30 s), a session that keeps talking is extracted once it goes quiet, here after the last send.
 *
 * `--redis` runs the queues on Redis, `--in-memory` keeps PGlite in memory (comparisons: embedded
 * mode has neither).
 * `--server --workers 1,2,4` also runs server mode (scripts/bench-pipeline-server.ts): the first
 * burst's events on PostgreSQL + Redis with 1, 2 and 4 `memloom worker` processes, each count on a
 * fresh scratch database, with every process's CPU time (after the `--warmup` events, untimed);
 * `--only server` skips the embedded runs.
 * The LoCoMo file (CC BY-NC 4.0) is read from ../shared/data, never copied into the repository.
 * Figures go to stdout as a table; nothing here is a test.
 */
// First: the V8 settings of a memloom process (bin/memloom.js), since memloom runs in this one.
import '../src/v8-flags.mjs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { withTenant } from '../src/db/pool.js';
import { QUEUE_NAMES } from '../src/queue/names.js';
import { startTestMemloom, type TestMemloom } from '../test/support/memloom.js';
import { serverThroughput } from './bench-pipeline-server.js';
import { events, interleave, loadTurns } from './locomo-turns.js';

/** EXTRACT_DEBOUNCE_MS of the runs (`--debounce`); memloom's default is 30,000. */
const DEBOUNCE_MS = Number(arg('debounce', '100'));
/** Freshness is also reported without the events sent in the first WARM_MS of a fresh instance. */
const WARM_MS = 3000;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

async function start(model: string): Promise<{ m: TestMemloom; home: string }> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-bench-'));
  const m = await startTestMemloom({
    redis: process.argv.includes('--redis'),
    home,
    inMemory: process.argv.includes('--in-memory'),
    env: {
      EMBEDDINGS_PROVIDER: 'local',
      EMBEDDINGS_MODEL: model,
      EXTRACT_DEBOUNCE_MS: String(DEBOUNCE_MS),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    },
    roles: { api: true, workers: QUEUE_NAMES },
  });
  return { m, home };
}

async function stop({ m, home }: { m: TestMemloom; home: string }): Promise<void> {
  await m.close();
  await rm(home, { recursive: true, force: true });
}

async function post(url: string, batch: object[]): Promise<void> {
  const res = await fetch(`${url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ events: batch }) });
  if (res.status !== 202) throw new Error(`POST /v1/events answered ${res.status}: ${await res.text()}`);
}

/**
 * Whether any event is pending, by the definition of pending_events in /v1/stats (without the
 * queue counts). EXISTS stops at the first one: a count every 100 ms took ~2% of PGlite's time.
 */
async function pending(m: TestMemloom): Promise<boolean> {
  return withTenant(
    m.deps.db,
    'default',
    async (tx) =>
      (await tx.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM events WHERE status NOT IN ('done', 'skipped', 'failed')) AS any`)).rows[0]?.any ?? false,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Burst {
  seconds: number;
  ingestSeconds: number;
  mainBusySeconds: number;
  dbBusySeconds: number;
  cpuSeconds: number;
  stats: Record<string, number>;
}

/** Times each burst in turn on one instance: the first on a fresh process, the next on a running one. */
async function throughput(model: string, bursts: object[][], warmup: object[]): Promise<Burst[]> {
  const inst = await start(model);
  try {
    if (warmup.length > 0) {
      for (let i = 0; i < warmup.length; i += 200) await post(inst.m.url, warmup.slice(i, i + 200));
      while (await pending(inst.m)) await sleep(100);
    }
    const results: Burst[] = [];
    for (const list of bursts) {
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const elu0 = performance.eventLoopUtilization();
      const dbElu0 = inst.m.deps.embedded?.utilization();
      for (let i = 0; i < list.length; i += 200) await post(inst.m.url, list.slice(i, i + 200));
      const ingestSeconds = (performance.now() - t0) / 1000;
      while (await pending(inst.m)) await sleep(100);
      const seconds = (performance.now() - t0) / 1000;
      const mainBusySeconds = performance.eventLoopUtilization(elu0).active / 1000;
      const dbBusySeconds = (inst.m.deps.embedded?.utilization(dbElu0).active ?? 0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const stats = (await (await fetch(`${inst.m.url}/v1/stats`)).json()) as { objects: Record<string, number>; pending_events: number };
      if (stats.pending_events !== 0) throw new Error('stats disagree: pending_events > 0');
      results.push({ seconds, ingestSeconds, mainBusySeconds, dbBusySeconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, stats: stats.objects });
    }
    return results;
  } finally {
    await stop(inst);
  }
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function freshness(model: string, list: object[], rate: number, seconds: number) {
  const inst = await start(model);
  const acked = new Map<string, number>();
  const embeddedAt = new Map<string, number>();
  const embeddedWall = new Map<string, number>();
  const doneAt = new Map<string, number>();
  let sending = true;
  let lastAck = performance.now();
  let lastDonePoll = 0;
  // Events triage skipped, by their status (an event first seen with a vector in the same poll
  // that saw it done is not one: the poller was late, its latency counts).
  const skipped = new Set<string>();
  const poller = (async () => {
    while (sending || embeddedAt.size < acked.size || doneAt.size < acked.size) {
      const waitingChunk = [...acked.keys()].filter((id) => !embeddedAt.has(id));
      const waitingDone = [...acked.keys()].filter((id) => !doneAt.has(id));
      const now = performance.now();
      await withTenant(inst.m.deps.db, 'default', async (tx) => {
        if (waitingChunk.length > 0) {
          const { rows } = await tx.query<{ event_id: string }>(
            'SELECT DISTINCT event_id FROM chunks WHERE event_id = ANY($1::uuid[]) AND embedding IS NOT NULL',
            [waitingChunk],
          );
          for (const r of rows) {
            embeddedAt.set(r.event_id, now);
            embeddedWall.set(r.event_id, Date.now());
          }
        }
        // Extraction takes seconds: looking every 500 ms keeps the poller's own load off PGlite
        // (a lookup of up to a thousand ids every 50 ms took ~8% of its time).
        if (waitingDone.length > 0 && now - lastDonePoll >= 500) {
          lastDonePoll = now;
          const { rows } = await tx.query<{ id: string; status: string }>(
            `SELECT id, status FROM events WHERE id = ANY($1::uuid[]) AND status IN ('done', 'skipped')`,
            [waitingDone],
          );
          for (const r of rows) {
            doneAt.set(r.id, now);
            if (r.status === 'skipped') {
              skipped.add(r.id);
              embeddedAt.set(r.id, now); // no chunk will ever come
            }
          }
        }
      });
      if (!sending && performance.now() - lastAck > 600_000) break;
      await sleep(50);
    }
  })();
  const perTick = Math.max(1, Math.round(rate / 10));
  const total = Math.min(list.length, rate * seconds);
  try {
    const sends: Array<Promise<void>> = [];
    const t0 = performance.now();
    for (let i = 0, tick = 0; i < total; i += perTick, tick++) {
      const due = t0 + tick * 100;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const batch = list.slice(i, Math.min(i + perTick, total));
      sends.push(
        (async () => {
          const res = await fetch(`${inst.m.url}/v1/events`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ events: batch }),
          });
          const body = (await res.json()) as { ids: string[] };
          lastAck = performance.now();
          for (const id of body.ids) acked.set(id, lastAck);
        })(),
      );
    }
    await Promise.all(sends);
    const sendSeconds = (performance.now() - t0) / 1000;
    sending = false;
    await poller;
    const chunkLatency: number[] = [];
    // The same without the first seconds of a fresh instance (JIT, first loads, first plans).
    const warmChunkLatency: number[] = [];
    const firstAck = Math.min(...acked.values());
    const extractLatency: number[] = [];
    for (const [id, at] of acked) {
      const e = embeddedAt.get(id);
      const d = doneAt.get(id);
      if (e !== undefined && !skipped.has(id)) chunkLatency.push(e - at);
      if (e !== undefined && !skipped.has(id) && at - firstAck >= WARM_MS) warmChunkLatency.push(e - at);
      if (d !== undefined && !skipped.has(id)) extractLatency.push(Math.max(0, d - at - DEBOUNCE_MS));
    }
    // Where a chunk's latency goes: stored → chunked (triage and chunk jobs) → embedded (embed job),
    // from the database's clock (transaction start times) and the poller's wall clock.
    const stages = await withTenant(
      inst.m.deps.db,
      'default',
      async (tx) =>
        (
          await tx.query<{ id: string; received: number; chunked: number }>(
            `SELECT e.id, extract(epoch FROM e.received_at) * 1000 AS received, extract(epoch FROM min(c.created_at)) * 1000 AS chunked
         FROM events e JOIN chunks c ON c.event_id = e.id WHERE e.id = ANY($1::uuid[]) GROUP BY e.id, e.received_at`,
            [[...acked.keys()]],
          )
        ).rows,
    );
    const toChunk = stages.map((r) => Number(r.chunked) - Number(r.received));
    const toVector = stages.flatMap((r) => (embeddedWall.has(r.id) ? [(embeddedWall.get(r.id) as number) - Number(r.chunked)] : []));
    return {
      stored2chunkP50: percentile(toChunk, 50),
      stored2chunkP95: percentile(toChunk, 95),
      chunk2vectorP50: percentile(toVector, 50),
      chunk2vectorP95: percentile(toVector, 95),
      sent: acked.size,
      sendRate: acked.size / sendSeconds,
      skipped: skipped.size,
      chunkP50: percentile(chunkLatency, 50),
      chunkP95: percentile(chunkLatency, 95),
      warmChunkP50: percentile(warmChunkLatency, 50),
      warmChunkP95: percentile(warmChunkLatency, 95),
      warmChunkMax: Math.max(...warmChunkLatency),
      extractP50: percentile(extractLatency, 50),
      extractP95: percentile(extractLatency, 95),
      missing: acked.size - doneAt.size,
    };
  } finally {
    sending = false;
    await poller.catch(() => undefined);
    await stop(inst);
  }
}

async function main(): Promise<void> {
  const file = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : path.resolve(import.meta.dirname, '../../shared/data/locomo-dev.json');
  const models = arg('models', 'hashing,use-lite').split(',');
  const copies = Number(arg('repeat', '1'));
  const warmupTurns = Number(arg('warmup', '0'));
  const burstCount = Number(arg('bursts', '2'));
  if (!Number.isInteger(burstCount) || burstCount < 1) throw new Error('--bursts must be a positive integer');
  const seconds = Number(arg('seconds', '20'));
  const rate = Number(arg('rate', '50'));
  const turns = await loadTurns(file);
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const warmup = events(turns.slice(0, warmupTurns), 1, 'w').map((e) => ({ ...e, user_id: 'bench-warmup' }));
  out(
    `corpus: ${turns.length} LoCoMo turns from ${file}; throughput: ${burstCount} burst(s) of ${turns.length * copies} events on one instance${warmup.length > 0 ? `, after ${warmup.length} untimed warm-up events` : ', the first on a fresh process'}; freshness at ${rate} events/s for ${seconds} s; EXTRACT_DEBOUNCE_MS=${DEBOUNCE_MS}`,
  );
  const rows: string[] = [];
  for (const model of models) {
    const only = arg('only', '');
    const n = turns.length * copies;
    const ms = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(0));
    if (process.argv.includes('--server')) {
      for (const w of arg('workers', '1,2,4').split(',').map(Number)) {
        const b = await serverThroughput(model, events(turns, copies, 't0'), w, DEBOUNCE_MS, warmup);
        const cpu = b.workerCpu.map((x) => x.toFixed(1)).join(' + ');
        out(
          `${model}, server, ${w} worker process(es): ${n} events recallable in ${b.seconds.toFixed(1)} s (${(n / b.seconds).toFixed(0)} events/s; POSTs took ${b.ingestSeconds.toFixed(1)} s), ` +
            `CPU s: workers ${cpu}, API ${b.apiCpu.toFixed(1)}, PostgreSQL ${b.pgCpu.toFixed(1)}, redis-server ${b.redisCpu.toFixed(1)}; load ${b.loadBefore.toFixed(1)} → ${b.loadAfter.toFixed(1)}; ` +
            `stalled events (received 5 s after the hand-off, left to the requeue task): ${b.stalled}`,
        );
        rows.push(`| ${model} | server, ${w} worker process(es) | ${n} | ${b.seconds.toFixed(1)} | ${(n / b.seconds).toFixed(0)} | - | - / - | - / - |`);
      }
    }
    if (only === 'server') continue;
    if (only !== 'freshness') {
      // Burst k is another copy of the corpus (other users and sessions) on the same instance.
      const timed = await throughput(
        model,
        Array.from({ length: burstCount }, (_, k) => events(turns, copies, `t${k}`)),
        warmup,
      );
      timed.forEach((t, k) => {
        const label = burstLabel(k, warmup.length);
        out(
          `${model}, ${label}: ${n} events recallable in ${t.seconds.toFixed(1)} s (POSTs took ${t.ingestSeconds.toFixed(1)} s); objects ${JSON.stringify(t.stats)}`,
        );
        out(
          `${model}, ${label}: main thread busy ${t.mainBusySeconds.toFixed(2)} s (${((100 * t.mainBusySeconds) / t.seconds).toFixed(0)}%), PGlite's thread ${t.dbBusySeconds.toFixed(2)} s (${((100 * t.dbBusySeconds) / t.seconds).toFixed(0)}%), process CPU ${t.cpuSeconds.toFixed(2)} s (all threads)`,
        );
        rows.push(`| ${model} | ${label} | ${n} | ${t.seconds.toFixed(1)} | ${(n / t.seconds).toFixed(0)} | - | - / - | - / - |`);
      });
    }
    if (only !== 'throughput') {
      const f = await freshness(model, interleave(events(turns, 2, 'f')), rate, seconds);
      out(
        `${model}: freshness over ${f.sent} events sent at ${f.sendRate.toFixed(1)}/s (${f.skipped} skipped by triage, ${f.missing} not done when polling stopped)`,
      );
      out(
        `${model}: chunk freshness after the first ${WARM_MS / 1000} s, p50 / p95 / max ms: ${f.warmChunkP50.toFixed(0)} / ${f.warmChunkP95.toFixed(0)} / ${f.warmChunkMax.toFixed(0)}`,
      );
      out(
        `${model}: chunk latency by step, p50 / p95 ms: stored → chunk row ${f.stored2chunkP50.toFixed(0)} / ${f.stored2chunkP95.toFixed(0)}, chunk row → vector seen ${f.chunk2vectorP50.toFixed(0)} / ${f.chunk2vectorP95.toFixed(0)}`,
      );
      rows.push(
        `| ${model} | freshness, a fresh process | - | - | - | ${rate} | ${ms(f.chunkP50)} / ${ms(f.chunkP95)} | ${ms(f.extractP50)} / ${ms(f.extractP95)} |`,
      );
    }
  }
  out('');
  out(
    '| embedder | run | events | ingest → recallable (s) | events/s | sent/s | chunk freshness p50 / p95 (ms) | extraction freshness p50 / p95 (ms, minus debounce) |',
  );
  out('|---|---|---|---|---|---|---|---|');
  for (const r of rows) out(r);
}

function burstLabel(k: number, warmup: number): string {
  if (k > 0) return `burst ${k + 1}, a running instance`;
  return warmup > 0 ? `burst 1, after ${warmup} warm-up events` : 'burst 1, a fresh process';
}

await main();
