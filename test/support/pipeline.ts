/**
 * Helpers for pipeline tests: run a stage's handler directly on a real `deps`, count rows, find
 * rows that break an exactly-once invariant, and answer extraction requests on the provider stub.
 * Nothing of memloom is mocked here; the stage context's `job` only carries an id.
 */
import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import pg from 'pg';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { ensureTenants, migrate } from '../../src/db/migrator.js';
import { withTenant, type Db } from '../../src/db/pool.js';
import { ensureVectorIndexes } from '../../src/db/vector-index.js';
import { createLogger } from '../../src/logger.js';
import type { Deps } from '../../src/deps.js';
import { ingestEvents } from '../../src/events/ingest.js';
import type { NextJob, Stage, StageContext } from '../../src/queue/stage.js';
import { chunk } from '../../workers/chunk/handler.js';
import { embed } from '../../workers/embed/handler.js';
import { triage } from '../../workers/triage/handler.js';
import type { ChatHandler, ProviderStub, RecordedCall } from './provider-stub.js';
import { waitFor } from './memloom.js';
import { createServerDatabase, SERVER_MODE } from './server-db.js';

export const TENANT = 'default';

/** Rows of one query, run in a transaction scoped to `tenant` (row-level security applies). */
export async function sql<T = Record<string, unknown>>(db: Db, text: string, params: unknown[] = [], tenant = TENANT): Promise<T[]> {
  return withTenant(db, tenant, async (tx) => (await tx.query(text, params)).rows as T[]);
}

/** A stage context as the runner builds it; the job carries only an id (handlers read nothing else). */
export function stageContext(deps: Deps, jobId = `test-${randomUUID()}`): StageContext {
  return { deps, log: deps.log.child({ stage: 'test', jobId }), job: { id: jobId, data: {}, attemptsMade: 0, opts: {} } as unknown as Job };
}

/** Runs a stage's handler and computes its next jobs, as the runner does (without enqueueing them). */
export async function runStage<I extends object, R>(deps: Deps, stage: Stage<I, R>, input: I, jobId?: string): Promise<{ result: R; next: NextJob[] }> {
  const ctx = stageContext(deps, jobId);
  const result = await stage.handle(input, ctx);
  const next = (await stage.next?.(input, result, ctx)) ?? [];
  return { result, next };
}

/** Every job the queue holds, in any state (completed ones included). */
export async function allJobs(queue: Queue): Promise<Job[]> {
  const jobs: Job[] = [];
  for (const state of ['completed', 'failed', 'active', 'waiting', 'prioritized', 'delayed', 'waiting-children'] as const) {
    for (let start = 0; ; start += 1000) {
      const page = await queue.getJobs([state], start, start + 999, true);
      jobs.push(...page.filter((j): j is Job => Boolean(j)));
      if (page.length < 1000) break;
    }
  }
  return jobs;
}

/** The events a triage job's payload holds. */
export function triageEventsOf(data: { eventIds?: string[] } | undefined): string[] {
  return data?.eventIds ?? [];
}

/** The triage jobs (any state) holding `eventId`. */
export async function triageJobsHolding(deps: Deps, eventId: string): Promise<Job[]> {
  return (await allJobs(deps.queues.get('triage') as unknown as Queue)).filter((j) => triageEventsOf(j.data).includes(eventId));
}

/** Stores events as POST /v1/events would, without handing them to the queue. Returns ids in order. */
export async function ingest(deps: Deps, events: object[], tenant = TENANT): Promise<string[]> {
  const r = await ingestEvents(deps.db, tenant, events, { source: 'http' });
  if (r.issues.length > 0 || r.tooLarge.length > 0) throw new Error(`test events rejected: ${JSON.stringify(r.issues)}`);
  return r.ids as string[];
}

