/**
 * The one gate in front of every paid LLM and embedding call, shared by all processes through its
 * store (Redis or PostgreSQL, see gate-store.ts). Before a call it checks, atomically and all or
 * nothing: a provider cooldown (set by any process that got a 429), requests and tokens per rate
 * window, and for the LLM the token budgets per hour and per day of the tenant and of everyone;
 * it also holds one of LLM_CONCURRENCY leases while the call runs. Tokens are estimated before the
 * call (gpt-tokenizer, plus the output cap) and corrected after it from the provider's usage.
 *
 * Over a limit nothing is dropped: the gate throws a `rate_limited` MemloomError with code
 * RATE_WAIT (rate windows, cooldown, concurrency) or BUDGET_WAIT (budgets) and retryAfterMs = time
 * until the window with room, and the job runner delays the job. A single call that could never
 * fit (over TOKEN_BUDGET_PER_TASK or over a whole window) fails permanently: BUDGET_TASK_EXCEEDED.
 * Calls made outside a job (recall's query embedding) wait up to INTERACTIVE_WAIT_MS for rate
 * windows, cooldowns and a provider's Retry-After instead of failing.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '../config.js';
import { withTenant, type Db } from '../db/pool.js';
import { insertTokenUsage } from '../db/sql/token-usage.js';
import { MemloomError, isMemloomError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { GateStateRow, Metrics } from '../metrics.js';
import { PROVIDER_CODES } from './codes.js';
import { currentGateScope, type GateScope } from './gate-scope.js';
import type { GateStore, Reservation, WindowReservation } from './gate-store.js';

export type ProviderKind = 'llm' | 'embeddings';

export const GATE_CODES = { rateWait: 'RATE_WAIT', budgetWait: 'BUDGET_WAIT', taskExceeded: 'BUDGET_TASK_EXCEEDED' } as const;

/** How long a call made outside a job may wait for a rate window or cooldown before failing. */
export const INTERACTIVE_WAIT_MS = 10_000;
/** How long a call waits for a concurrency lease before its job is put back (RATE_WAIT). */
const LEASE_WAIT_MS = 30_000;
/** Cooldown after a 429 that named no Retry-After. */
const DEFAULT_COOLDOWN_MS = 1_000;

export interface GateCall {
  kind: ProviderKind;
  /** Configured provider name (`openai`), stored in token_usage.provider. */
  provider: string;
  model: string;
  /** The operation, stored in token_usage.task: `extract`, `embed`. */
  task: string;
  /** Estimated input tokens (gpt-tokenizer). */
  tokensIn: number;
  /** Output cap of the request; reserved until the usage is known. */
  maxTokensOut: number;
}

export interface GateUsage {
  tokensIn: number;
  tokensOut: number;
}

interface Window extends WindowReservation {
  /** The limit's name in errors and metrics. */
  name: string;
  tokens: boolean;
  budget: boolean;
}

interface Admission {
  call: GateCall;
  scope: GateScope | undefined;
  estimate: number;
  windows: Window[];
  starts: number[];
  holder: string | undefined;
}

export interface GateOptions {
  config: Config;
  db: Db;
  store: GateStore;
  metrics: Metrics;
  log: Logger;
}

export class Gate {
  readonly #config: Config;
  readonly #db: Db;
  readonly #store: GateStore;
  readonly #metrics: Metrics;
  readonly #log: Logger;

  constructor(opts: GateOptions) {
    this.#config = opts.config;
    this.#db = opts.db;
    this.#store = opts.store;
    this.#metrics = opts.metrics;
    this.#log = opts.log;
  }

  get storeKind(): GateStore['kind'] {
    return this.#store.kind;
  }

  /**
   * Runs one paid call through the gate; `usageOf` reads the provider's usage from the answer.
   * Outside a job, a rate wait or a provider 429 is waited out here (up to INTERACTIVE_WAIT_MS);
   * inside a job it is thrown, and the runner puts the job back.
   */
  async run<T>(call: GateCall, fn: () => Promise<T>, usageOf: (answer: T) => GateUsage | undefined): Promise<T> {
    const scope = currentGateScope();
    const interactive = scope?.jobId === undefined;
    const deadline = Date.now() + INTERACTIVE_WAIT_MS;
    for (;;) {
      try {
        return await this.#runOnce(call, scope, interactive, fn, usageOf);
      } catch (err) {
        const waitable = isMemloomError(err) && (err.code === GATE_CODES.rateWait || err.code === PROVIDER_CODES.rateLimited);
        const wait = waitable ? (err.retryAfterMs ?? DEFAULT_COOLDOWN_MS) : undefined;
        if (!interactive || wait === undefined || Date.now() + wait > deadline) throw err;
        await sleep(wait);
      }
    }
  }

