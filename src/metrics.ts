/**
 * Prometheus metrics of one process (prom-client), created by createDeps and carried in deps: no
 * module-level registry, so every test and every process owns its own. Counters count what this
 * process did; gauges for queues and budgets are read on each scrape from shared state (queue
 * backend, gate store), so any process's /metrics shows the deployment-wide figures for those.
 * Names and labels are documented in docs/guardrails.md.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SessionHoldStats } from './db/pglite-session-queue.js';
import type { DbPriority } from './db/priority.js';
import type { Logger } from './logger.js';
import { StageCpu } from './stage-cpu.js';

/** One figure of the gate's shared state (see Gate.state). */
export interface GateStateRow {
  /** `tokens` (budget windows), `rate` (per-minute windows), `tasks` (tenant background tasks). */
  what: 'tokens' | 'rate' | 'tasks';
  labels: Record<string, string>;
  limit: number;
  used: number;
}

export interface MetricSources {
  queueCounts(): Promise<Record<string, Record<string, number>>>;
  gateState(): Promise<GateStateRow[]>;
  /** The embedded database's session figures (src/db/pglite-session-queue.ts); absent on a server. */
  sessionStats?: () => Promise<SessionHoldStats>;
  log: Logger;
}

export interface Metrics {
  readonly registry: Registry;
  /** Seconds per job attempt; status completed | failed | retry | delayed | rate_limited. */
  readonly jobDuration: Histogram<'queue' | 'status'>;
  /** Paid provider calls that passed the gate; outcome ok | error | rate_limited. */
  readonly providerCalls: Counter<'provider' | 'model' | 'outcome'>;
  /** Tokens billed (provider usage, else the estimate); direction in | out. */
  readonly providerTokens: Counter<'provider' | 'model' | 'direction'>;
  /** HTTP 429 answers from providers. */
  readonly providerRateLimited: Counter<'provider'>;
  /** Calls the gate held back; code RATE_WAIT | BUDGET_WAIT, reason the limit that was full. */
  readonly gateWaits: Counter<'provider' | 'code' | 'reason'>;
  /** Enqueues merged into an already pending job by debounce (deduplication). */
  readonly debounced: Counter<'queue'>;
  /** Jobs that failed for good and were written to dead_letters. */
  readonly deadLetters: Counter<'queue'>;
  /** CPU time of this process by pipeline stage and part (src/stage-cpu.ts). */
  readonly stageCpu: StageCpu;
  /** Connects the scrape-time gauges to their sources (queues and gate exist after the registry). */
  bind(sources: MetricSources): void;
}

