import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { MemloomError } from '../src/errors.js';
import { Gate, reserveTenantTask } from '../src/providers/gate.js';
import { RedisGateStore } from '../src/providers/gate-redis.js';
import { runInGateScope } from '../src/providers/gate-scope.js';
import { REDIS_URL, startTestMemloom, type TestMemloom } from './support/memloom.js';
import { sql } from './support/pipeline.js';

/** The provider gate's admission rules: budgets, windows, concurrency and the task quota (docs/guardrails.md). */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the gate', () => {
  let m: TestMemloom;
  const stores: RedisGateStore[] = [];
  beforeAll(async () => {
    m = await startTestMemloom({ roles: { api: false }, env: { MEMLOOM_API_KEYS: 'ka:acme,kb:globex' } });
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await m?.close();
  });

  /** A gate with its own configuration and a fresh shared state (a Redis prefix of its own). */
  function gate(env: Record<string, string>): Gate {
    const store = new RedisGateStore(REDIS_URL, `test-gate-${randomUUID().slice(0, 8)}`);
    stores.push(store);
    return new Gate({ config: loadConfig({ LOG_LEVEL: 'silent', ...env }), db: m.deps.db, store, metrics: m.deps.metrics, log: m.deps.log });
  }
  const llmCall = (tokensIn: number, maxTokensOut = 2000) => ({
    kind: 'llm' as const,
    provider: 'openai',
    model: 'm',
    task: 'extract',
    tokensIn,
    maxTokensOut,
  });
  /** A paid call that answers after `ms` with this usage. */
  const answer =
    (usage: { tokensIn: number; tokensOut: number }, ms = 0) =>
    async () => {
      if (ms) await sleep(ms);
      return usage;
    };
  const inJob = <T>(tenantId: string, fn: () => Promise<T>) => runInGateScope({ tenantId, jobId: `job-${randomUUID()}`, queue: 'extract' }, fn);
  const caught = async (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: unknown) => err as MemloomError,
    );
  const usageOf = (u: { tokensIn: number; tokensOut: number }) => u;

  it('fails a call over TOKEN_BUDGET_PER_TASK for good, without calling the provider', async () => {
    const g = gate({ TOKEN_BUDGET_PER_TASK: '1000' });
    let called = false;
    const err = await caught(
      inJob('acme', () =>
        g.run(
          llmCall(900, 200),
          async () => {
            called = true;
            return { tokensIn: 1, tokensOut: 1 };
          },
          usageOf,
        ),
      ),
    );
    expect(err).toMatchObject({ code: 'BUDGET_TASK_EXCEEDED', retryable: false });
    expect(called).toBe(false);
  });

  it('charges tenant and global budgets, corrects the estimate from the usage and writes token_usage', async () => {
    const g = gate({ TOKEN_BUDGET_PER_HOUR: '10000', TOKEN_BUDGET_GLOBAL_PER_HOUR: '15000' });
    const jobId = `job-${randomUUID()}`;
    await runInGateScope({ tenantId: 'acme', jobId, queue: 'extract' }, () => g.run(llmCall(1000), answer({ tokensIn: 700, tokensOut: 50 }), usageOf));
    const state = await g.state(['acme', 'globex']);
    const used = (labels: Record<string, string>) =>
      state.find((r) => r.what === 'tokens' && Object.entries(labels).every(([k, v]) => r.labels[k] === v))?.used;
    expect(used({ scope: 'tenant', tenant: 'acme', window: 'hour' })).toBe(750);
    expect(used({ scope: 'tenant', tenant: 'acme', window: 'day' })).toBe(750);
    expect(used({ scope: 'global', window: 'hour' })).toBe(750);
    expect(used({ scope: 'tenant', tenant: 'globex', window: 'hour' })).toBe(0);
    expect(await sql(m.deps.db, 'SELECT provider, model, task, tokens_in, tokens_out FROM token_usage WHERE job_id = $1', [jobId], 'acme')).toEqual([
      { provider: 'openai', model: 'm', task: 'extract', tokens_in: 700, tokens_out: 50 },
    ]);
  });

  it('makes a tenant over its budget wait for the next window while others run, and caps everyone globally', async () => {
    const g = gate({ TOKEN_BUDGET_PER_HOUR: '5000', TOKEN_BUDGET_GLOBAL_PER_HOUR: '8000', BUDGET_WINDOW_MS: '60000' });
    const exact = answer({ tokensIn: 1000, tokensOut: 2000 });
    await inJob('acme', () => g.run(llmCall(1000), exact, usageOf));
    const acme = await caught(inJob('acme', () => g.run(llmCall(1000), exact, usageOf)));
    expect(acme).toMatchObject({ code: 'BUDGET_WAIT', kind: 'rate_limited', details: { reason: 'tenant_per_hour' } });
    expect(acme?.retryAfterMs).toBeLessThanOrEqual(60_000 + 100);
    await inJob('globex', () => g.run(llmCall(1000), exact, usageOf));
    const third = await caught(inJob('default', () => g.run(llmCall(1000), exact, usageOf)));
    expect(third).toMatchObject({ code: 'BUDGET_WAIT', details: { reason: 'global_per_hour' } });
  });

  it('holds requests per minute (RATE_WAIT) and refunds the tokens of a failed call', async () => {
    const g = gate({ LLM_RPM: '2', RATE_WINDOW_MS: '60000' });
    await inJob('acme', () => g.run(llmCall(10), answer({ tokensIn: 10, tokensOut: 5 }), usageOf));
    const failed = await caught(
      inJob('acme', () =>
        g.run(
          llmCall(10),
          async () => {
            throw new MemloomError('PROVIDER_UNAVAILABLE', 'down', { kind: 'upstream' });
          },
          usageOf,
        ),
      ),
    );
    expect(failed).toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
    const rate = await caught(inJob('acme', () => g.run(llmCall(10), answer({ tokensIn: 10, tokensOut: 5 }), usageOf)));
    expect(rate).toMatchObject({ code: 'RATE_WAIT', details: { reason: 'requests_per_minute' } });
    const tpm = (await g.state([])).find((r) => r.what === 'rate' && r.labels.provider === 'llm' && r.labels.unit === 'tokens');
    expect(tpm?.used).toBe(15); // the failed call's reservation was given back
  });

  it('after a provider 429 refuses every caller until Retry-After has passed', async () => {
    const g = gate({});
    const limited = new MemloomError('LLM_RATE_LIMITED', 'slow down', { kind: 'rate_limited', retryAfterMs: 700 });
    expect(
      await caught(
        inJob('acme', () =>
          g.run(
            llmCall(10),
            async () => {
              throw limited;
            },
            usageOf,
          ),
        ),
      ),
    ).toBe(limited);
    const other = await caught(inJob('globex', () => g.run(llmCall(10), answer({ tokensIn: 1, tokensOut: 1 }), usageOf)));
    expect(other).toMatchObject({ code: 'RATE_WAIT', details: { reason: 'provider_cooldown' } });
    expect(other?.retryAfterMs).toBeGreaterThan(300);
    await sleep(other?.retryAfterMs ?? 0);
    await inJob('globex', () => g.run(llmCall(10), answer({ tokensIn: 1, tokensOut: 1 }), usageOf));
  });

  it('never has more than LLM_CONCURRENCY calls in flight', async () => {
    const g = gate({ LLM_CONCURRENCY: '2' });
    let inFlight = 0;
    let most = 0;
    const call = async () => {
      most = Math.max(most, ++inFlight);
      await sleep(150);
      inFlight--;
      return { tokensIn: 1, tokensOut: 1 };
    };
    await Promise.all(Array.from({ length: 6 }, () => inJob('acme', () => g.run(llmCall(10), call, usageOf))));
    expect(most).toBe(2);
  });

  it('lets a tenant start TENANT_TASKS_PER_HOUR background tasks per window; the rest wait (BUDGET_WAIT)', async () => {
    const g = gate({ TENANT_TASKS_PER_HOUR: '2', BUDGET_WINDOW_MS: '2000' });
    let refused = await caught(reserveTenantTask({ gate: g }, 'acme'));
    if (refused) await sleep(refused.retryAfterMs ?? 0); // started at the very end of a window
    await reserveTenantTask({ gate: g }, 'acme');
    refused = await caught(reserveTenantTask({ gate: g }, 'acme'));
    refused ??= await caught(reserveTenantTask({ gate: g }, 'acme'));
    expect(refused).toMatchObject({ code: 'BUDGET_WAIT', details: { reason: 'tenant_tasks_per_hour', tenantId: 'acme' } });
    await reserveTenantTask({ gate: g }, 'globex');
    await sleep(refused?.retryAfterMs ?? 0);
    await reserveTenantTask({ gate: g }, 'acme');
  });
});
