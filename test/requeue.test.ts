import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from 'bullmq';
import { withTenant } from '../src/db/pool.js';
import { MAINTENANCE_TASKS } from '../src/queue/scheduler.js';
import { TRIAGE_BATCH } from '../src/queue/triage-jobs.js';
import { requeueStoredEvents } from '../workers/maintenance/requeue.js';
import { requeueLostWork } from '../workers/maintenance/lost-jobs.js';
import { findUnfinished, stillUnfinished } from '../src/db/sql/lost-work.js';
import { enqueueAll } from '../src/queue/enqueue.js';
import { chunkJob } from '../workers/chunk/schema.js';
import { triage as triageStage } from '../workers/triage/handler.js';
import { postJson, startTestMemloom, waitFor, type TestMemloom } from './support/memloom.js';
import { allJobs, runStage, triageEventsOf, triageJobsHolding } from './support/pipeline.js';
import { freePort } from './support/process.js';

/** A Redis of this test's own, so it can be stopped without touching anyone else's queues. */
class OwnRedis {
  child: ChildProcess | undefined;
  constructor(readonly port: number) {}

  async start(): Promise<void> {
    // Already running: a second server would fail to bind and take the first one's place here, and
    // stop() would then leave the first one running after the tests.
    if (this.child && this.child.exitCode === null) return;
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitFor(() => ping(this.port), { timeoutMs: 10_000, what: 'redis-server to answer' });
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    this.child = undefined;
  }
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
  });
}