/** Triage, chunk and embed these events by calling the handlers directly (no queue involved). */
export async function throughEmbed(deps: Deps, eventIds: string[], tenant = TENANT): Promise<void> {
  if (eventIds.length === 0) return;
  await runStage(deps, triage, { tenantId: tenant, eventIds });
  const kept = await sql<{ id: string }>(deps.db, `SELECT id FROM events WHERE id = ANY($1::uuid[]) AND status = 'triaged'`, [eventIds], tenant);
  if (kept.length === 0) return;
  await runStage(deps, chunk, { tenantId: tenant, eventIds: kept.map((k) => k.id) });
  await runStage(deps, embed, { tenantId: tenant, eventIds: kept.map((k) => k.id) });
}

export interface RowCounts {
  events: number;
  chunks: number;
  chunks_embedded: number;
  memories: number;
  entities: number;
  edges: number;
  provenance: number;
  relations: number;
}

/** Row counts of the objects the pipeline derives (one tenant). */
export async function rowCounts(db: Db, tenant = TENANT): Promise<RowCounts> {
  const [row] = await sql<RowCounts>(
    db,
    `SELECT (SELECT count(*) FROM events)::int AS events,
            (SELECT count(*) FROM chunks)::int AS chunks,
            (SELECT count(*) FROM chunks WHERE embedding IS NOT NULL)::int AS chunks_embedded,
            (SELECT count(*) FROM memories)::int AS memories,
            (SELECT count(*) FROM entities)::int AS entities,
            (SELECT count(*) FROM edges)::int AS edges,
            (SELECT count(*) FROM provenance)::int AS provenance,
            (SELECT count(*) FROM memory_relations)::int AS relations`,
    [],
    tenant,
  );
  return row as RowCounts;
}

/**
 * Groups of rows that should be one row: every value must be 0. Some are also guarded by unique
 * indexes; checking them anyway keeps the test meaningful if an index is ever relaxed. Memories are
 * checked across all statuses: a superseded version never repeats a content of the same user.
 */
export async function duplicateGroups(db: Db, tenant = TENANT): Promise<Record<string, number>> {
  const [row] = await sql<Record<string, number>>(
    db,
    `SELECT
      (SELECT count(*) FROM (SELECT 1 FROM chunks GROUP BY event_id, idx HAVING count(*) > 1) d)::int AS chunks,
      (SELECT count(*) FROM (SELECT 1 FROM chunks GROUP BY event_id, start_offset, end_offset HAVING count(*) > 1) d)::int AS chunk_spans,
      (SELECT count(*) FROM (SELECT 1 FROM memories GROUP BY coalesce(user_id, ''), content_hash HAVING count(*) > 1) d)::int AS memories,
      (SELECT count(*) FROM (SELECT 1 FROM entities GROUP BY normalized_name, type HAVING count(*) > 1) d)::int AS entities,
      (SELECT count(*) FROM (SELECT 1 FROM edges GROUP BY source_entity_id, target_entity_id, relation HAVING count(*) > 1) d)::int AS edges,
      (SELECT count(*) FROM (SELECT 1 FROM provenance GROUP BY object_type, object_id, event_id HAVING count(*) > 1) d)::int AS provenance,
      (SELECT count(*) FROM (SELECT 1 FROM embedding_cache GROUP BY model, text_hash HAVING count(*) > 1) d)::int AS embedding_cache,
      (SELECT count(*) FROM memories m WHERE NOT EXISTS (SELECT 1 FROM provenance p WHERE p.object_type = 'memory' AND p.object_id = m.id))::int AS memories_without_provenance,
      (SELECT count(*) FROM entities e WHERE NOT EXISTS (SELECT 1 FROM provenance p WHERE p.object_type = 'entity' AND p.object_id = e.id))::int AS entities_without_provenance,
      (SELECT count(*) FROM edges e WHERE NOT EXISTS (SELECT 1 FROM provenance p WHERE p.object_type = 'edge' AND p.object_id = e.id))::int AS edges_without_provenance`,
    [],
    tenant,
  );
  return row as Record<string, number>;
}

export const NO_DUPLICATES = {
  chunks: 0,
  chunk_spans: 0,
  memories: 0,
  entities: 0,
  edges: 0,
  provenance: 0,
  embedding_cache: 0,
  memories_without_provenance: 0,
  entities_without_provenance: 0,
  edges_without_provenance: 0,
};