  async #runOnce<T>(
    call: GateCall,
    scope: GateScope | undefined,
    interactive: boolean,
    fn: () => Promise<T>,
    usageOf: (answer: T) => GateUsage | undefined,
  ): Promise<T> {
    const admission = await this.#admit(call, scope, interactive);
    let answer: T;
    try {
      answer = await fn();
    } catch (err) {
      await this.#failed(admission, err);
      throw err;
    } finally {
      if (admission.holder)
        await this.#store
          .release(`concurrency:${call.kind}`, admission.holder)
          .catch((err: unknown) => this.#log.warn({ err }, 'gate lease not released; it expires'));
    }
    const usage = usageOf(answer);
    this.#metrics.providerCalls.inc({ provider: call.kind, model: call.model, outcome: 'ok' });
    // A call without a usage figure is recorded at its estimate (never undercount a budget).
    await this.#settle(admission, usage ?? this.#unknownUsage(call), true);
    return answer;
  }

  /**
   * One background consolidation task (dream) of a tenant: at most TENANT_TASKS_PER_HOUR
   * per budget window. Over the cap throws BUDGET_WAIT so the job waits for the next window.
   */
  async reserveTenantTask(tenantId: string): Promise<void> {
    const limit = this.#config.TENANT_TASKS_PER_HOUR;
    const r = await this.#store.reserve([{ key: `tasks:tenant:${tenantId}`, windowMs: this.#config.BUDGET_WINDOW_MS, amount: 1, limit }], []);
    if (r.ok) return;
    this.#metrics.gateWaits.inc({ provider: 'tasks', code: GATE_CODES.budgetWait, reason: 'tenant_tasks_per_hour' });
    throw new MemloomError(GATE_CODES.budgetWait, 'The tenant reached its background tasks per hour; the task waits for the next window.', {
      kind: 'rate_limited',
      retryable: true,
      retryAfterMs: r.retryAfterMs,
      details: { reason: 'tenant_tasks_per_hour', limit, tenantId },
    });
  }

  /** Limits and current use of every window, for metrics and GET /v1/budget. */
  async state(tenants: string[]): Promise<GateStateRow[]> {
    const c = this.#config;
    const rows: Array<Omit<GateStateRow, 'used'> & { key: string; windowMs: number }> = [];
    const hour = c.BUDGET_WINDOW_MS;
    const token = (scope: string, tenant: string, window: string, key: string, windowMs: number, limit: number) =>
      rows.push({ what: 'tokens', labels: { scope, tenant, window }, key, windowMs, limit });
    token('global', '', 'hour', 'budget:hour:global', hour, this.#globalHour());
    token('global', '', 'day', 'budget:day:global', 24 * hour, this.#globalDay());
    for (const t of tenants) {
      token('tenant', t, 'hour', `budget:hour:tenant:${t}`, hour, c.TOKEN_BUDGET_PER_HOUR);
      token('tenant', t, 'day', `budget:day:tenant:${t}`, 24 * hour, c.TOKEN_BUDGET_PER_DAY);
      rows.push({ what: 'tasks', labels: { tenant: t }, key: `tasks:tenant:${t}`, windowMs: hour, limit: c.TENANT_TASKS_PER_HOUR });
    }
    for (const kind of ['llm', 'embeddings'] as const) {
      const [rpm, tpm] = kind === 'llm' ? [c.LLM_RPM, c.LLM_TPM] : [c.EMBEDDINGS_RPM, c.EMBEDDINGS_TPM];
      rows.push({ what: 'rate', labels: { provider: kind, unit: 'requests' }, key: `rpm:${kind}`, windowMs: c.RATE_WINDOW_MS, limit: rpm });
      rows.push({ what: 'rate', labels: { provider: kind, unit: 'tokens' }, key: `tpm:${kind}`, windowMs: c.RATE_WINDOW_MS, limit: tpm });
    }
    const used = await this.#store.used(rows.map((r) => ({ key: r.key, windowMs: r.windowMs })));
    return rows.map((r, i) => ({ what: r.what, labels: r.labels, limit: r.limit, used: used[i] ?? 0 }));
  }

  #globalHour(): number {
    return this.#config.TOKEN_BUDGET_GLOBAL_PER_HOUR ?? this.#config.TOKEN_BUDGET_PER_HOUR;
  }

  #globalDay(): number {
    return this.#config.TOKEN_BUDGET_GLOBAL_PER_DAY ?? this.#config.TOKEN_BUDGET_PER_DAY;
  }

  /** Windows a call reserves in, sorted by key (the PostgreSQL store locks rows in this order). */
  #windows(kind: ProviderKind, tenant: string | undefined, estimate: number): Window[] {
    const c = this.#config;
    const [rpm, tpm] = kind === 'llm' ? [c.LLM_RPM, c.LLM_TPM] : [c.EMBEDDINGS_RPM, c.EMBEDDINGS_TPM];
    const windows: Window[] = [
      { key: `rpm:${kind}`, name: 'requests_per_minute', windowMs: c.RATE_WINDOW_MS, amount: 1, limit: rpm, tokens: false, budget: false },
      { key: `tpm:${kind}`, name: 'tokens_per_minute', windowMs: c.RATE_WINDOW_MS, amount: estimate, limit: tpm, tokens: true, budget: false },
    ];
    // Budgets are LLM budgets (docs/guardrails.md); embeddings are bounded by their rate windows.
    if (kind === 'llm') {
      const hour = c.BUDGET_WINDOW_MS;
      const budget = (name: string, key: string, windowMs: number, limit: number): Window => ({
        key,
        name,
        windowMs,
        amount: estimate,
        limit,
        tokens: true,
        budget: true,
      });
      windows.push(
        budget('global_per_hour', 'budget:hour:global', hour, this.#globalHour()),
        budget('global_per_day', 'budget:day:global', 24 * hour, this.#globalDay()),
      );
      if (tenant !== undefined) {
        windows.push(
          budget('tenant_per_hour', `budget:hour:tenant:${tenant}`, hour, c.TOKEN_BUDGET_PER_HOUR),
          budget('tenant_per_day', `budget:day:tenant:${tenant}`, 24 * hour, c.TOKEN_BUDGET_PER_DAY),
        );
      }
    }
    return windows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async #admit(call: GateCall, scope: GateScope | undefined, interactive: boolean): Promise<Admission> {
    const estimate = Math.ceil(call.tokensIn + call.maxTokensOut);
    const tenant = scope?.tenantId;
    if (call.kind === 'llm' && estimate > this.#config.TOKEN_BUDGET_PER_TASK)
      throw taskExceeded(call, estimate, 'per_task', this.#config.TOKEN_BUDGET_PER_TASK);
    const windows = this.#windows(call.kind, tenant, estimate);
    const never = windows.find((w) => w.amount > w.limit);
    if (never) throw taskExceeded(call, estimate, never.name, never.limit);

    const holder = call.kind === 'llm' ? await this.#lease(call.kind, interactive) : undefined;
    const release = () => (holder ? this.#store.release(`concurrency:${call.kind}`, holder).catch(() => undefined) : Promise.resolve());
    let r: Reservation;
    try {
      r = await this.#store.reserve(windows, [`cooldown:${call.kind}`]);
    } catch (err) {
      await release();
      throw err;
    }
    if (r.ok) {
      this.#log.debug({ provider: call.kind, task: call.task, estimate, tenantId: tenant }, 'provider call admitted');
      return { call, scope, estimate, windows, starts: r.windowStarts, holder };
    }
    await release();
    const full = r.refused >= 0 ? windows[r.refused] : undefined;
    const code = full?.budget ? GATE_CODES.budgetWait : GATE_CODES.rateWait;
    const reason = full?.name ?? 'provider_cooldown';
    this.#metrics.gateWaits.inc({ provider: call.kind, code, reason });
    // A little jitter so jobs put back together do not all return at the same millisecond.
    const retryAfterMs = r.retryAfterMs + Math.floor(Math.random() * 100);
    throw new MemloomError(
      code,
      code === GATE_CODES.budgetWait ? 'Token budget reached; the call waits for the next window.' : 'Provider rate limit reached; the call waits.',
      {
        kind: 'rate_limited',
        retryable: true,
        retryAfterMs,
        details: { provider: call.kind, reason, limit: full?.limit ?? null, tenantId: tenant ?? null },
      },
    );
  }

  /** One of LLM_CONCURRENCY slots, polled for up to LEASE_WAIT_MS. */
  async #lease(kind: ProviderKind, interactive: boolean): Promise<string> {
    const holder = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    // A lease outlives the longest call (an extraction may make 3 requests) and no more.
    const leaseMs = 3 * this.#config.LLM_TIMEOUT_MS + 10_000;
    const deadline = Date.now() + (interactive ? INTERACTIVE_WAIT_MS : LEASE_WAIT_MS);
    for (let pause = 25; ; pause = Math.min(pause * 2, 500)) {
      if (await this.#store.acquire(`concurrency:${kind}`, holder, this.#config.LLM_CONCURRENCY, leaseMs)) return holder;
      if (Date.now() + pause > deadline) {
        this.#metrics.gateWaits.inc({ provider: kind, code: GATE_CODES.rateWait, reason: 'concurrency' });
        throw new MemloomError(GATE_CODES.rateWait, 'All provider call slots are busy; the call waits.', {
          kind: 'rate_limited',
          retryable: true,
          retryAfterMs: 1000,
          details: { provider: kind, reason: 'concurrency', limit: this.#config.LLM_CONCURRENCY },
        });
      }
      await sleep(pause);
    }
  }

  /** After a failed call: a 429 cools the provider down for everyone; tokens not billed are refunded. */
  async #failed(a: Admission, err: unknown): Promise<void> {
    const e = isMemloomError(err) ? err : undefined;
    const limited = e?.code === PROVIDER_CODES.rateLimited;
    this.#metrics.providerCalls.inc({ provider: a.call.kind, model: a.call.model, outcome: limited ? 'rate_limited' : 'error' });
    if (limited) {
      this.#metrics.providerRateLimited.inc({ provider: a.call.kind });
      await this.#store
        .cooldown(`cooldown:${a.call.kind}`, e?.retryAfterMs ?? DEFAULT_COOLDOWN_MS)
        .catch((cdErr: unknown) => this.#log.warn({ err: cdErr }, 'provider cooldown not recorded'));
    }
    // An answer that failed validation was still billed; the provider says how much.
    const inputTokens = e?.details?.inputTokens;
    const outputTokens = e?.details?.outputTokens;
    if (typeof inputTokens === 'number' && typeof outputTokens === 'number') await this.#settle(a, { tokensIn: inputTokens, tokensOut: outputTokens }, true);
    else await this.#settle(a, { tokensIn: 0, tokensOut: 0 }, false);
  }

  /** The estimate, for an answer without a usage figure. */
  #unknownUsage(call: GateCall): GateUsage {
    return { tokensIn: call.tokensIn, tokensOut: call.kind === 'llm' ? call.maxTokensOut : 0 };
  }

  /**
   * Corrects the token windows by (actual - estimate) and writes a token_usage row for a billed
   * call. Bookkeeping never fails the job: the call is paid for and its answer must be used.
   */
  async #settle(a: Admission, usage: GateUsage, billed: boolean): Promise<void> {
    const actual = usage.tokensIn + usage.tokensOut;
    const delta = actual - a.estimate;
    try {
      await this.#store.adjust(a.windows.flatMap((w, i) => (w.tokens ? [{ key: w.key, windowMs: w.windowMs, windowStart: a.starts[i] ?? 0, delta }] : [])));
      if (!billed) return;
      this.#metrics.providerTokens.inc({ provider: a.call.kind, model: a.call.model, direction: 'in' }, usage.tokensIn);
      this.#metrics.providerTokens.inc({ provider: a.call.kind, model: a.call.model, direction: 'out' }, usage.tokensOut);
      await withTenant(this.#db, a.scope?.tenantId ?? 'default', (tx) =>
        insertTokenUsage(tx, {
          provider: a.call.provider,
          model: a.call.model,
          task: a.call.task,
          jobId: a.scope?.jobId ?? null,
          tokensIn: usage.tokensIn,
          tokensOut: usage.tokensOut,
        }),
      );
    } catch (err) {
      this.#log.error({ err, provider: a.call.kind, delta }, 'token usage not recorded');
    }
  }
}

function taskExceeded(call: GateCall, estimate: number, limitName: string, limit: number): MemloomError {
  return new MemloomError(GATE_CODES.taskExceeded, `One ${call.task} call needs about ${estimate} tokens, more than the ${limitName} limit of ${limit}.`, {
    kind: 'input',
    retryable: false,
    details: { provider: call.kind, task: call.task, estimate, limit, reason: limitName },
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * For the dream stage: call once per task before doing it (see Gate.reserveTenantTask). Briefings
 * are not counted: they call no model, and each user's is debounced to one per extraction burst.
 */
export function reserveTenantTask(deps: { gate: Gate }, tenantId: string): Promise<void> {
  return deps.gate.reserveTenantTask(tenantId);
}
