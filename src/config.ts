import { z } from 'zod';
import { MEMORY_KINDS } from './domain/vocabulary.js';
import { durationMs } from './input.js';

/**
 * The one configuration schema (every variable in docs/configuration.md). Parsed once in each entrypoint, frozen and carried
 * in `deps`; tests build their own object with `loadConfig({...})` instead of touching process.env.
 */

const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce
    .number({ error: `an integer between ${min} and ${max}` })
    .int(`an integer between ${min} and ${max}`)
    .min(min, `an integer between ${min} and ${max}`)
    .max(max, `an integer between ${min} and ${max}`)
    .default(def);
const optionalString = z.string().trim().min(1).optional().catch(undefined);
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'one of true, false' })
    .default(def ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');
const url = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      { message: `a URL starting with ${protocols.join(' or ')}//` },
    )
    .optional();

/** `episode:P180D,plan:P90D` → Map<memory kind, ISO-8601 duration> (per-kind default TTL of memories). */
const TTL_KINDS: readonly string[] = MEMORY_KINDS;
/** 1000 years: a memory's occurred_at (up to 9999-12-31) plus its kind's default stays far inside PostgreSQL's range. */
const MAX_DEFAULT_TTL_MS = 1000 * 365.2425 * 86_400_000;
const ttlDefaults = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const ttls = new Map<string, string>();
    if (!v || v.trim() === '') return ttls;
    for (const pair of v.split(',')) {
      const [kind, duration, ...rest] = pair.trim().split(':');
      if (
        !kind ||
        !TTL_KINDS.includes(kind) ||
        !duration ||
        rest.length > 0 ||
        !/^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/.test(duration) ||
        // occurred_at + the default must stay a time PostgreSQL and JavaScript both hold
        (durationMs(duration) ?? Infinity) > MAX_DEFAULT_TTL_MS
      ) {
        ctx.addIssue({
          code: 'custom',
          message: `a comma-separated list of kind:ISO-8601-duration pairs of at most 1000 years (kinds: ${TTL_KINDS.join(', ')}; e.g. episode:P180D)`,
        });
        return z.NEVER;
      }
      ttls.set(kind, duration);
    }
    return ttls;
  });

/** `key:tenant,key2:tenant2` → Map<key, tenant>. */
const apiKeys = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const keys = new Map<string, string>();
    if (!v || v.trim() === '') return keys;
    for (const pair of v.split(',')) {
      const [key, tenant, ...rest] = pair.trim().split(':');
      if (!key || !tenant || rest.length > 0 || !/^[A-Za-z0-9_-]{1,64}$/.test(tenant)) {
        ctx.addIssue({ code: 'custom', message: 'a comma-separated list of key:tenant pairs (tenant: letters, digits, _ or -)' });
        return z.NEVER;
      }
      keys.set(key, tenant);
    }
    return keys;
  });

/** `key,key2` → the keys that open the operator surfaces (Bull Board, /metrics). */
const adminKeys = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const keys = (v ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== '');
    if (keys.some((k) => k.includes(':') || k.length > 200)) {
      ctx.addIssue({ code: 'custom', message: 'a comma-separated list of keys (no tenant: admin keys open every tenant\u2019s operator view)' });
      return z.NEVER;
    }
    return keys;
  });

