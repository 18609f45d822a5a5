import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vacuumChangedTables } from '../src/db/auto-analyze.js';
import { startTestMemloom, postJson, type TestMemloom } from './support/memloom.js';
import { ingest } from './support/pipeline.js';

/** PGlite runs no autovacuum and no checkpointer: memloom does their work (issue 19). */
let m: TestMemloom;
beforeAll(async () => {
  m = await startTestMemloom({ inMemory: false });
}, 120_000);
afterAll(async () => m?.close());

describe('embedded database upkeep', () => {
  it('keeps WAL small, and the application role may VACUUM what forget deleted and CHECKPOINT', async () => {
    const { rows: wal } = await m.deps.db.query<{ max_wal_size: string }>('SHOW max_wal_size');
    expect(wal[0]!.max_wal_size).toBe('64MB');
    await ingest(
      m.deps,
      Array.from({ length: 400 }, (_, i) => ({ user_id: 'vac', content: `row ${i} to be forgotten` })),
    );
    expect((await postJson(`${m.url}/v1/forget`, { user_id: 'vac' })).body.removed.events).toBe(400);
    const vacuumed = await vacuumChangedTables(m.deps.db);
    expect(vacuumed.map((v) => v.name)).toContain('public.events');
    await m.deps.db.query('CHECKPOINT');
    // Nothing left to vacuum right after.
    expect((await vacuumChangedTables(m.deps.db)).map((v) => v.name)).not.toContain('public.events');
  });
});