/** Calls the stub received on one path (e.g. `/v1/embeddings`), optionally only those after `since`. */
export function callsTo(stub: ProviderStub, path: string, since = 0): RecordedCall[] {
  return stub.calls.slice(since).filter((c) => c.path === path);
}

/** Waits until a job reaches one of `states`, then returns it with its state. */
export async function waitForJob(queue: Queue, jobId: string, states: string[], timeoutMs = 60_000): Promise<{ job: Job; state: string }> {
  return waitFor(
    async () => {
      // State first: a job fetched before it settled would carry stale attempts and reasons.
      const state = await queue.getJobState(jobId);
      if (!states.includes(state)) return undefined;
      const job = await queue.getJob(jobId);
      return job ? { job, state } : undefined;
    },
    { timeoutMs, what: `job ${jobId} to be ${states.join(' or ')}` },
  );
}

export interface JobDeadLetter {
  code: string;
  message: string;
  payload: string;
}

/** Dead letters recorded for a job. */
export async function deadLettersOf(db: Db, queue: string, jobId: string): Promise<JobDeadLetter[]> {
  return sql(db, `SELECT code, message, payload FROM dead_letters WHERE source = 'job' AND queue = $1 AND job_id = $2`, [queue, jobId]);
}

/** The dead letter of a job, once the runner's `failed` handler has written it. */
export async function waitForDeadLetter(db: Db, queue: string, jobId: string): Promise<JobDeadLetter> {
  return waitFor(async () => (await deadLettersOf(db, queue, jobId))[0], { what: `dead letter of ${jobId}` });
}

const TECH = ['PostgreSQL', 'pgvector', 'Redis', 'Kubernetes', 'TypeScript', 'Python', 'BullMQ', 'Grafana', 'Terraform', 'Kafka'];

/** One message of an extraction prompt: `[index] (time) speaker: content` (src/providers/llm/prompts.ts). */
export interface PromptLine {
  index: number;
  speaker: string;
  content: string;
}

export function promptLines(body: { messages: Array<{ role: string; content: string | null }> }): PromptLine[] {
  const user = body.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content ?? '')
    .join('\n');
  const part = user.split('Messages:\n')[1] ?? '';
  const lines: PromptLine[] = [];
  for (const line of part.split('\n')) {
    const m = /^\[(\d+)\] \([^)]*\) ([^:]+): (.*)$/.exec(line);
    if (m) lines.push({ index: Number(m[1]), speaker: m[2] as string, content: m[3] as string });
    else if (lines.length > 0 && line.trim() !== '' && !line.startsWith('Extract the memories')) (lines[lines.length - 1] as PromptLine).content += `\n${line}`;
  }
  return lines;
}

/**
 * An extraction model for the stub whose answer for a message depends on that message alone, so
 * the rows a conversation produces do not depend on how its events are grouped into extraction
 * passes (which varies with timing, worker count and crashes). One memory per message (kind from
 * keywords, or `opts.kind` for all), the speaker as a person, known technology names as entities, and one
 * `speaker mentions technology` triplet per pair.
 */
export function perMessageExtractor(opts: { kind?: 'episode' } = {}): ChatHandler {
  return (body) => {
    if (!(body.messages[0]?.content ?? '').startsWith('You extract long-term memory')) return undefined;
    const memories: unknown[] = [];
    const entities: unknown[] = [];
    const triplets: unknown[] = [];
    for (const { index, speaker, content } of promptLines(body)) {
      const text = content.split('\n')[0]?.trim() ?? '';
      if (text === '') continue;
      const kind =
        opts.kind ?? (/decid|决定/i.test(text) ? 'decision' : /prefer|喜欢/i.test(text) ? 'preference' : /\bwill\b|plan|计划/i.test(text) ? 'plan' : 'fact');
      const person = /^(user|assistant|system|tool|message|note|document|decision)$/.test(speaker) ? null : speaker;
      const tech = TECH.filter((t) => text.toLowerCase().includes(t.toLowerCase()));
      memories.push({
        kind,
        content: `${person ?? 'Someone'} said: ${text}`,
        importance: 6,
        confidence: 0.9,
        subject: null,
        sources: [index],
        entities: [...(person ? [person] : []), ...tech],
      });
      if (person) entities.push({ name: person, type: 'person', description: 'conversation participant', sources: [index] });
      for (const t of tech) {
        entities.push({ name: t, type: 'technology', description: `the ${t} technology`, sources: [index] });
        if (person) triplets.push({ source: person, relation: 'mentions', target: t, description: `${person} mentions ${t}`, sources: [index] });
      }
    }
    return JSON.stringify({ memories, entities, triplets });
  };
}