export const ConfigSchema = z.object({
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  PORT: int(8787, 0, 65535),
  MEMLOOM_HOME: z.string().trim().min(1).default('./.memloom'),
  EVENTS_DIR: z.string().trim().min(1).default('./events'),
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  REDIS_URL: url(['redis:', 'rediss:']),
  /** BullMQ key prefix on Redis (several deployments can share one Redis). Use {braces} for Redis Cluster. */
  QUEUE_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_{}-]{1,64}$/, 'letters, digits, _, -, { or }')
    .default('memloom'),
  MEMLOOM_API_KEYS: apiKeys,
  /** Keys for Bull Board and /metrics once any key is configured; a tenant's key answers 403 there. */
  MEMLOOM_ADMIN_KEYS: adminKeys,
  /** Label budget and task gauges with tenant ids (off: only deployment-wide figures are exported). */
  METRICS_TENANT_LABELS: bool(false),
  /** Loopback port of the embedded database; 0 picks a free one. Never 5432 by default. */
  MEMLOOM_DB_PORT: int(0, 0, 65535),
  /**
   * shared_buffers of the embedded database. PGlite's WASM heap holds them whole, so they count
   * fully in RSS; its files go through the OS page cache, which serves re-reads beyond them.
   */
  MEMLOOM_DB_SHARED_BUFFERS: z
    .string()
    .trim()
    .regex(/^[1-9][0-9]{0,5}(kB|MB|GB)$/, 'a size such as 32MB or 1GB')
    .default('32MB'),
  /** Serve GET /metrics (and /healthz) on this port too, in any process; with MEMLOOM_ADMIN_KEYS set it needs one. Unset: off. */
  METRICS_PORT: z.coerce
    .number({ error: 'an integer between 0 and 65535' })
    .int('an integer between 0 and 65535')
    .min(0, 'an integer between 0 and 65535')
    .max(65535, 'an integer between 0 and 65535')
    .optional(),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'one of fatal, error, warn, info, debug, trace, silent' })
    .default('info'),

  EMBEDDINGS_PROVIDER: z.enum(['local', 'openai'], { error: 'one of local, openai' }).default('local'),
  /** For `local`: `hashing` (multilingual, lexical) or `use-lite` (English, semantic). For `openai`: the model name. */
  EMBEDDINGS_MODEL: optionalString,
  EMBEDDINGS_DIMENSIONS: z.coerce
    .number({ error: 'an integer between 16 and 4096' })
    .int()
    .min(16, 'an integer between 16 and 4096')
    .max(4096, 'an integer between 16 and 4096')
    .optional(),
  EMBEDDINGS_BASE_URL: url(['http:', 'https:']),
  EMBEDDINGS_API_KEY: optionalString,
  EMBEDDINGS_BATCH_SIZE: int(96, 1, 2048),
  /** How long a paid embedding request waits for texts of other concurrent jobs; 0 sends each job's texts alone. */
  EMBEDDINGS_COALESCE_MS: int(10, 0, 5000),

  LLM_PROVIDER: z.enum(['heuristic', 'openai'], { error: 'one of heuristic, openai' }).default('heuristic'),
  LLM_MODEL: optionalString,
  LLM_BASE_URL: url(['http:', 'https:']),
  LLM_API_KEY: optionalString,
  LLM_TIMEOUT_MS: int(60_000, 1000),

  EXTRACT_DEBOUNCE_MS: int(30_000),
  EXTRACT_MAX_WAIT_MS: int(300_000),
  /** Quiet period per user before the working memory refresh: seconds, so it is current soon after a change settles. */
  BRIEFING_DEBOUNCE_MS: int(3_000),
  /** Longest a change waits for the refresh while the user stays busy (each change would otherwise restart the quiet period). */
  BRIEFING_MAX_WAIT_MS: int(30_000),
  TOKEN_BUDGET_PER_TASK: int(50_000, 1),
  TOKEN_BUDGET_PER_HOUR: int(2_000_000, 1),
  TOKEN_BUDGET_PER_DAY: int(20_000_000, 1),
  LLM_RPM: int(60, 1),
  LLM_TPM: int(200_000, 1),
  LLM_CONCURRENCY: int(4, 1, 256),
  TENANT_TASKS_PER_HOUR: int(15, 1),
  /** Embeddings endpoint limits, enforced by the shared provider gate like LLM_RPM / LLM_TPM. */
  EMBEDDINGS_RPM: int(3_000, 1),
  EMBEDDINGS_TPM: int(1_000_000, 1),
  /** Token budgets over all tenants together; unset → the per-tenant numbers (docs/guardrails.md). */
  TOKEN_BUDGET_GLOBAL_PER_HOUR: z.coerce.number({ error: 'a positive integer' }).int('a positive integer').min(1, 'a positive integer').optional(),
  TOKEN_BUDGET_GLOBAL_PER_DAY: z.coerce.number({ error: 'a positive integer' }).int('a positive integer').min(1, 'a positive integer').optional(),
  /** Length of the "hour" budget window (the day window is 24 of them); shorter only in tests. */
  BUDGET_WINDOW_MS: int(3_600_000, 1000),
  /** Length of the per-minute rate window (LLM_RPM/TPM, EMBEDDINGS_RPM/TPM). */
  RATE_WINDOW_MS: int(60_000, 1000),

  /** HTTP body limit in bytes (a batch of 1,000 events). */
  BODY_LIMIT_BYTES: int(32 * 1024 * 1024, 1024),
  /** Events accepted per tenant per second over HTTP before 429. */
  INGEST_RATE_PER_SEC: int(20_000, 1),
  WORKER_CONCURRENCY: int(8, 1, 256),
  /** Interval of the requeue task that re-enqueues stored events that never reached the queue. */
  REQUEUE_INTERVAL_MS: int(30_000, 100),
  /** How often the scheduler role registers its job schedulers again (a Redis restarted without persistence forgets them). */
  SCHEDULER_REFRESH_MS: int(10_000, 100),

  /** Memory lifecycle (stages 5–7, workers/README.md): schedules, dream triggers, decay and the working memory. */
  DREAM_CHECK_INTERVAL_MS: int(600_000, 100),
  DREAM_INTERVAL_MS: int(86_400_000, 1),
  DREAM_SESSIONS: int(5, 1),
  DREAM_MEMORIES: int(20, 1),
  /** New memories a dream compares and writes per transaction (each with its nearest neighbours): bounds how long it holds the database. */
  DREAM_BATCH: int(10, 1, 1000),
  /** New memories one dream run takes at most; the rest waits for the next run, which comes at the next trigger check. */
  DREAM_RUN_MAX: int(2_000, 1),
  /** Links (enriches / challenges) one dream run adds at most before it stops and leaves the rest to the next run. */
  DREAM_MAX_LINKS: int(1_000, 1),
  TTL_DEFAULTS: ttlDefaults,
  TTL_SWEEP_INTERVAL_MS: int(3_600_000, 100),
  DECAY_INTERVAL_MS: int(86_400_000, 100),
  DECAY_HALF_LIFE_DAYS: int(30, 1),
  /** Decisions and insights at or above this importance are never archived. */
  DECAY_IMPORTANCE_FLOOR: int(7, 1, 10),
  BRIEFING_INTERVAL_MS: int(3_600_000, 100),
  /** Interval of the reembed task: each tick re-embeds one batch of rows whose vectors are of another model (after a model change). */
  REEMBED_INTERVAL_MS: int(60_000, 100),
  BRIEFING_MAX_TOKENS: int(1_500, 100),
  PRETTY_LOGS: bool(false),
});

