/**
 * Synthetic memories for scripts/bench-recall-latency.ts: varied English sentences over a Zipfian
 * vocabulary (a real core of technologies, places and people plus a long tail of pseudo-words),
 * spread over 50 users, all 8 kinds, a year of event times. Seeded, so runs are comparable.
 * Rows go straight into the tables (set-based INSERT … SELECT FROM jsonb_to_recordset), with
 * vectors from the configured embedder computed in TypeScript in batches.
 */
import { randomUUID } from 'node:crypto';
/** What loading needs of a database: PGlite, or a pg client of the database owner (server mode). */
export interface SqlRunner {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}
import type { EmbeddingProvider } from '../src/providers/types.js';
import { toVectorSql } from '../src/db/sql/vector.js';
import { contentHash, ftsDocument, normalizeText } from '../src/domain/text.js';

export const USERS = Array.from({ length: 50 }, (_, i) => `user-${String(i).padStart(2, '0')}`);

const TECH = (
  'postgresql redis kafka kubernetes terraform typescript rust golang python java kotlin swift react vue svelte nextjs fastify express django flask ' +
  'rails graphql grpc protobuf docker podman nginx envoy istio prometheus grafana loki jaeger elasticsearch opensearch clickhouse duckdb sqlite mysql mongodb ' +
  'cassandra dynamodb bigquery snowflake airflow dagster spark flink pandas numpy pytorch tensorflow onnx pgvector qdrant weaviate pinecone langchain ' +
  'openai anthropic ollama vllm webpack vite esbuild pnpm yarn bun deno jest vitest playwright cypress sentry datadog pagerduty vault consul nomad ansible'
).split(' ');
const PLACES =
  'lisbon berlin paris london madrid dublin amsterdam warsaw prague vienna zurich oslo stockholm helsinki tokyo osaka seoul singapore sydney toronto montreal boston chicago denver austin seattle portland'.split(
    ' ',
  );
const PEOPLE = 'alice bob carol dave erin frank grace heidi ivan judy mallory niaj olivia peggy rupert sybil trent victor walter yvonne zoe'.split(' ');
const PROJECTS =
  'billing checkout search onboarding analytics payments inventory shipping auth notifications reporting ledger pricing catalog gateway scheduler'.split(' ');
const COMMON = (
  'service database cache queue deploy release migration latency throughput outage incident review budget roadmap sprint ticket customer ' +
  'dashboard alert config schema index backup replica cluster region quota token session cookie feature flag experiment rollout rollback test bug fix'
).split(' ');
const SYLLABLES = 'ka lo mi re tu sa ne vo pi da fe gu ri mo ta le zu be ko na si ro pa du ve'.split(' ');

/** Deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Zipf(s≈1.05) sampler over `n` ranks by inverse CDF on a precomputed table. */
function zipf(n: number, s = 1.05): (r: number) => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) cdf[i] = total += 1 / (i + 1) ** s;
  return (r) => {
    const x = r * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] ?? 0) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export interface Vocabulary {
  words: string[];
  pick(r: () => number): string;
  entityWords: Map<string, string>;
}

export function vocabulary(): Vocabulary {
  const r = rng(7);
  const tail = new Set<string>();
  while (tail.size < 4000) tail.add(Array.from({ length: 2 + Math.floor(r() * 3) }, () => SYLLABLES[Math.floor(r() * SYLLABLES.length)]).join(''));
  // Real words first (the frequent ranks), pseudo-words as the long tail.
  const head = [...COMMON, ...TECH, ...PROJECTS, ...PLACES];
  const words = [...head.sort(() => r() - 0.5), ...tail];
  const rank = zipf(words.length);
  const entityWords = new Map<string, string>([
    ...TECH.map((w) => [w, 'technology'] as const),
    ...PLACES.map((w) => [w, 'place'] as const),
    ...PEOPLE.map((w) => [w, 'person'] as const),
    ...PROJECTS.map((w) => [w, 'project'] as const),
  ]);
  return { words, pick: (rr) => words[rank(rr())] as string, entityWords };
}

const KINDS = ['fact', 'preference', 'decision', 'plan', 'procedure', 'profile', 'episode', 'insight'] as const;
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** One sentence per kind, with vocabulary slots and a ticket number that keeps contents distinct. */
function sentence(kind: (typeof KINDS)[number], v: Vocabulary, r: () => number, n: number): string {
  const w = () => v.pick(r);
  const one = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
  const person = cap(one(PEOPLE));
  const tech = one(TECH);
  const extra = Array.from({ length: Math.floor(r() * 4) }, w).join(' ');
  const tail = `${extra ? ` with notes on ${extra}` : ''} (ticket ${n})`;
  switch (kind) {
    case 'decision':
      return `We decided to use ${tech} for the ${one(PROJECTS)} ${w()} ${w()}${tail}`;
    case 'preference':
      return `${person} prefers ${tech} over ${one(TECH)} when working on ${w()} ${w()}${tail}`;
    case 'plan':
      return `Next ${one(['week', 'month', 'quarter', 'sprint'])} we will migrate the ${one(PROJECTS)} ${w()} to ${tech}${tail}`;
    case 'fact':
      return `The ${one(PROJECTS)} ${w()} runs on ${tech} in ${cap(one(PLACES))} and handles ${w()} ${w()}${tail}`;
    case 'procedure':
      return `To restart the ${w()} ${w()}, drain ${tech} first and then check the ${w()} dashboard${tail}`;
    case 'profile':
      return `${person} lives in ${cap(one(PLACES))} and works on ${one(PROJECTS)} ${w()} with ${tech}${tail}`;
    case 'episode':
      return `On ${one(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'])} ${person} met ${cap(one(PEOPLE))} to discuss ${w()} ${w()} and ${tech}${tail}`;
    case 'insight':
      return `${cap(w())} ${w()} problems usually come from ${tech} misconfiguration in ${one(PROJECTS)}${tail}`;
  }
}

