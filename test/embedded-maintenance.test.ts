import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vacuumChangedTables, vacuumStatement } from '../src/db/auto-analyze.js';
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
    // The regular pass: HNSW tables without index cleanup (seconds of a held thread at scale).
    const vacuumed = await vacuumChangedTables(m.deps.db, { indexCleanup: false });
    expect(vacuumed.map((v) => v.name)).toContain('public.events');
    expect(vacuumStatement('public.chunks', false)).toBe('VACUUM (INDEX_CLEANUP OFF) public.chunks');
    expect(vacuumStatement('public.memories', true)).toBe('VACUUM (INDEX_CLEANUP AUTO) public.memories');
    expect(vacuumStatement('public.events', false)).toBe('VACUUM (INDEX_CLEANUP AUTO) public.events');
    // The application role may run the statement the regular pass sends for an HNSW table.
    await m.deps.db.query(vacuumStatement('public.chunks', false));
    await m.deps.db.query('CHECKPOINT');
    // Nothing left to vacuum right after.
    expect((await vacuumChangedTables(m.deps.db)).map((v) => v.name)).not.toContain('public.events');
  });
});
