import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../../../src/config.js';
import { withTenant } from '../../../../src/db/pool.js';
import type { Logger } from '../../../../src/logger.js';
import { QUEUE_NAMES } from '../../../../src/queue/names.js';
import { flagString, type ParsedArgs } from '../../args.js';
import { startRoles } from '../roles.js';
import type { Locomo } from './locomo.js';

export interface LocomoRun {
  running: Awaited<ReturnType<typeof startRoles>>;
  url: string;
  /** Event id → LoCoMo dia id ("D8:6"). */
  diaOf: Map<string, string>;
  stop(): Promise<void>;
}

export interface BenchMemloom {
  running: Awaited<ReturnType<typeof startRoles>>;
  config: Config;
  url: string;
  /** Stops it and removes its home. */
  stop(): Promise<void>;
}

/**
 * A fresh in-memory memloom (API and workers, no watcher or scheduler) in a temporary home, with a
 * short extraction quiet period and `--embedder` applied: what every benchmark of `memloom bench`
 * runs against.
 */
export async function startBenchMemloom(base: Config, log: Logger, args: ParsedArgs): Promise<BenchMemloom> {
  // --home DIR: a database on disk that outlives the run (see ingestLocomo); else a temporary one in memory.
  const kept = flagString(args, 'home');
  const home = kept ? path.resolve(kept) : await mkdtemp(path.join(os.tmpdir(), 'memloom-bench-'));
  if (kept) await mkdir(home, { recursive: true });
  const config = loadConfig({
    ...Object.fromEntries(Object.entries(process.env)),
    MEMLOOM_HOME: home,
    EVENTS_DIR: path.join(home, 'events'),
    PORT: '0',
    EXTRACT_DEBOUNCE_MS: '300',
    LOG_LEVEL: base.LOG_LEVEL === 'info' ? 'warn' : base.LOG_LEVEL,
    ...(flagString(args, 'embedder') ? { EMBEDDINGS_MODEL: flagString(args, 'embedder') } : {}),
  });
  const running = await startRoles(config, log, { api: true, watcher: false, workers: QUEUE_NAMES, scheduler: false }, { inMemory: !kept });
  const url = `http://127.0.0.1:${(running.app!.server.address() as { port: number }).port}`;
  const stop = async () => {
    await running.stop();
    if (!kept) await rm(home, { recursive: true, force: true });
  };
  return { running, config, url, stop };
}

/**
 * A fresh in-memory memloom (API and workers) with the conversations ingested through the public
 * write path (one event per turn) and the pipeline settled: what every LoCoMo benchmark starts from.
 */
export async function ingestLocomo(base: Config, log: Logger, args: ParsedArgs, data: Locomo): Promise<LocomoRun> {
  // A --home that already holds a database is ranked as it is: nothing is sent again.
  const kept = flagString(args, 'home');
  const reuse = kept !== undefined && existsSync(path.join(path.resolve(kept), 'pgdata'));
  const { running, url, stop } = await startBenchMemloom(base, log, args);
  try {
    const t0 = performance.now();
    if (reuse) process.stderr.write(`reusing the database in ${kept}: nothing ingested\n`);
    // --speakers prefix: sent as a user without metadata would, "Name: text" (src/domain/speaker.ts).
    const prefixed = flagString(args, 'speakers') === 'prefix';
    const events = data.events.map(({ sample_id: _, ...e }) =>
      prefixed ? { ...e, content: `${e.metadata.speaker}: ${e.content}`, metadata: { dia_id: e.metadata.dia_id } } : e,
    );
    for (let i = 0; !reuse && i < events.length; i += 500) {
      const res = await fetch(`${url}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events: events.slice(i, i + 500) }),
      });
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
    return { running, url, diaOf, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The value at share `p` of an ascending list, one decimal. */
export function pct(sorted: number[], p: number): string {
  return (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0).toFixed(1);
}
