import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueNext } from '../src/queue/runner.js';
import { CATALOG } from '../workers/catalog.js';
import { extractJob } from '../workers/extract/schema.js';
import { startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { callsTo, postEvents, sql, stubProviderEnv, waitDrained } from './support/pipeline.js';
import { startProviderStub, type ProviderStub, type RecordedCall } from './support/provider-stub.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnMemloom } from './support/process.js';

interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format → name → samples (comments skipped). */
function parseMetrics(text: string): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unparseable metrics line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k as string] = v as string;
    out.set(m[1] as string, [...(out.get(m[1] as string) ?? []), { labels, value: Number(m[3]) }]);
  }
  return out;
}

/** Sum of the samples of `name` whose labels include `match`. */
function value(metrics: Map<string, Sample[]>, name: string, match: Record<string, string> = {}): number {
  const samples = metrics.get(name);
  if (!samples) throw new Error(`metric ${name} missing`);
  return samples.filter((s) => Object.entries(match).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

const tokens = (text: string) => Math.ceil(text.length / 4);
/** What the stub bills for a call it answered (it counts ceil(chars / 4)). */
function billed(c: RecordedCall): { in: number; out: number } {
  if (c.path === '/v1/embeddings') {
    const input: string[] = Array.isArray(c.body.input) ? c.body.input : [c.body.input];
    return { in: input.reduce((s, t) => s + tokens(t), 0), out: 0 };
  }
  const prompt = (c.body.messages as Array<{ content: string | null }>).map((m) => m.content ?? '').join('\n');
  return { in: tokens(prompt), out: tokens('{"memories":[],"entities":[],"triplets":[]}') };
}

describe('GET /metrics', () => {
  let stub: ProviderStub;
  let m: TestMemloom;
  const BUDGET_HOUR = 1_000_000;
  beforeAll(async () => {
    stub = await startProviderStub({ dimensions: 64 });
    m = await startTestMemloom({
      env: {
        ...stubProviderEnv(stub, 64),
        METRICS_TENANT_LABELS: 'true',
        EXTRACT_DEBOUNCE_MS: '300',
        TOKEN_BUDGET_PER_HOUR: String(BUDGET_HOUR),
        // Windows longer than the test, so "used" is everything this test did.
        BUDGET_WINDOW_MS: String(24 * 3_600_000),
        RATE_WINDOW_MS: String(24 * 3_600_000),
      },
      roles: { api: true, workers: ['triage', 'chunk', 'embed', 'extract'] },
    });
  });
  afterAll(async () => {
    await m?.close();
    await stub?.close();
  });

  it('exposes queue, job, provider, token, 429, budget and debounce figures consistent with the provider calls', async () => {
    stub.script('/v1/embeddings', [{ status: 429, retryAfter: 1 }]);
    const events = Array.from({ length: 6 }, (_, i) => ({
      id: `met-${i}`,
      session_id: `met-s${i % 3}`,
      // A user per session: a user's small sessions share one extraction call (workers/extract/coalesce.ts),
      // whose taken sessions' own jobs wait out the claim's lease; this test reads the queues at rest.
      user_id: `met-u${i % 3}`,
      role: 'user',
      content: `Fact ${i}: the staging cluster ${i} runs PostgreSQL 17 with pgvector.`,
    }));
    await postEvents(m.url, events, 2);
    await waitDrained(m.url, events.length);
    // No event is pending once the last pass commits, but its job finishes a moment later, and a
    // debounced pass may still come and find nothing: the gauges below are compared with a second
    // read of the queues, so both must see the pipeline's queues at rest.
    const piped = ['triage', 'chunk', 'embed', 'extract'] as const;
    await waitFor(
      async () => {
        const c = await m.deps.queues.counts();
        return piped.every((q) => ['active', 'waiting', 'delayed'].every((s) => (c[q]?.[s] ?? 0) === 0)) ? c : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the pipeline queues to rest' },
    );

    const res = await fetch(`${m.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const metrics = parseMetrics(text);

    // Every family is declared; those with figures by now have samples.
    for (const [name, type] of Object.entries({
      memloom_queue_jobs: 'gauge',
      memloom_job_duration_seconds: 'histogram',
      memloom_provider_calls_total: 'counter',
      memloom_provider_tokens_total: 'counter',
      memloom_provider_rate_limited_total: 'counter',
      memloom_gate_waits_total: 'counter',
      memloom_budget_remaining_tokens: 'gauge',
      memloom_budget_limit_tokens: 'gauge',
      memloom_rate_remaining: 'gauge',
      memloom_tenant_tasks_remaining: 'gauge',
      memloom_debounced_jobs_total: 'counter',
      memloom_dead_letter_jobs_total: 'counter',
    }))
      expect(text, name).toContain(`# TYPE ${name} ${type}`);
    for (const name of [
      'memloom_queue_jobs',
      'memloom_job_duration_seconds_bucket',
      'memloom_job_duration_seconds_count',
      'memloom_provider_calls_total',
      'memloom_provider_tokens_total',
      'memloom_provider_rate_limited_total',
      'memloom_budget_remaining_tokens',
      'memloom_budget_limit_tokens',
      'memloom_rate_remaining',
      'memloom_tenant_tasks_remaining',
    ])
      expect(metrics.has(name), name).toBe(true);

    // Queue gauges: every queue, the four states, equal to the backend's counts.
    const counts = await m.deps.queues.counts();
    for (const [queue, states] of Object.entries(counts)) {
      for (const state of ['waiting', 'active', 'delayed', 'failed'])
        expect(value(metrics, 'memloom_queue_jobs', { queue, state }), `${queue} ${state}`).toBe(states[state]);
    }
    // One duration observation per finished attempt.
    expect(value(metrics, 'memloom_job_duration_seconds_count', { queue: 'extract', status: 'completed' })).toBeGreaterThanOrEqual(1);
    // The one 429 answered a provider call that embed jobs running together shared (coalesced), so
    // each of them, at least one and at most every embed job, had an attempt rate-limited.
    const rateLimited = value(metrics, 'memloom_job_duration_seconds_count', { queue: 'embed', status: 'rate_limited' });
    expect(rateLimited).toBeGreaterThanOrEqual(1);
    expect(rateLimited).toBeLessThanOrEqual(counts.embed?.completed ?? 0);

    // Provider calls, 429s and tokens match what the stub saw and billed.
    const chats = callsTo(stub, '/v1/chat/completions');
    const embeds = callsTo(stub, '/v1/embeddings');
    const ok = (c: RecordedCall) => c.status === 200;
    expect(value(metrics, 'memloom_provider_calls_total', { provider: 'llm', outcome: 'ok' })).toBe(chats.filter(ok).length);
    expect(value(metrics, 'memloom_provider_calls_total', { provider: 'embeddings', outcome: 'ok' })).toBe(embeds.filter(ok).length);
    expect(value(metrics, 'memloom_provider_calls_total', { provider: 'embeddings', outcome: 'rate_limited' })).toBe(1);
    expect(value(metrics, 'memloom_provider_rate_limited_total', { provider: 'embeddings' })).toBe(embeds.filter((c) => c.status === 429).length);
    const llmIn = chats.filter(ok).reduce((s, c) => s + billed(c).in, 0);
    const llmOut = chats.filter(ok).reduce((s, c) => s + billed(c).out, 0);
    const embIn = embeds.filter(ok).reduce((s, c) => s + billed(c).in, 0);
    expect(value(metrics, 'memloom_provider_tokens_total', { provider: 'llm', direction: 'in' })).toBe(llmIn);
    expect(value(metrics, 'memloom_provider_tokens_total', { provider: 'llm', direction: 'out' })).toBe(llmOut);
    expect(value(metrics, 'memloom_provider_tokens_total', { provider: 'embeddings', direction: 'in' })).toBe(embIn);
    const [usage] = await sql<{ tokens: number }>(m.deps.db, 'SELECT coalesce(sum(tokens_in + tokens_out), 0)::int AS tokens FROM token_usage');
    expect(usage?.tokens).toBe(llmIn + llmOut + embIn);

    // Budgets and rate windows: what is left is the limit minus what was billed (corrected usage).
    expect(value(metrics, 'memloom_budget_limit_tokens', { scope: 'tenant', tenant: 'default', window: 'hour' })).toBe(BUDGET_HOUR);
    expect(value(metrics, 'memloom_budget_remaining_tokens', { scope: 'tenant', tenant: 'default', window: 'hour' })).toBe(BUDGET_HOUR - llmIn - llmOut);
    expect(value(metrics, 'memloom_budget_remaining_tokens', { scope: 'global', window: 'day' })).toBe(m.config.TOKEN_BUDGET_PER_DAY - llmIn - llmOut);
    expect(value(metrics, 'memloom_rate_remaining', { provider: 'llm', unit: 'requests' })).toBe(m.config.LLM_RPM - chats.length);
    expect(value(metrics, 'memloom_rate_remaining', { provider: 'embeddings', unit: 'requests' })).toBe(m.config.EMBEDDINGS_RPM - embeds.length);
    expect(value(metrics, 'memloom_rate_remaining', { provider: 'embeddings', unit: 'tokens' })).toBe(m.config.EMBEDDINGS_TPM - embIn);
    expect(value(metrics, 'memloom_tenant_tasks_remaining', { tenant: 'default' })).toBe(m.config.TENANT_TASKS_PER_HOUR);

    // The same state as JSON for the caller's tenant.
    const budget = (await (await fetch(`${m.url}/v1/budget`)).json()) as { tokens: { tenant: { hour: { used: number; remaining: number } } } };
    expect(budget.tokens.tenant.hour).toMatchObject({ used: llmIn + llmOut, remaining: BUDGET_HOUR - llmIn - llmOut });
  }, 180_000);

  it('counts debounced-away enqueues and dead-lettered jobs', async () => {
    stub.script('/v1/chat/completions', [{ status: 400 }]);
    const before = parseMetrics(await (await fetch(`${m.url}/metrics`)).text());
    const deadBefore = metrics0(before, 'memloom_dead_letter_jobs_total', { queue: 'extract' });
    await postEvents(m.url, [{ id: 'met-dead', session_id: 'met-dead', role: 'user', content: 'The backup runs at three in the morning every day.' }]);
    await waitFor(async () => (await sql(m.deps.db, `SELECT 1 FROM dead_letters WHERE queue = 'extract'`)).length === 1);
    const after = parseMetrics(await (await fetch(`${m.url}/metrics`)).text());
    expect(metrics0(after, 'memloom_dead_letter_jobs_total', { queue: 'extract' }) - deadBefore).toBe(1);
    expect(value(after, 'memloom_queue_jobs', { queue: 'extract', state: 'failed' })).toBe(1);

    // Three enqueues of one session within its quiet period: one job, two debounced away.
    const debouncedBefore = metrics0(after, 'memloom_debounced_jobs_total', { queue: 'extract' });
    for (let i = 0; i < 3; i++) await enqueueNext(m.deps, CATALOG, [extractJob(m.config, 'default', 's:met-debounce', new Date())]);
    const last = parseMetrics(await (await fetch(`${m.url}/metrics`)).text());
    expect(value(last, 'memloom_debounced_jobs_total', { queue: 'extract' }) - debouncedBefore).toBe(2);
  }, 120_000);
});

describe('a worker process without the API role', () => {
  it('serves /metrics on METRICS_PORT with its queue figures', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'memloom-metrics-'));
    const port = await freePort();
    const worker = spawnMemloom(['worker', '--queues', 'triage,chunk'], {
      MEMLOOM_HOME: home,
      EVENTS_DIR: path.join(home, 'events'),
      PORT: '0',
      METRICS_PORT: String(port),
    });
    try {
      const text = await waitFor(
        async () => {
          try {
            const res = await fetch(`http://127.0.0.1:${port}/metrics`);
            return res.status === 200 ? res.text() : undefined;
          } catch {
            return undefined; // not listening yet
          }
        },
        { timeoutMs: 120_000, what: `the worker's /metrics (output: ${worker.output().slice(-500)})` },
      );
      const metrics = parseMetrics(text);
      expect(value(metrics, 'memloom_queue_jobs', { queue: 'triage', state: 'waiting' })).toBe(0);
      expect(metrics.has('process_resident_memory_bytes')).toBe(true);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/v1/stats`)).status).toBe(404);
    } finally {
      worker.child.kill('SIGTERM');
      expect((await worker.exited).code).toBe(0);
      await rm(home, { recursive: true, force: true });
    }
  }, 180_000);
});

/** Like value(), but 0 when the metric has no sample yet (prom-client prints none for an untouched labelled counter). */
function metrics0(metrics: Map<string, Sample[]>, name: string, match: Record<string, string>): number {
  return metrics.has(name) ? value(metrics, name, match) : 0;
}
