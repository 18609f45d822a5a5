import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, postJson, waitFor } from '../support/memloom.js';
import { freePort, spawnMemloom, waitReady, type MemloomProcess } from '../support/process.js';
import { createScratchDatabase, OwnRedis, type ScratchDatabase } from '../support/server-mode.js';

/**
 * Two worker processes on real PostgreSQL extracting sessions of one user at the same time: the
 * passes upsert the same entities, memories, edges and provenance in different orders. Any lock
 * taken out of order shows as `deadlock detected` (in the workers' logs as a retried job, and in
 * pg_stat_database.deadlocks); there must be none.
 */
const SESSIONS = 60;
const FACTS = [
  'Alice decided to use PostgreSQL for the billing service.',
  'Bob prefers Grafana dashboards for the queue metrics.',
  'Carol works at Initech as the platform lead.',
  'Dave lives in Lisbon and uses Redis for caching.',
  'Erin decided to use Kubernetes for the staging cluster.',
  'Frank prefers Terraform over Pulumi for infrastructure.',
  'Grace works at Globex and relies on Kafka for events.',
  'Heidi decided to use ClickHouse for the analytics store.',
  'Ivan, Judy, Mallory and Oscar met Peggy, Trent and Victor at Initech, Globex and Umbrella about Kafka, Redis and PostgreSQL.',
  'Trent prefers Redis, Kafka and ClickHouse; Victor uses PostgreSQL, Grafana and Terraform at Umbrella.',
];

function shuffled<T>(list: T[], seed: number): T[] {
  const out = [...list];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe('no deadlocks with two worker processes on PostgreSQL', () => {
  let redis: OwnRedis;
  let db: ScratchDatabase;
  let home: string;
  const procs: MemloomProcess[] = [];
  let api: MemloomProcess;
  beforeAll(async () => {
    redis = await OwnRedis.start();
    db = await createScratchDatabase();
    home = await mkdtemp(path.join(os.tmpdir(), 'memloom-deadlock-'));
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      MEMLOOM_HOME: home,
      EVENTS_DIR: path.join(home, 'events'),
      EXTRACT_DEBOUNCE_MS: '1000',
      EXTRACT_MAX_WAIT_MS: '5000',
      LOG_LEVEL: 'warn',
      INGEST_RATE_PER_SEC: '1000000',
    };
    api = spawnMemloom(['api'], { ...env, PORT: String(await freePort()) });
    await waitReady(api);
    for (let i = 0; i < 2; i++) procs.push(spawnMemloom(['worker', '--queues', 'triage,chunk,embed,extract'], { ...env, PORT: '0' }));
    procs.push(api);
  }, 300_000);
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGTERM');
    await Promise.all(procs.map((p) => p.exited));
    await redis?.kill();
    await db?.drop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const deadlocks = async (): Promise<number> => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const { rows } = await c.query<{ n: string }>('SELECT deadlocks::text AS n FROM pg_stat_database WHERE datname = current_database()');
      return Number(rows[0]?.n ?? 0);
    } finally {
      await c.end();
    }
  };

  it(`extracts ${SESSIONS} overlapping sessions of one user with no deadlock detected`, async () => {
    const before = await deadlocks();
    // All sessions at once, so they turn quiet together and the two workers' passes overlap: each
    // names the same entities and states near-identical facts (confirmed or superseded by the
    // others) in its own order.
    const events = Array.from({ length: SESSIONS }, (_, s) => s).flatMap((s) =>
      shuffled(FACTS, s + 1).map((content, k) => ({
        session_id: `dl-${s}`,
        user_id: 'u-shared',
        role: 'user',
        content: k % 2 === 0 ? content : content.replace('.', ` (noted in session ${s}).`),
      })),
    );
    for (let i = 0; i < events.length; i += 500) expect((await postJson(`${api.url}/v1/events`, { events: events.slice(i, i + 500) })).status).toBe(202);
    await waitFor(async () => ((await getJson(`${api.url}/v1/stats`)).body as { pending_events: number }).pending_events === 0, {
      timeoutMs: 300_000,
      intervalMs: 500,
      what: 'every session to be extracted',
    });
    const logs = procs.map((p) => p.output()).join('\n');
    expect(logs.match(/deadlock detected/g) ?? []).toEqual([]);
    expect((await deadlocks()) - before).toBe(0);
    // and the work converged: one active memory per statement of the user, each with provenance
    const stats = (await getJson(`${api.url}/v1/stats`)).body as { objects: { events: number; memories_active: number; dead_letters: number } };
    expect(stats.objects.events).toBe(SESSIONS * FACTS.length);
    expect(stats.objects.dead_letters).toBe(0);
    const memories = (await getJson(`${api.url}/v1/memories?user_id=u-shared&limit=500`)).body as { memories: Array<{ content: string }> };
    expect(new Set(memories.memories.map((m) => m.content)).size).toBe(memories.memories.length);
  }, 600_000);
});
