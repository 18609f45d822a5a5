import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addJobs, jobOptions } from '../../src/queue/enqueue.js';
import { startWorkers } from '../../src/queue/runner.js';
import type { QueueName } from '../../src/queue/names.js';
import type { AnyStage } from '../../src/queue/stage.js';
import { CATALOG } from '../catalog.js';
import { startTestMemloom, type TestMemloom } from '../../test/support/memloom.js';
import { ingest, runStage, sql, TENANT, waitForDeadLetter, waitForJob } from '../../test/support/pipeline.js';
import { triage } from './handler.js';
import { TriageInput } from './schema.js';

interface Row {
  id: string;
  status: string;
  skip_reason: string | null;
  extract_pending: boolean;
  extract_key: string | null;
  priority: number | null;
}

describe.each([{ redis: false }, { redis: true }])('triage stage (redis: $redis)', ({ redis }) => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ redis, roles: { api: false, workers: [] } });
  });
  afterAll(async () => m?.close());

  const rows = (ids: string[]) =>
    sql<Row>(m.deps.db, 'SELECT id, status, skip_reason, extract_pending, extract_key, priority FROM events WHERE id = ANY($1::uuid[]) ORDER BY seq', [ids]);

  it('skips acknowledgements, empty tool chatter and duplicates in a session with a reason, and routes the rest', async () => {
    const ids = await ingest(m.deps, [
      { session_id: 'tri-1', user_id: 'u1', content: 'We decided to use PostgreSQL for the memory store.' },
      { session_id: 'tri-1', user_id: 'u1', content: 'ok thanks' },
      { session_id: 'tri-1', user_id: 'u1', content: '好的，谢谢' },
      { session_id: 'tri-1', user_id: 'u1', type: 'tool_result', role: 'tool', content: '{}' },
      { session_id: 'tri-1', user_id: 'u1', content: 'We decided to use PostgreSQL for the memory store.' },
      { session_id: 'tri-2', user_id: 'u1', content: 'We decided to use PostgreSQL for the memory store.' },
      { user_id: 'u1', type: 'document', content: 'Runbook: restart the replica when lag exceeds ten seconds.' },
      { user_id: 'u1', type: 'decision', content: 'Use Redis for the queue.', importance: 9 },
    ]);
    const { result, next } = await runStage(m.deps, triage, { tenantId: TENANT, eventIds: ids });
    // One job triages the batch of one ingest flush.
    expect(new Set(result.triagedIds)).toEqual(new Set([ids[0], ids[5], ids[6], ids[7]]));
    const r = await rows(ids);
    expect(r.map((x) => [x.status, x.skip_reason])).toEqual([
      ['triaged', null],
      ['skipped', 'ack'],
      ['skipped', 'ack'],
      ['skipped', 'empty'],
      ['skipped', 'duplicate'],
      ['triaged', null], // same text in another session is not a duplicate
      ['triaged', null],
      ['triaged', null],
    ]);
    expect(r[0]).toMatchObject({ extract_pending: true, extract_key: 'session:tri-1' });
    expect(r[5]).toMatchObject({ extract_pending: true, extract_key: 'session:tri-2' });
    expect(r[6]).toMatchObject({ extract_pending: true, extract_key: `doc:${ids[6]}` });
    expect(r[7]).toMatchObject({ extract_pending: true, extract_key: 'user:u1', priority: 2 }); // importance 9 → priority 2
    for (const skipped of r.filter((x) => x.status === 'skipped')) expect(skipped.extract_pending).toBe(false);
    // Documents and conversation alike go on to chunking, in one job.
    expect(next).toEqual([{ stage: 'chunk', input: { tenantId: TENANT, eventIds: [ids[0], ids[5], ids[6], ids[7]] } }]);
  });

  it('is a no-op on replay: no status changes, and the next stage is computed from stored state', async () => {
    const ids = await ingest(m.deps, [
      { session_id: 'tri-3', content: 'The billing service moves to Kubernetes next quarter.' },
      { session_id: 'tri-3', content: 'thanks!' },
    ]);
    const first = await runStage(m.deps, triage, { tenantId: TENANT, eventIds: ids });
    const before = await rows(ids);
    const again = await runStage(m.deps, triage, { tenantId: TENANT, eventIds: ids });
    // the requeue task may queue an event again in another batch
    const otherJob = await runStage(m.deps, triage, { tenantId: TENANT, eventIds: [ids[1] as string] });
    expect(first.next).toEqual([{ stage: 'chunk', input: { tenantId: TENANT, eventIds: [ids[0]] } }]);
    expect([again, otherJob].map((j) => j.result.triagedIds)).toEqual([[], []]);
    expect(await rows(ids)).toEqual(before);
    // A retry after the commit still moves the pipeline on (the event is still waiting for chunking)…
    expect(again.next).toEqual(first.next);
    // …and a skipped event never does.
    expect(otherJob.next).toEqual([]);
  });

  it('two jobs holding the same events triage each event once', async () => {
    const ids = await ingest(
      m.deps,
      Array.from({ length: 40 }, (_, i) => ({ session_id: 'tri-5', content: `Overlap fact number ${i} about the deploy window.` })),
    );
    const [a, b] = await Promise.all([
      runStage(m.deps, triage, { tenantId: TENANT, eventIds: ids }),
      runStage(m.deps, triage, { tenantId: TENANT, eventIds: [...ids].reverse() }),
    ]);
    const triaged = [...a.result.triagedIds, ...b.result.triagedIds];
    expect(triaged.sort()).toEqual([...ids].sort());
    expect((await rows(ids)).every((r) => r.status === 'triaged')).toBe(true);
  });

  it('queues jobs that keep completed runs by age only on PostgreSQL (trimming to a count there sorts every kept job at each finish)', async () => {
    await addJobs(m.deps.queues, 'triage', [
      { data: { tenantId: TENANT, eventIds: ['00000000-0000-4000-8000-000000000001'] }, opts: jobOptions('retention-probe') },
    ]);
    const job = await m.deps.queues.get('triage').getJob('retention-probe');
    try {
      expect(job?.opts.removeOnComplete).toEqual(redis ? { age: 24 * 3600, count: 50_000 } : { age: 3600 });
      expect(job?.opts.removeOnFail).toEqual({ age: 14 * 24 * 3600 });
    } finally {
      await job?.remove();
    }
  });

  it('rejects a payload without events or with a one-event field of the removed pre-batching shape', () => {
    const id = '00000000-0000-4000-8000-000000000000';
    expect(TriageInput.safeParse({ tenantId: TENANT, eventId: id }).success).toBe(false);
    expect(TriageInput.safeParse({ tenantId: TENANT }).success).toBe(false);
    expect(TriageInput.safeParse({ tenantId: TENANT, eventIds: [] }).success).toBe(false);
    expect(TriageInput.safeParse({ tenantId: TENANT, eventIds: [id] }).success).toBe(true);
  });

  it('fails an invalid payload permanently, without retries, and records a dead letter', async () => {
    const workers = startWorkers(m.deps, CATALOG, ['triage']);
    try {
      const queue = m.deps.queues.get('triage');
      await queue.add(
        'triage',
        { tenantId: TENANT, eventIds: ['not-a-uuid'] },
        { jobId: 'triage-bad-payload', attempts: 5, backoff: { type: 'fixed', delay: 10 } },
      );
      const { job, state } = await waitForJob(queue, 'triage-bad-payload', ['failed', 'completed']);
      expect(state).toBe('failed');
      expect(job.attemptsMade).toBe(1);
      expect(job.failedReason).toMatch(/^INPUT_INVALID: eventIds/);
      const dead = await waitForDeadLetter(m.deps.db, 'triage', 'triage-bad-payload');
      expect(dead.code).toBe('INPUT_INVALID');
      expect(JSON.parse(dead.payload)).toEqual({ tenantId: TENANT, eventIds: ['not-a-uuid'] });
    } finally {
      await workers.close();
    }
  });

  it('warms a stage once, at the first job of a queue upstream of it, and only stages this process runs', async () => {
    const warmed: string[] = [];
    const catalog = new Map(CATALOG);
    const warmOn = (name: 'extract' | 'embed' | 'chunk', on: QueueName[]) =>
      catalog.set(name, { ...(CATALOG.get(name) as AnyStage), warm: { on, run: () => void warmed.push(name) } });
    warmOn('extract', ['triage']);
    warmOn('chunk', ['embed']); // runs here, but no embed job comes
    warmOn('embed', ['triage']); // not run by this process
    const workers = startWorkers(m.deps, catalog, ['triage', 'chunk', 'extract']);
    try {
      expect(warmed).toEqual([]); // an idle process loads nothing
      const queue = m.deps.queues.get('triage');
      for (const n of [1, 2]) {
        const [id] = await ingest(m.deps, [{ session_id: 'tri-warm', content: `Warm-up event number ${n} for the runner.` }]);
        await queue.add('triage', { tenantId: TENANT, eventIds: [id] }, { jobId: `triage-warm-${n}` });
        expect((await waitForJob(queue, `triage-warm-${n}`, ['completed', 'failed'])).state).toBe('completed');
      }
      expect(warmed).toEqual(['extract']);
    } finally {
      await workers.close();
    }
  });
});