/** Environment for memloom with the OpenAI-compatible providers pointed at the stub. */
export function stubProviderEnv(stub: ProviderStub, dims = 384): Record<string, string> {
  return {
    EMBEDDINGS_PROVIDER: 'openai',
    EMBEDDINGS_BASE_URL: stub.url,
    EMBEDDINGS_MODEL: 'stub-embed',
    EMBEDDINGS_DIMENSIONS: String(dims),
    EMBEDDINGS_API_KEY: 'test-key',
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: stub.url,
    LLM_MODEL: 'stub-chat',
    LLM_API_KEY: 'test-key',
  };
}

/**
 * A conversation over several sessions for cross-process and crash tests: sessions `<prefix>-s<n>`
 * of a few speakers, some messages repeating across sessions (they converge on one memory),
 * acknowledgements (skipped by triage) and one long document (several chunks).
 */
export function conversation(prefix: string, sessions: number, turns: number): object[] {
  const speakers = ['Alice', 'Bob', 'Chen Wei', 'Dana'];
  const topics = [
    'We decided to run PostgreSQL with pgvector for the memory store',
    'I prefer TypeScript for services and Python for notebooks',
    'Next sprint we will move the queue to Redis and BullMQ',
    'The Kubernetes cluster runs on three nodes in Frankfurt',
    'Grafana dashboards show the p95 latency of recall',
    'Terraform owns the network, Kafka is not used any more',
    '我们决定把数据库迁移到PostgreSQL',
    '下个月计划升级Redis集群',
  ];
  const events: object[] = [];
  for (let s = 0; s < sessions; s++) {
    for (let t = 0; t < turns; t++) {
      const speaker = speakers[(s + t) % speakers.length] as string;
      const topic = topics[(s * 3 + t) % topics.length] as string;
      // Every third turn repeats a topic verbatim across sessions; the others are unique.
      const content = t % 3 === 0 ? topic : `${topic} (session ${s}, turn ${t})`;
      events.push({ id: `${prefix}-${s}-${t}`, session_id: `${prefix}-s${s}`, user_id: 'u-proc', role: 'user', content, metadata: { speaker } });
      if (t === 1) events.push({ id: `${prefix}-${s}-ack`, session_id: `${prefix}-s${s}`, user_id: 'u-proc', role: 'assistant', content: 'ok thanks' });
    }
  }
  const doc = Array.from(
    { length: 40 },
    (_, i) =>
      `Section ${i + 1}. The runbook says to check the Redis memory graph before every deploy, then restart the PostgreSQL replica number ${i} if lag exceeds ten seconds.`,
  ).join('\n\n');
  events.push({ id: `${prefix}-doc`, type: 'document', user_id: 'u-proc', content: doc, metadata: { title: 'runbook' } });
  return events;
}

/** Waits until a spawned process has printed `text` (e.g. a worker's `workers started` log line). */
export async function waitForOutput(p: { output: () => string; exited: Promise<unknown> }, text: string, timeoutMs = 90_000): Promise<void> {
  let exited = false;
  void p.exited.then(() => (exited = true));
  const seen = await waitFor(() => (exited ? 'exited' : p.output().includes(text)), { timeoutMs, intervalMs: 100, what: `output "${text}"` });
  if (seen === 'exited' && !p.output().includes(text)) throw new Error(`process exited before printing "${text}":\n${p.output().slice(-3000)}`);
}

