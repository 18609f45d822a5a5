import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../../../src/config.js';
import { withTenant } from '../../../../src/db/pool.js';
import type { Logger } from '../../../../src/logger.js';
import { QUEUE_NAMES } from '../../../../src/queue/names.js';
import { recallChunks } from '../../../../src/recall/chunks.js';
import { recallContext } from '../../../../src/recall/context.js';
import { RecallInput, type RecallResult } from '../../../../src/recall/schema.js';
import { flagString, type ParsedArgs } from '../../args.js';
import { startRoles } from '../serve.js';
import { loadLocomo, type LocomoQuestion } from './locomo.js';

const KS = [5, 10, 25] as const;
const CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };
type Strategy = 'memories' | 'auto' | 'chunks' | 'graph' | 'bm25-only' | 'vector-only';
const STRATEGIES: Strategy[] = ['memories', 'auto', 'chunks', 'graph', 'bm25-only', 'vector-only'];

/**
 * `memloom bench recall --locomo <file>`: ingests each conversation through the public write path
 * (one event per turn), waits for the pipeline, asks every question through POST /v1/recall (and
 * the two single-retriever baselines in-process), maps results to turns through provenance and
 * prints evidence recall@5/10/25 overall and per category.
 */
export async function benchRecall(base: Config, log: Logger, args: ParsedArgs): Promise<void> {
  const file = flagString(args, 'locomo');
  if (!file) throw new Error('usage: memloom bench recall --locomo <file> [--conversations N] [--embedder hashing|use-lite]');
  const data = await loadLocomo(file, Number(flagString(args, 'conversations') ?? Infinity));
  const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-bench-'));
  const config = loadConfig({
    ...Object.fromEntries(Object.entries(process.env)),
    MEMLOOM_HOME: home, EVENTS_DIR: path.join(home, 'events'), PORT: '0', EXTRACT_DEBOUNCE_MS: '300', LOG_LEVEL: base.LOG_LEVEL === 'info' ? 'warn' : base.LOG_LEVEL,
    ...(flagString(args, 'embedder') ? { EMBEDDINGS_MODEL: flagString(args, 'embedder') } : {}),
  });
  const running = await startRoles(config, log, { api: true, watcher: false, workers: QUEUE_NAMES, scheduler: false }, { inMemory: true });
  const url = `http://127.0.0.1:${(running.app?.server.address() as { port: number }).port}`;
  try {
    const t0 = performance.now();
    for (let i = 0; i < data.events.length; i += 500) {
      const res = await fetch(`${url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ events: data.events.slice(i, i + 500) }) });
      if (res.status !== 202) throw new Error(`ingest failed: ${res.status} ${await res.text()}`);
    }
    for (;;) {
      const stats = (await (await fetch(`${url}/v1/stats`)).json()) as { pending_events: number; objects: Record<string, number> };
      if (stats.pending_events === 0) {
        process.stderr.write(`ingested ${data.events.length} turns in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${JSON.stringify(stats.objects)}\n`);
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const diaOf = await withTenant(running.deps.db, 'default', async (tx) => {
      const { rows } = await tx.query<{ id: string; dia: string }>(`SELECT id, metadata->>'dia_id' AS dia FROM events`);
      return new Map(rows.map((r) => [r.id, r.dia]));
    });
    const scores = new Map<Strategy, Array<{ q: LocomoQuestion; recall: number[] }>>(STRATEGIES.map((s) => [s, []]));
    const latencies: number[] = [];
    for (const q of data.questions) {
      for (const strategy of STRATEGIES) {
        const results = await ask(running.deps, url, strategy, q, latencies);
        const retrieved = (k: number) => new Set(results.slice(0, k).flatMap((r) => r.source.event_ids.map((e) => diaOf.get(e)).filter((d): d is string => !!d)));
        scores.get(strategy)?.push({ q, recall: KS.map((k) => q.evidence.filter((e) => retrieved(k).has(e)).length / q.evidence.length) });
      }
    }
    printTable(scores, data.questions.length);
    latencies.sort((a, b) => a - b);
    process.stdout.write(`\nrecall latency over HTTP (memories/auto/chunks/graph): p50 ${pct(latencies, 0.5)} ms, p95 ${pct(latencies, 0.95)} ms (${latencies.length} requests)\n`);
  } finally {
    await running.stop();
    await rm(home, { recursive: true, force: true });
  }
}

async function ask(deps: Parameters<typeof recallContext>[0], url: string, strategy: Strategy, q: LocomoQuestion, latencies: number[]): Promise<RecallResult[]> {
  const body = { query: q.question, user_id: q.sampleId, limit: 25 };
  if (strategy === 'bm25-only' || strategy === 'vector-only') {
    const ctx = await recallContext(deps, 'default', RecallInput.parse({ ...body, mode: 'chunks' }));
    return recallChunks(ctx, 25, strategy === 'bm25-only' ? 'keyword' : 'vector');
  }
  const t = performance.now();
  const res = await fetch(`${url}/v1/recall`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, mode: strategy }) });
  latencies.push(performance.now() - t);
  return ((await res.json()) as { results: RecallResult[] }).results;
}

function printTable(scores: Map<Strategy, Array<{ q: LocomoQuestion; recall: number[] }>>, n: number): void {
  const cats = [...new Set([...scores.values()][0]?.map((s) => s.q.category) ?? [])].sort();
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : (100 * xs.reduce((a, b) => a + b, 0)) / xs.length);
  const out = [`evidence recall @5 / @10 / @25 over ${n} questions`, ['strategy'.padEnd(12), 'overall'.padEnd(20), ...cats.map((c) => `${c} ${CATEGORIES[c] ?? ''}`.padEnd(20))].join(' ')];
  for (const [strategy, rows] of scores) {
    const cell = (subset: typeof rows) => KS.map((_, i) => mean(subset.map((r) => r.recall[i] as number)).toFixed(1)).join(' / ').padEnd(20);
    out.push([strategy.padEnd(12), cell(rows), ...cats.map((c) => cell(rows.filter((r) => r.q.category === c)))].join(' '));
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

function pct(sorted: number[], p: number): string {
  return (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0).toFixed(1);
}