export type Config = Readonly<z.infer<typeof ConfigSchema>>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Parse an environment-like record. On error throws a ConfigError whose message is one line per
 * variable: its name and what it accepts, never its value (it may be a secret).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(ConfigSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const parsed = ConfigSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `invalid ${String(issue.path[0])}: expected ${issue.message}`);
    throw new ConfigError([...new Set(lines)].join('\n'));
  }
  return Object.freeze(parsed.data);
}

/** Hosts that refuse a request without a key: OpenAI's own API, where the `openai` providers point by default. */
const KEYED_HOSTS = new Set(['api.openai.com']);

/**
 * An `openai` provider aimed at OpenAI itself (LLM_BASE_URL / EMBEDDINGS_BASE_URL unset, or
 * api.openai.com) needs its key; an OpenAI-compatible server elsewhere (Ollama, vLLM, LM Studio
 * on your own machine) may run without one, and a hosted one that needs a key answers 401, which
 * /readyz reports. Checked by the roles that call the provider before anything starts, so a
 * missing key is one line naming the variable, not requests failing while workers wait.
 */
export function checkProviderKeys(config: Config, roles: { llm: boolean; embeddings: boolean }): void {
  const missing = (baseUrl: string | undefined, key: string | undefined) =>
    key === undefined && (baseUrl === undefined || KEYED_HOSTS.has(new URL(baseUrl).hostname));
  const lines: string[] = [];
  if (roles.embeddings && config.EMBEDDINGS_PROVIDER === 'openai' && missing(config.EMBEDDINGS_BASE_URL, config.EMBEDDINGS_API_KEY))
    lines.push(
      'invalid EMBEDDINGS_API_KEY: expected a key with EMBEDDINGS_PROVIDER=openai and OpenAI\u2019s endpoint (set EMBEDDINGS_BASE_URL for a keyless server such as Ollama or vLLM, or EMBEDDINGS_PROVIDER=local)',
    );
  if (roles.llm && config.LLM_PROVIDER === 'openai' && missing(config.LLM_BASE_URL, config.LLM_API_KEY))
    lines.push(
      'invalid LLM_API_KEY: expected a key with LLM_PROVIDER=openai and OpenAI\u2019s endpoint (set LLM_BASE_URL for a keyless server such as Ollama or vLLM, or LLM_PROVIDER=heuristic)',
    );
  if (lines.length > 0) throw new ConfigError(lines.join('\n'));
}

export function isEmbedded(config: Config): boolean {
  return config.DATABASE_URL === undefined;
}