/** A recall query: 2–4 vocabulary words, half the time phrased as a question. */
export function query(v: Vocabulary, r: () => number): string {
  const words = Array.from({ length: 2 + Math.floor(r() * 3) }, () => v.pick(r));
  return r() < 0.5 ? `what did we decide about ${words.join(' ')}?` : words.join(' ');
}

const BATCH = 2000;

/**
 * Adds memories `from`…`to - 1` (their seeds are their numbers, so loading 10k then 100k gives the
 * same first 10k), links each to the entities it names, and adds a sparse entity graph once.
 * Runs as the database owner on the PGlite session; the caller makes sure nothing else is running.
 */
export async function loadMemories(
  db: SqlRunner,
  embeddings: EmbeddingProvider,
  v: Vocabulary,
  from: number,
  to: number,
  onBatch?: (done: number) => void,
): Promise<void> {
  const entityIds = await ensureEntities(db, v);
  const now = Date.now();
  for (let start = from; start < to; start += BATCH) {
    const rows: Array<Record<string, unknown>> = [];
    const links: Array<{ m: string; e: string }> = [];
    for (let n = start; n < Math.min(to, start + BATCH); n++) {
      const r = rng(1_000_003 * (n + 1));
      const kind = KINDS[Math.floor(r() * KINDS.length)] as (typeof KINDS)[number];
      const content = sentence(kind, v, r, n);
      const id = randomUUID();
      const user = USERS[Math.floor(r() * USERS.length)] as string;
      const occurred = new Date(now - Math.floor(r() * 365 * 86_400_000)).toISOString();
      rows.push({
        id,
        kind,
        content,
        h: contentHash(normalizeText(content)),
        f: ftsDocument(content),
        u: user,
        s: `${user}-s${Math.floor(r() * 200)}`,
        i: 1 + Math.floor(r() * 10),
        c: 0.5 + r() * 0.45,
        o: occurred,
      });
      const named = new Set(
        content
          .toLowerCase()
          .split(/[^a-z]+/)
          .filter((word) => entityIds.has(`${user}|${word}`)),
      );
      for (const word of [...named].slice(0, 3)) links.push({ m: id, e: entityIds.get(`${user}|${word}`) as string });
    }
    const { vectors } = await embeddings.embed(
      rows.map((x) => x.content as string),
      'document',
    );
    rows.forEach((x, i) => (x.v = toVectorSql(vectors[i] as number[])));
    await db.query(
      `INSERT INTO memories (tenant_id, id, kind, content, content_hash, fts, embedding, embedding_model, embedding_dims, user_id, session_id,
         importance, confidence, occurred_at, valid_from)
       SELECT 'default', id, kind, content, h, to_tsvector('simple', f), v::vector, $2, $3, u, s, i, c, o, o
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, kind text, content text, h text, f text, v text, u text, s text, i int, c real, o timestamptz)`,
      [JSON.stringify(rows), embeddings.model, embeddings.dimensions],
    );
    await db.query(
      `INSERT INTO memory_entities (tenant_id, memory_id, entity_id) SELECT 'default', m, e FROM jsonb_to_recordset($1::jsonb) AS x(m uuid, e uuid) ON CONFLICT DO NOTHING`,
      [JSON.stringify(links)],
    );
    onBatch?.(Math.min(to, start + BATCH));
  }
}

/**
 * Named entities of the vocabulary (technologies, places, people, projects) in every user's graph
 * (entities are per user), and ~2 random edges each (the same pattern for every user). Keyed
 * `user|name`.
 */
async function ensureEntities(db: SqlRunner, v: Vocabulary): Promise<Map<string, string>> {
  const key = (user: string, name: string) => `${user}|${name}`;
  const existing = await db.query<{ user_id: string; normalized_name: string; id: string }>(
    `SELECT user_id, normalized_name, id FROM entities WHERE tenant_id = 'default' AND user_id IS NOT NULL`,
  );
  if (existing.rows.length > 0) return new Map(existing.rows.map((x) => [key(x.user_id, x.normalized_name), x.id]));
  const words = [...v.entityWords];
  const r = rng(11);
  const pattern = words.flatMap((_, s) => [0, 1].map(() => ({ s, t: Math.floor(r() * words.length), rel: r() < 0.5 ? 'uses' : 'related_to' })));
  const ids = new Map<string, string>();
  for (const user of USERS) {
    const entities = words.map(([name, type]) => ({ id: randomUUID(), name: cap(name), n: name, type, f: ftsDocument(name), u: user }));
    await db.query(
      `INSERT INTO entities (tenant_id, id, name, normalized_name, type, fts, user_id) SELECT 'default', id, name, n, type, to_tsvector('simple', f), u
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, name text, n text, type text, f text, u text)`,
      [JSON.stringify(entities)],
    );
    const edges = pattern.map((p) => ({ s: entities[p.s]?.id, t: entities[p.t]?.id, rel: p.rel }));
    await db.query(
      `INSERT INTO edges (tenant_id, source_entity_id, target_entity_id, relation, fts)
       SELECT DISTINCT ON (s, t, rel) 'default', s, t, rel, to_tsvector('simple', rel) FROM jsonb_to_recordset($1::jsonb) AS x(s uuid, t uuid, rel text) WHERE s <> t`,
      [JSON.stringify(edges)],
    );
    for (const e of entities) ids.set(key(user, e.n), e.id);
  }
  return ids;
}