/** `/v1/stats` of a running API. */
export async function apiStats(
  url: string,
): Promise<{ objects: Record<string, number>; pending_events: number; queues: Record<string, Record<string, number>> }> {
  const res = await fetch(`${url}/v1/stats`);
  if (res.status !== 200) throw new Error(`stats answered ${res.status}`);
  return (await res.json()) as { objects: Record<string, number>; pending_events: number; queues: Record<string, Record<string, number>> };
}

/** Posts events in batches of `batch` (several requests, so work from different requests interleaves). */
export async function postEvents(url: string, events: object[], batch = 10): Promise<void> {
  for (let i = 0; i < events.length; i += batch) {
    const res = await fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events: events.slice(i, i + batch) }),
    });
    if (res.status !== 202) throw new Error(`POST /v1/events answered ${res.status}: ${await res.text()}`);
  }
}

/** Waits until the API reports nothing pending and `events` stored; returns the stats. */
export async function waitDrained(url: string, events: number, timeoutMs = 120_000) {
  return waitFor(
    async () => {
      const s = await apiStats(url);
      return s.pending_events === 0 && s.objects.events === events ? s : undefined;
    },
    { timeoutMs, intervalMs: 200, what: `pipeline to drain ${events} events` },
  );
}

/** Message lines sent to the model in successful extraction calls (a message extracted twice counts twice). */
export function extractedMessageCount(stub: ProviderStub, since = 0): number {
  return callsTo(stub, '/v1/chat/completions', since)
    .filter((c) => c.status === 200 && (c.body?.messages?.[0]?.content ?? '').startsWith('You extract long-term memory'))
    .reduce((n, c) => n + promptLines(c.body).length, 0);
}

/**
 * An external database for several memloom processes: a PGlite server in this process, reached
 * only through DATABASE_URL. PGlite has ONE session, so the `SET ROLE memloom_app` of any process's
 * pool is session-wide, and the next process's owner steps (migrate, ensureTenants) would then run
 * as memloom_app and fail with "permission denied for schema public". Real PostgreSQL keeps roles
 * per connection. Here the owner steps run once, memloom_app gets just enough to re-run them as
 * no-ops, and the session switches to memloom_app for good, as embedded mode does.
 */
export async function startSharedPglite(dims: number): Promise<EmbeddedDatabase> {
  const log = createLogger({ LOG_LEVEL: 'silent', PRETTY_LOGS: false }, process.stderr);
  const db = await startEmbeddedDatabase({ home: '', port: 0, inMemory: true, log });
  const owner = new pg.Client({ connectionString: db.url });
  await owner.connect();
  try {
    await migrate(owner, log);
    await ensureTenants(owner, []);
    await ensureVectorIndexes(owner, dims, 0, log);
    await owner.query(`GRANT CREATE ON SCHEMA public TO memloom_app; GRANT SELECT ON memloom_migrations TO memloom_app;
      GRANT INSERT ON tenants TO memloom_app; GRANT CREATE ON DATABASE postgres TO memloom_app; SET ROLE memloom_app`);
  } finally {
    await owner.end();
  }
  return db;
}

/** A database several memloom processes share through DATABASE_URL. */
export interface ExternalDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * The shared database of multi-process tests: in the server suite a fresh database on the local
 * PostgreSQL (server-db.ts, dropped by `stop`), otherwise a PGlite server in this process.
 */
export async function startExternalDatabase(dims: number): Promise<ExternalDatabase> {
  if (!SERVER_MODE) return startSharedPglite(dims);
  const db = await createServerDatabase();
  return { url: db.url, stop: () => db.drop() };
}

/** Texts sent in successful embedding calls, and how many distinct ones (equal when none was embedded twice). */
export function embeddedTexts(stub: ProviderStub, since = 0): { sent: number; distinct: number } {
  const texts = callsTo(stub, '/v1/embeddings', since)
    .filter((c) => c.status === 200)
    .flatMap((c) => (Array.isArray(c.body?.input) ? (c.body.input as string[]) : [String(c.body?.input)]));
  return { sent: texts.length, distinct: new Set(texts).size };
}