describe('queue down: events are stored, then the requeue task queues each exactly once', () => {
  let redis: OwnRedis;
  let m: TestMemloom;
  beforeAll(async () => {
    redis = new OwnRedis(await freePort());
    await redis.start();
    m = await startTestMemloom({ env: { REDIS_URL: `redis://127.0.0.1:${redis.port}` }, roles: { api: true, workers: [] } });
  });
  afterAll(async () => {
    await redis?.start().catch(() => undefined); // closing queues needs their Redis
    await m?.close();
    await redis?.stop();
  });

  const notEnqueued = () =>
    withTenant(m.deps.db, 'default', async (tx) => (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM events_unqueued')).rows[0]?.n);

  it('answers 202 with Redis stopped, and queues every event once Redis is back', async () => {
    const up = await postJson(`${m.url}/v1/events`, { content: 'before the outage' });
    expect(up.status).toBe(202);
    await m.deps.dispatcher.flush();
    expect(await notEnqueued()).toBe(0);

    await redis.stop();
    const batch = await postJson(`${m.url}/v1/events`, { events: Array.from({ length: 20 }, (_, i) => ({ content: `outage batch ${i}` })) });
    const singles = await Promise.all(Array.from({ length: 5 }, (_, i) => postJson(`${m.url}/v1/events`, { content: `outage single ${i}` })));
    expect([batch.status, ...singles.map((s) => s.status)]).toEqual(Array.from({ length: 6 }, () => 202));
    const ids: string[] = [...batch.body.ids, ...singles.map((s) => s.body.ids[0])];
    expect(new Set(ids).size).toBe(25);

    await m.deps.dispatcher.flush(); // gives up after its timeout and leaves the events to the requeue task
    const stored = await withTenant(
      m.deps.db,
      'default',
      async (tx) =>
        (
          await tx.query<{ id: string; unqueued: boolean }>(
            'SELECT id, EXISTS (SELECT 1 FROM events_unqueued u WHERE u.event_id = e.id) AS unqueued FROM events e WHERE id = ANY($1::uuid[])',
            [ids],
          )
        ).rows,
    );
    expect(stored).toHaveLength(25);
    expect(stored.every((r) => r.unqueued)).toBe(true);

    await redis.start();
    const first = await requeueStoredEvents(m.deps, 0);
    expect(first.requeued).toBe(25);
    // Redis came back empty: the job of the event queued before the outage is gone too.
    expect(first.lost).toBe(1);
    ids.push(up.body.ids[0] as string);
    expect(await notEnqueued()).toBe(0);
    const triage = m.deps.queues.get('triage');
    // Redis came back empty (no persistence): every outage event is queued. An event may be in two
    // jobs: ioredis sends the dispatcher's timed-out add once Redis is back, and its batch (so its
    // job id) differs from the requeue task's. Triage claims only `received` events, so running every
    // queued job triages each event exactly once.
    const jobs = await allJobs(triage as unknown as Queue);
    const queued = jobs.flatMap((j) => triageEventsOf(j.data));
    expect(new Set(queued)).toEqual(new Set(ids));
    expect(queued.length).toBeLessThanOrEqual(2 * ids.length);
    expect(jobs.every((j) => j.data.tenantId === 'default')).toBe(true);
    const triaged: string[] = [];
    for (const j of jobs) {
      const { result } = await runStage(m.deps, triageStage, j.data);
      triaged.push(...result.triagedIds, ...result.skippedIds);
    }
    expect(triaged.sort()).toEqual([...ids].sort());
    const counts = await triage.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed');

    const second = await requeueStoredEvents(m.deps, 0);
    expect(second.requeued).toBe(0);
    const after = await triage.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed');
    expect(after).toEqual(counts);
  });

  it('leaves events younger than the grace period to the dispatcher', async () => {
    await redis.stop();
    const r = await postJson(`${m.url}/v1/events`, { content: 'young' });
    expect(r.status).toBe(202);
    await m.deps.dispatcher.flush();
    await redis.start();
    expect((await requeueStoredEvents(m.deps, 60_000)).requeued).toBe(0);
    expect((await requeueStoredEvents(m.deps, 0)).requeued).toBe(1);
    expect(await triageJobsHolding(m.deps, r.body.ids[0])).toHaveLength(1);
  });
});

describe('scheduler: a Redis restarted without persistence gets the job schedulers back', () => {
  let redis: OwnRedis;
  let m: TestMemloom;
  beforeAll(async () => {
    redis = new OwnRedis(await freePort());
    await redis.start();
    m = await startTestMemloom({
      env: { REDIS_URL: `redis://127.0.0.1:${redis.port}`, SCHEDULER_REFRESH_MS: '300', REQUEUE_INTERVAL_MS: '500' },
      roles: { api: false, workers: ['maintenance'], scheduler: true },
    });
  });
  afterAll(async () => {
    await redis?.start().catch(() => undefined);
    await m?.close();
    await redis?.stop();
  });

  const schedulerKeys = async () => (await m.deps.queues.get('maintenance').getJobSchedulers()).map((s) => s.key).sort();
  const ALL = MAINTENANCE_TASKS.map((t) => `maintenance-${t}`).sort();

  it('registers every maintenance schedule again, and the requeue task runs without a memloom restart', async () => {
    expect(await schedulerKeys()).toEqual(ALL);
    await redis.stop();
    await redis.start(); // empty: started with --save '' --appendonly no
    await waitFor(async () => JSON.stringify(await schedulerKeys()) === JSON.stringify(ALL), {
      timeoutMs: 60_000,
      what: 'the job schedulers to be registered again',
    });

    // An event committed but never queued (as after a crash between commit and enqueue), older
    // than the requeue task's grace period: only a scheduled requeue tick can queue it now.
    const [id] = await withTenant(m.deps.db, 'default', async (tx) =>
      (
        await tx.query<{ id: string }>(
          `INSERT INTO events (idem_key, content, content_hash, received_at) VALUES ('after-restart', 'lost', 'h', now() - interval '1 minute') RETURNING id`,
        )
      ).rows.map((r) => r.id),
    );
    await waitFor(async () => (await triageJobsHolding(m.deps, id as string)).length === 1, { timeoutMs: 60_000, what: 'the requeue task to queue the event' });
    // a refresh keeps each scheduler as it is: one scheduler per task, never a second one
    expect(await schedulerKeys()).toEqual(ALL);
  });

  it('removes the scheduler of a task that no longer exists (the requeue task was `reconcile` before 0.1.1)', async () => {
    const queue = m.deps.queues.get('maintenance');
    await queue.upsertJobScheduler('maintenance-reconcile', { every: 60_000 }, { name: 'reconcile', data: { task: 'reconcile' } });
    expect(await schedulerKeys()).toContain('maintenance-reconcile');
    await waitFor(async () => JSON.stringify(await schedulerKeys()) === JSON.stringify(ALL), { timeoutMs: 60_000, what: 'the old scheduler to be removed' });
  });
});

describe('requeue task on the PostgreSQL queue backend', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ roles: { api: true, workers: [] } });
  });
  afterAll(async () => m?.close());

  it('queues stored events that never reached the queue (crash between commit and enqueue)', async () => {
    // Events committed without the dispatcher, as after a crash right after the commit.
    const ids = await withTenant(m.deps.db, 'default', async (tx) =>
      (
        await tx.query<{ id: string }>(
          `INSERT INTO events (idem_key, content, content_hash) SELECT 'crash-' || g, 'c' || g, 'h' FROM generate_series(1, 1200) g RETURNING id`,
        )
      ).rows.map((r) => r.id),
    );
    expect((await requeueStoredEvents(m.deps, 0)).requeued).toBe(1200);
    const triage = m.deps.queues.get('triage');
    const queued = async () => (await allJobs(triage as unknown as Queue)).flatMap((j) => triageEventsOf(j.data)).sort();
    expect(await queued()).toEqual([...ids].sort());
    expect((await triage.getJobCounts('waiting')).waiting).toBe(Math.ceil(1200 / TRIAGE_BATCH));
    expect((await requeueStoredEvents(m.deps, 0)).requeued).toBe(0);
    expect(await queued()).toEqual([...ids].sort());
  });

  it('drops the waiting rows of events a job claimed before their mark, or that were forgotten, and queues the rest', async () => {
    const [claimed, forgotten, waiting] = await withTenant(m.deps.db, 'default', async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO events (idem_key, content, content_hash) SELECT 'stale-' || g, 's' || g, 'h' FROM generate_series(1, 3) g RETURNING id`,
      );
      const ids = rows.map((r) => r.id);
      await tx.query(`UPDATE events SET status = 'done' WHERE id = $1`, [ids[0]]); // a job ran it before the dispatcher's mark
      await tx.query(`DELETE FROM events WHERE id = $1`, [ids[1]]);
      return ids;
    });
    const unqueued = () =>
      withTenant(m.deps.db, 'default', async (tx) => (await tx.query<{ event_id: string }>('SELECT event_id FROM events_unqueued ORDER BY event_id')).rows);
    expect((await unqueued()).map((r) => r.event_id)).toEqual([claimed, forgotten, waiting].sort());
    expect((await requeueStoredEvents(m.deps, 0)).requeued).toBe(1);
    expect(await triageJobsHolding(m.deps, waiting as string)).toHaveLength(1);
    expect(await unqueued()).toEqual([]);
  });

  it('queues unfinished events whose job the queue lost, each for the stage it needs next, and leaves held ones alone', async () => {
    const insert = (key: string, status: string, extractKey: string | null) =>
      withTenant(
        m.deps.db,
        'default',
        async (tx) =>
          (
            await tx.query<{ id: string }>(
              `INSERT INTO events (idem_key, content, content_hash, status, extract_key, extract_pending, received_at, enqueued_at)
           VALUES ($1, 'lost work', 'h', $2, $3::text, $3::text IS NOT NULL, now() - interval '1 minute', now() - interval '1 minute') RETURNING id`,
              [key, status, extractKey],
            )
          ).rows[0]?.id as string,
      );
    const triaged = await insert('lost-triaged', 'triaged', null);
    const chunked = await insert('lost-chunked', 'chunked', null);
    await insert('lost-embedded', 'embedded', 'session:lost');
    const held = await insert('held-triaged', 'triaged', null);
    await enqueueAll(m.deps.queues, [{ ...chunkJob('default', [held]), jobId: 'chunk-held-by-a-live-job' }]);

    expect((await requeueLostWork(m.deps, 0)).requeued).toBe(3);
    const chunkJobs = (await allJobs(m.deps.queues.get('chunk') as unknown as Queue)).map((j) => j.data.eventIds as string[]);
    expect(chunkJobs.flat().sort()).toEqual([triaged, held].sort()); // the held event is not queued twice
    expect((await allJobs(m.deps.queues.get('embed') as unknown as Queue)).map((j) => j.data.eventIds)).toEqual([[chunked]]);
    expect((await allJobs(m.deps.queues.get('extract') as unknown as Queue)).map((j) => j.data.extractKey)).toEqual(['session:lost']);
    // now every one of them is held by a live job
    expect((await requeueLostWork(m.deps, 0)).requeued).toBe(0);
  });

  it('calls lost only events that did not move while the queues were read', async () => {
    // Read as unfinished, then carried through every remaining stage before the queues are read
    // (so no live job holds them any more): finished, not lost. One that did not move is lost.
    await withTenant(m.deps.db, 'default', async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `INSERT INTO events (idem_key, content, content_hash, status, received_at, enqueued_at)
         SELECT 'moving-' || g, 'moving', 'h', 'received', now() - interval '1 hour', now() - interval '1 hour' FROM generate_series(1, 3) g
         RETURNING id`,
      );
      const ids = rows.map((r) => r.id);
      await tx.query('DELETE FROM events_unqueued WHERE event_id = ANY($1::uuid[])', [ids]); // handed to the queue
      const read = (await findUnfinished(tx, 0, 60_000, 100_000)).filter((e) => ids.includes(e.id));
      expect(read.map((e) => e.id).sort()).toEqual([...ids].sort());
      await tx.query(`UPDATE events SET status = 'done' WHERE id = $1`, [ids[0]]);
      await tx.query(`UPDATE events SET status = 'triaged' WHERE id = $1`, [ids[1]]);
      expect((await stillUnfinished(tx, read)).map((e) => e.id)).toEqual([ids[2]]);
      await tx.query(`DELETE FROM events WHERE id = ANY($1::uuid[])`, [ids]);
    });
  });
});
