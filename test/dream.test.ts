import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant } from '../src/db/pool.js';
import { insertMemory, linkMemoryEntities } from '../src/db/sql/memories-write.js';
import { addProvenance } from '../src/db/sql/provenance.js';
import { startRun } from '../src/db/sql/runs.js';
import { contentHash, ftsDocument, normalizeText } from '../src/domain/text.js';
import { dream } from '../workers/dream/handler.js';
import { enqueueDueDreams } from '../workers/maintenance/dream-triggers.js';
import { getJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { ingest, runStage, TENANT, waitForDeadLetter, waitForJob } from './support/pipeline.js';

let m: TestMemloom;
const DAY = 86_400_000;
const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString();
const rows = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  withTenant(m.deps.db, TENANT, async (tx) => (await tx.query(text, params)).rows as T[]);

interface Seed {
  content: string;
  kind?: string;
  subject?: string;
  /** One supporting event per entry: its session, or null for an event without a session. */
  sessions: Array<string | null>;
  daysAgo?: number;
}

/** Stores events and the memories they support (as extraction would), returns memory ids in order. */
async function seed(userId: string, items: Seed[]): Promise<string[]> {
  const eventIds = await ingest(
    m.deps,
    items.flatMap((it, i) =>
      it.sessions.map((s, j) => ({
        user_id: userId,
        occurred_at: at(it.daysAgo ?? 5),
        content: `${it.content} (evidence ${i}.${j})`,
        ...(s ? { session_id: s } : {}),
      })),
    ),
  );
  const { vectors } = await m.deps.providers.embeddings.embed(
    items.map((it) => it.content),
    'document',
  );
  const { model, dimensions } = m.deps.providers.embeddings;
  return withTenant(m.deps.db, TENANT, async (tx) => {
    const runId = await startRun(tx, { stage: 'test', jobId: undefined });
    const ids: string[] = [];
    let next = 0;
    for (const [i, it] of items.entries()) {
      const evidence = eventIds.slice(next, next + it.sessions.length);
      next += it.sessions.length;
      let subject: string | null = null;
      if (it.subject) {
        const { rows: e } = await tx.query<{ id: string }>(
          `INSERT INTO entities (name, normalized_name, type, fts) VALUES ($1, lower($1), 'concept', to_tsvector('simple', $1))
           ON CONFLICT (tenant_id, dataset, (coalesce(user_id, '')), normalized_name, type) DO UPDATE SET updated_at = now() RETURNING id`,
          [it.subject],
        );
        subject = e[0]!.id;
        await addProvenance(tx, 'entity', [{ objectId: subject, eventIds: evidence }], runId);
      }
      const { id } = await insertMemory(
        tx,
        {
          kind: it.kind ?? 'fact',
          content: it.content,
          content_hash: contentHash(normalizeText(it.content)),
          fts_doc: ftsDocument(it.content),
          vector: vectors[i]!,
          importance: 5,
          confidence: 0.7,
          event_time: null,
          time_precision: null,
          occurred_at: at(it.daysAgo ?? 5),
          subject_entity_id: subject,
          dataset: 'default',
          user_id: userId,
          agent_id: null,
          session_id: it.sessions[0] ?? null,
          source_event_ids: evidence,
          version: 1,
        },
        model,
        dimensions,
        runId,
      );
      await addProvenance(tx, 'memory', [{ objectId: id, eventIds: evidence }], runId);
      if (subject) await linkMemoryEntities(tx, [{ memoryId: id, entityId: subject }]);
      ids.push(id);
    }
    return ids;
  });
}

const snapshot = async () => ({
  memories: await rows(
    'SELECT id, status, superseded_by, superseded_at, is_crystal, confidence, importance, content, version, updated_at FROM memories ORDER BY id',
  ),
  relations: await rows('SELECT from_memory_id, to_memory_id, relation, is_progression FROM memory_relations ORDER BY 1, 2, 3'),
  provenance: await rows('SELECT object_type, object_id, event_id FROM provenance ORDER BY 1, 2, 3'),
  memoryEntities: await rows('SELECT memory_id, entity_id FROM memory_entities ORDER BY 1, 2'),
  runs: await rows('SELECT count(*)::int AS n FROM pipeline_runs'),
});
const evidenceOf = async (id: string) =>
  (await rows<{ event_id: string }>(`SELECT event_id FROM provenance WHERE object_type = 'memory' AND object_id = $1 ORDER BY 1`, [id])).map((r) => r.event_id);

const KEYS = ['deployA', 'deployB', 'deployC', 'kafka', 'noKafka', 'go', 'goDetail', 'crystal', 'twoSources', 'noSession'] as const;
const ids = {} as Record<(typeof KEYS)[number], string>;
let firstRun: Record<string, unknown>;

beforeAll(async () => {
  m = await startTestMemloom({ roles: { workers: ['dream'] }, env: { DREAM_MEMORIES: '3', DREAM_SESSIONS: '100' } });
  const seeded = await seed('d1', [
    { content: 'The deploy pipeline runs integration tests before every release.', sessions: ['a1', 'a2'], daysAgo: 9 },
    { content: 'the deploy pipeline runs integration-tests before every release', sessions: ['a3'], daysAgo: 8 },
    { content: 'The deploy pipeline runs the integration tests before each release.', sessions: ['a4'], daysAgo: 3 },
    { content: 'We use Kafka for the event bus in production.', sessions: ['k1'], daysAgo: 6 },
    { content: 'We no longer use Kafka for the event bus in production.', sessions: ['k2'], daysAgo: 1 },
    { content: 'The billing service is written in Go.', subject: 'billing service', sessions: ['g1'], daysAgo: 6 },
    { content: 'The billing service is written in Go with chi routing and sqlc queries.', subject: 'billing service', sessions: ['g2'], daysAgo: 2 },
    { content: 'Incidents are reviewed within two working days by the on-call lead.', sessions: ['c1', 'c2', 'c3'] },
    { content: 'Releases are cut from the main branch every second Thursday.', sessions: ['c4', 'c5'] },
    { content: 'Customer data never leaves the Frankfurt region under any plan.', sessions: [null, null, null] },
  ]);
  KEYS.forEach((k, i) => (ids[k] = seeded[i] as string));
  firstRun = { ...(await runStage(m.deps, dream, { tenantId: TENANT, userId: 'd1', trigger: 'manual' })).result };
}, 300_000);
afterAll(async () => m?.close());

describe('dream', () => {
  it('merges near-duplicates into the most confirmed memory, which keeps the union of provenance', async () => {
    expect(firstRun).toMatchObject({ merged: 2 });
    const merged = await rows<{ id: string; status: string; superseded_by: string | null }>(
      'SELECT id, status, superseded_by FROM memories WHERE id = ANY($1::uuid[]) ORDER BY id',
      [[ids.deployB, ids.deployC]],
    );
    expect(merged.every((r) => r.status === 'superseded' && r.superseded_by === ids.deployA)).toBe(true);
    expect((await rows('SELECT status FROM memories WHERE id = $1', [ids.deployA]))[0]).toEqual({ status: 'active' });
    const union = [...(await evidenceOf(ids.deployB)), ...(await evidenceOf(ids.deployC))];
    expect(await evidenceOf(ids.deployA)).toEqual(expect.arrayContaining(union));
    const rel = await rows('SELECT to_memory_id, relation FROM memory_relations WHERE from_memory_id = $1 ORDER BY relation', [ids.deployA]);
    expect(rel).toEqual(
      expect.arrayContaining([
        { to_memory_id: ids.deployB, relation: 'confirms' },
        { to_memory_id: ids.deployC, relation: 'replaces' },
      ]),
    );
  });

  it('leaves a contradiction open: both sides active, linked challenges, and listed as a conflict', async () => {
    const both = await rows<{ status: string }>('SELECT status FROM memories WHERE id = ANY($1::uuid[])', [[ids.kafka, ids.noKafka]]);
    expect(both.map((b) => b.status)).toEqual(['active', 'active']);
    expect(await rows('SELECT from_memory_id, to_memory_id FROM memory_relations WHERE relation = $1', ['challenges'])).toEqual([
      { from_memory_id: ids.noKafka, to_memory_id: ids.kafka },
    ]);
    const listed = (await getJson(`${m.url}/v1/memories?user_id=d1&conflicts=true`)).body.memories.map((x: { id: string }) => x.id);
    expect(listed.sort()).toEqual([ids.kafka, ids.noKafka].sort());
  });

  it('links a more detailed statement about the same subject with enriches', async () => {
    expect(await rows('SELECT from_memory_id, to_memory_id FROM memory_relations WHERE relation = $1', ['enriches'])).toEqual([
      { from_memory_id: ids.goDetail, to_memory_id: ids.go },
    ]);
  });

  it('forms a crystal at three independent sources (sessions, or events without one), not at two', async () => {
    const flags = await rows<{ id: string; is_crystal: boolean }>('SELECT id, is_crystal FROM memories WHERE is_crystal ORDER BY id');
    // the merged deploy memory has four sessions of evidence after the merge: a crystal too
    expect(flags.map((f) => f.id).sort()).toEqual([ids.crystal, ids.noSession, ids.deployA].sort());
    expect(flags.map((f) => f.id)).not.toContain(ids.twoSources);
  });

  it('changes nothing when it runs again', async () => {
    const before = await snapshot();
    const again = await runStage(m.deps, dream, { tenantId: TENANT, userId: 'd1', trigger: 'manual' });
    expect(again.result).toMatchObject({ merged: 0, links: 0, crystals: 0 });
    expect(await snapshot()).toEqual(before);
  });

  it('is enqueued per user scope by the dream-triggers task once enough is new, and records the dream', async () => {
    await seed('trig', [
      { content: 'The office coffee machine is serviced on Fridays.', sessions: ['t1'] },
      { content: 'The team standup starts at half past nine.', sessions: ['t2'] },
      { content: 'Design reviews need two approvals from staff engineers.', sessions: ['t3'] },
    ]);
    expect(await enqueueDueDreams(m.deps)).toEqual({ enqueued: 1 });
    await waitFor(async () => (await rows(`SELECT 1 FROM user_state WHERE user_id = 'trig' AND last_dream_at IS NOT NULL`)).length === 1, {
      timeoutMs: 120_000,
      what: 'the triggered dream',
    });
    const [state] = await rows<{ last_dream_stats: Record<string, unknown> }>(`SELECT last_dream_stats FROM user_state WHERE user_id = 'trig'`);
    expect(state!.last_dream_stats).toMatchObject({ trigger: 'memories', memories: 3 });
    expect(await enqueueDueDreams(m.deps)).toEqual({ enqueued: 0 });
  }, 180_000);

  it('fails an invalid payload permanently, without retries, into the dead letters', async () => {
    const queue = m.deps.queues.get('dream');
    await queue.add('dream', { tenantId: TENANT }, { jobId: 'dream-bad-payload', attempts: 5, backoff: { type: 'fixed', delay: 10 } });
    const { job, state } = await waitForJob(queue, 'dream-bad-payload', ['failed', 'completed']);
    expect(state).toBe('failed');
    expect(job.attemptsMade).toBe(1);
    expect((await waitForDeadLetter(m.deps.db, 'dream', 'dream-bad-payload')).code).toBe('INPUT_INVALID');
  });
});