const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export interface MetricsOptions {
  /**
   * Export per-tenant budget and task gauges, labelled with tenant ids (METRICS_TENANT_LABELS).
   * Off by default: a scrape then names no tenant, and only deployment-wide figures are exported.
   */
  tenantLabels?: boolean;
}

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const tenantLabels = opts.tenantLabels ?? false;
  const registry = new Registry();
  // Node's own figures (process_resident_memory_bytes, event loop lag, GC), read on each scrape.
  collectDefaultMetrics({ register: registry });
  let sources: MetricSources | undefined;
  const registers = [registry];

  new Gauge({
    name: 'memloom_queue_jobs',
    help: 'Jobs per queue and state (waiting includes prioritized), read from the queue backend on scrape.',
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect() {
      if (!sources) return;
      this.reset();
      try {
        const counts = await sources.queueCounts();
        for (const [queue, states] of Object.entries(counts)) {
          for (const [state, n] of Object.entries(states)) this.set({ queue, state }, n);
        }
      } catch (err) {
        sources.log.warn({ err }, 'queue counts unavailable for metrics');
      }
    },
  });

  // The four gate gauges share one read of the gate state per scrape: prom-client collects all
  // metrics of a scrape concurrently, so the first collect starts the read and the others join it.
  let stateRead: Promise<GateStateRow[] | undefined> | undefined;
  const gateState = (): Promise<GateStateRow[] | undefined> => {
    if (!sources) return Promise.resolve(undefined);
    const s = sources;
    stateRead ??= s
      .gateState()
      .then(
        (rows) => rows,
        (err: unknown) => {
          s.log.warn({ err }, 'gate state unavailable for metrics');
          return undefined;
        },
      )
      .finally(() => setImmediate(() => (stateRead = undefined)));
    return stateRead;
  };
  const gateGauge = (name: string, help: string, labelNames: string[], pick: (row: GateStateRow) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        const rows = await gateState();
        if (!rows) return;
        this.reset();
        for (const row of rows) {
          if (!tenantLabels && row.labels.tenant !== undefined && row.labels.tenant !== '') continue;
          const v = pick(row);
          if (v !== undefined) this.set(row.labels, v);
        }
      },
    });
  const remaining = (row: GateStateRow) => Math.max(0, row.limit - row.used);
  gateGauge(
    'memloom_budget_remaining_tokens',
    'LLM tokens left in the current budget window (window hour | day; scope global | tenant).',
    ['scope', 'tenant', 'window'],
    (r) => (r.what === 'tokens' ? remaining(r) : undefined),
  );
  gateGauge('memloom_budget_limit_tokens', 'LLM token budget of the window.', ['scope', 'tenant', 'window'], (r) =>
    r.what === 'tokens' ? r.limit : undefined,
  );
  gateGauge(
    'memloom_rate_remaining',
    'Requests or tokens left in the current rate window of a provider (unit requests | tokens).',
    ['provider', 'unit'],
    (r) => (r.what === 'rate' ? remaining(r) : undefined),
  );
  gateGauge('memloom_tenant_tasks_remaining', 'Background consolidation tasks a tenant may still start in the current hour window.', ['tenant'], (r) =>
    r.what === 'tasks' ? remaining(r) : undefined,
  );

  // Embedded mode: how long one connection held PGlite's single session, per priority.
  const sessionGauge = (name: string, help: string, pick: (s: SessionHoldStats, p: DbPriority) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['priority'],
      registers,
      async collect() {
        const stats = await sources?.sessionStats?.();
        if (!stats) return;
        for (const p of ['api', 'background'] as const) this.set({ priority: p }, pick(stats, p));
      },
    });
  sessionGauge(
    'memloom_db_session_hold_max_seconds',
    'Embedded database: the longest one connection held the session (a transaction or statement), by priority, since start.',
    (s, p) => s.maxMs[p] / 1000,
  );
  sessionGauge(
    'memloom_db_session_holds_over_100ms',
    'Embedded database: turns on the session longer than 100 ms, by priority, since start.',
    (s, p) => s.over100Ms[p],
  );
  sessionGauge(
    'memloom_db_session_wait_max_seconds',
    'Embedded database: the longest a statement waited for the session, by priority, since start.',
    (s, p) => s.maxWaitMs[p] / 1000,
  );

  const stageCpu = new StageCpu();
  new Counter({
    name: 'memloom_stage_cpu_seconds_total',
    help: "CPU seconds of this process by pipeline stage and part (handle, provider, write, enqueue; stage outside: no job running); concurrent jobs share the process's CPU equally.",
    labelNames: ['stage', 'part'] as const,
    registers,
    collect() {
      this.reset();
      for (const [key, seconds] of Object.entries(stageCpu.snapshot())) {
        const [stage, part = ''] = key.split('.');
        this.inc({ stage, part }, seconds);
      }
    },
  });

  return {
    registry,
    stageCpu,
    jobDuration: new Histogram({
      name: 'memloom_job_duration_seconds',
      help: 'Duration of one job attempt.',
      labelNames: ['queue', 'status'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    providerCalls: new Counter({
      name: 'memloom_provider_calls_total',
      help: 'Paid provider calls made through the gate.',
      labelNames: ['provider', 'model', 'outcome'] as const,
      registers,
    }),
    providerTokens: new Counter({
      name: 'memloom_provider_tokens_total',
      help: 'Tokens used by paid provider calls.',
      labelNames: ['provider', 'model', 'direction'] as const,
      registers,
    }),
    providerRateLimited: new Counter({
      name: 'memloom_provider_rate_limited_total',
      help: 'HTTP 429 answers from paid providers.',
      labelNames: ['provider'] as const,
      registers,
    }),
    gateWaits: new Counter({
      name: 'memloom_gate_waits_total',
      help: 'Calls held back by the gate (RATE_WAIT or BUDGET_WAIT).',
      labelNames: ['provider', 'code', 'reason'] as const,
      registers,
    }),
    debounced: new Counter({
      name: 'memloom_debounced_jobs_total',
      help: 'Enqueues merged into a pending job by debounce.',
      labelNames: ['queue'] as const,
      registers,
    }),
    deadLetters: new Counter({
      name: 'memloom_dead_letter_jobs_total',
      help: 'Jobs that failed for good (dead-lettered).',
      labelNames: ['queue'] as const,
      registers,
    }),
    bind(s) {
      sources = s;
    },
  };
}
