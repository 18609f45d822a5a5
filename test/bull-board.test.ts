import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, startTestMemloom, type TestMemloom } from './support/memloom.js';
import { createScratchDatabase, type ScratchDatabase } from './support/server-mode.js';

interface BoardQueue {
  name: string;
  hasWorkers: boolean | null;
}

/** Which queues Bull Board says have workers, and the workers it lists for one queue. */
async function board(m: TestMemloom, queue: string) {
  const list = await getJson(`${m.url}/admin/queues/api/queues`);
  expect(list.status).toBe(200);
  const withWorkers = (list.body.queues as BoardQueue[])
    .filter((q) => q.hasWorkers)
    .map((q) => q.name)
    .sort();
  const detail = await getJson(`${m.url}/admin/queues/api/queues/${queue}/workers`);
  expect(detail.status).toBe(200);
  return { withWorkers, workers: detail.body.workers as Array<{ id: string; addr: string }> };
}

describe('Bull Board lists the workers that run, on BullMQ’s PostgreSQL backend', () => {
  let m: TestMemloom;
  beforeAll(async () => {
    m = await startTestMemloom({ roles: { api: true, workers: ['triage', 'chunk'] } });
  });
  afterAll(async () => m?.close());

  it('embedded: the queues this process consumes, and no others', async () => {
    const { withWorkers, workers } = await board(m, 'triage');
    expect(withWorkers).toEqual(['chunk', 'triage']);
    expect(workers).toHaveLength(1);
    expect(workers[0]?.addr).toBe('in-process');
    expect((await board(m, 'embed')).workers).toEqual([]);
  });
});

describe('Bull Board on a PostgreSQL server with the PostgreSQL queue backend', () => {
  let db: ScratchDatabase;
  let m: TestMemloom;
  beforeAll(async () => {
    db = await createScratchDatabase('memloom_board');
    m = await startTestMemloom({ env: { DATABASE_URL: db.url }, roles: { api: true, workers: ['embed'] } });
  });
  afterAll(async () => {
    await m?.close();
    await db?.drop();
  });

  it('reads the worker sessions of every process from pg_stat_activity', async () => {
    const { withWorkers, workers } = await board(m, 'embed');
    expect(withWorkers).toEqual(['embed']);
    expect(workers).toHaveLength(1);
    expect(Number(workers[0]?.id)).toBeGreaterThan(0); // a backend pid
  });
});
