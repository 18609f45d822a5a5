import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../src/db/migrator.js';
import { PgGateStore, type GateStore } from '../src/providers/gate-store.js';
import { RedisGateStore } from '../src/providers/gate-redis.js';
import { REDIS_URL, startTestMemloom, type TestMemloom } from './support/memloom.js';

/**
 * The gate's shared state must be exact under concurrency on both stores: these are the
 * primitives every process's gate relies on (reservations all or nothing, corrections, cooldowns,
 * a semaphore whose leases expire).
 */
let m: TestMemloom;
const stores: Record<string, GateStore> = {};
/** PGlite runs one statement at a time; a real server checks the row locks with true parallelism. */
const PLAIN_POSTGRES = process.env.TEST_PLAIN_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const realDb = `memloom_gate_${randomUUID().slice(0, 8)}`;
let realPool: pg.Pool | undefined;

beforeAll(async () => {
  m = await startTestMemloom({ roles: { api: false } });
  stores.postgres = new PgGateStore(m.deps.db);
  stores.redis = new RedisGateStore(REDIS_URL, `test-gate-${randomUUID().slice(0, 8)}`);
  // Only the gate's migration, on a throwaway database of the plain PostgreSQL server.
  const admin = new pg.Client({ connectionString: PLAIN_POSTGRES });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${realDb}`);
  await admin.query(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'memloom_app') THEN CREATE ROLE memloom_app NOLOGIN; END IF; END $$`);
  await admin.end();
  const url = new URL(PLAIN_POSTGRES);
  url.pathname = `/${realDb}`;
  realPool = new pg.Pool({ connectionString: url.toString(), max: 30 });
  const gateMigration = (await readdir(MIGRATIONS_DIR)).find((d) => d.endsWith('_gate')) as string;
  await realPool.query(await readFile(path.join(MIGRATIONS_DIR, gateMigration, 'migration.sql'), 'utf8'));
  stores['real postgres'] = new PgGateStore(realPool);
});
afterAll(async () => {
  await stores.redis?.close();
  await realPool?.end();
  const admin = new pg.Client({ connectionString: PLAIN_POSTGRES });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${realDb}`);
  await admin.end();
  await m?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(['postgres', 'real postgres', 'redis'])('gate store on %s', (kind) => {
  const store = () => stores[kind] as GateStore;
  const key = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

  it('admits exactly what fits when 60 reservations race', async () => {
    const k = key('race');
    const answers = await Promise.all(Array.from({ length: 60 }, () => store().reserve([{ key: k, windowMs: 3_600_000, amount: 10, limit: 200 }], [])));
    expect(answers.filter((a) => a.ok)).toHaveLength(20);
    for (const a of answers.filter((x) => !x.ok)) {
      expect(a).toMatchObject({ ok: false, refused: 0 });
      if (!a.ok) expect(a.retryAfterMs).toBeGreaterThan(0);
    }
    expect(await store().used([{ key: k, windowMs: 3_600_000 }])).toEqual([200]);
  });

  it('reserves in several windows all or nothing', async () => {
    const wide = key('wide');
    const narrow = key('narrow');
    const windows = [
      { key: narrow, windowMs: 3_600_000, amount: 20, limit: 30 },
      { key: wide, windowMs: 3_600_000, amount: 20, limit: 1000 },
    ].sort((a, b) => (a.key < b.key ? -1 : 1));
    const answers = await Promise.all(Array.from({ length: 20 }, () => store().reserve(windows, [])));
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    const refusedAt = windows.findIndex((w) => w.key === narrow);
    for (const a of answers.filter((x) => !x.ok)) expect(a).toMatchObject({ refused: refusedAt });
    // The refused ones left nothing behind in the window that had room.
    expect(
      await store().used([
        { key: wide, windowMs: 3_600_000 },
        { key: narrow, windowMs: 3_600_000 },
      ]),
    ).toEqual([20, 20]);
  });

  it('corrects a reservation in its window, never below zero', async () => {
    const k = key('adjust');
    const r = await store().reserve([{ key: k, windowMs: 3_600_000, amount: 500, limit: 1000 }], []);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const windowStart = r.windowStarts[0] as number;
    expect(windowStart % 3_600_000).toBe(0);
    await store().adjust([{ key: k, windowMs: 3_600_000, windowStart, delta: -380 }]);
    expect(await store().used([{ key: k, windowMs: 3_600_000 }])).toEqual([120]);
    await store().adjust([{ key: k, windowMs: 3_600_000, windowStart, delta: -1000 }]);
    expect(await store().used([{ key: k, windowMs: 3_600_000 }])).toEqual([0]);
  });

  it('refuses until the window rolls, then admits again', async () => {
    const k = key('roll');
    const w = [{ key: k, windowMs: 1000, amount: 1, limit: 1 }];
    let first = await store().reserve(w, []);
    if (!first.ok) {
      await sleep(first.retryAfterMs);
      first = await store().reserve(w, []);
    }
    expect(first.ok).toBe(true);
    const refused = await store().reserve(w, []);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.retryAfterMs).toBeLessThanOrEqual(1000);
    await sleep(refused.retryAfterMs + 20);
    expect((await store().reserve(w, [])).ok).toBe(true);
  });

  it('refuses everyone while a cooldown runs, and keeps the later end', async () => {
    const cd = key('cooldown');
    const w = [{ key: key('w'), windowMs: 3_600_000, amount: 1, limit: 100 }];
    await store().cooldown(cd, 600);
    await store().cooldown(cd, 100); // an earlier end does not shorten it
    const refused = await store().reserve(w, [cd]);
    expect(refused).toMatchObject({ ok: false, refused: -1 });
    if (!refused.ok) {
      expect(refused.retryAfterMs).toBeGreaterThan(300);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(600);
    }
    await sleep(650);
    expect((await store().reserve(w, [cd])).ok).toBe(true);
  });

  it('gives out exactly `limit` leases; a released or expired lease frees its slot', async () => {
    const k = key('sem');
    const holders = Array.from({ length: 10 }, (_, i) => `h${i}`);
    const got = await Promise.all(holders.map((h) => store().acquire(k, h, 3, 60_000)));
    expect(got.filter(Boolean)).toHaveLength(3);
    const holding = holders.filter((_, i) => got[i]);
    expect(await store().acquire(k, 'late', 3, 60_000)).toBe(false);
    await store().release(k, holding[0] as string);
    expect(await store().acquire(k, 'late', 3, 300)).toBe(true);
    expect(await store().acquire(k, 'later', 3, 60_000)).toBe(false);
    await sleep(400); // 'late' crashed: its lease ends
    expect(await store().acquire(k, 'later', 3, 60_000)).toBe(true);
  });
});
