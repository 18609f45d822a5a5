import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, withTenant, type Db } from '../src/db/pool.js';
import { claimReceived } from '../src/db/sql/triage.js';
import { EventWriter, ingestEvents } from '../src/events/ingest.js';
import { startTestMemloom, type TestMemloom, waitFor } from './support/memloom.js';
import { createServerDatabase, PG_SUPER_URL, SERVER_MODE, type ServerDatabase } from './support/server-db.js';

/**
 * Event writes on a PostgreSQL server, where (unlike PGlite's one session) transactions really run
 * at the same time: several API processes, the watcher, and one API's writer with more than one
 * group commit in flight. Always on the local server (its own database outside npm run test:server).
 */
let m: TestMemloom;
let own: ServerDatabase | undefined;
const pools: Db[] = [];

beforeAll(async () => {
  own = SERVER_MODE ? undefined : await createServerDatabase();
  m = await startTestMemloom({ roles: { api: false, workers: [] }, env: own ? { DATABASE_URL: own.url } : {} });
}, 120_000);
afterAll(async () => {
  for (const p of pools) await p.end();
  await m?.close();
  await own?.drop();
});

const batch = (keys: string[]) => keys.map((id) => ({ id, session_id: 'w', role: 'user', content: `event ${id}` }));

describe('event writes on a PostgreSQL server', () => {
  it('writers of separate processes with the same keys in opposite orders both succeed (a deadlock victim is written again), and each key is inserted once', async () => {
    // Two pools as two API processes; batches of the same keys, one in reverse: each can hold a
    // key the other waits for, and PostgreSQL aborts one ('deadlock detected').
    const a = createPool(m.deps.dbUrl, { setRole: true, max: 2 });
    const b = createPool(m.deps.dbUrl, { setRole: true, max: 2 });
    pools.push(a, b);
    for (let round = 0; round < 5; round++) {
      const keys = Array.from({ length: 1000 }, (_, i) => `r${round}-k${String(i).padStart(4, '0')}`);
      const [ra, rb] = await Promise.all([
        ingestEvents(a, 'default', batch(keys), { source: 'http', writer: new EventWriter(a) }),
        ingestEvents(b, 'default', batch([...keys].reverse()), { source: 'http', writer: new EventWriter(b) }),
      ]);
      expect(ra.accepted + rb.accepted).toBe(keys.length);
      expect(ra.duplicates + rb.duplicates).toBe(keys.length);
      expect(new Set([...ra.ids, ...rb.ids]).size).toBe(keys.length);
    }
    const stored = await withTenant(
      m.deps.db,
      'default',
      async (tx) => (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE idem_key LIKE 'r%'`)).rows[0]?.n,
    );
    expect(stored).toBe(5 * 1000);
  });

  it('one writer keeps several group commits in flight on a server, each request answered after its own commit', async () => {
    const writer = new EventWriter(m.deps.db, { inFlight: 4 });
    let peak = 0;
    const requests = Array.from({ length: 40 }, (_, r) => batch(Array.from({ length: 50 }, (_, i) => `p${r}-${i}`)));
    const results = await Promise.all(
      requests.map(async (events) => {
        const res = await ingestEvents(m.deps.db, 'default', events, { source: 'http', writer });
        peak = Math.max(peak, writer.peakInFlight);
        return res;
      }),
    );
    expect(results.every((r) => r.accepted === 50 && r.duplicates === 0)).toBe(true);
    expect(peak).toBeGreaterThan(1);
    const stored = await withTenant(
      m.deps.db,
      'default',
      async (tx) => (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE idem_key LIKE 'p%'`)).rows[0]?.n,
    );
    expect(stored).toBe(40 * 50);
  });

  it('triage waits for an event another transaction holds (the dispatcher marking it enqueued) and claims it once that commits', async () => {
    // Another process's worker may run the triage job while the dispatcher's mark still holds
    // the rows; a claim that skipped them left the events `received` until the requeue task.
    const a = createPool(m.deps.dbUrl, { setRole: true, max: 3 });
    pools.push(a);
    const [id] = (await ingestEvents(a, 'default', batch(['held-1']), { source: 'http', writer: new EventWriter(a) })).ids as string[];
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => {
      locked = r;
    });
    const holding = withTenant(a, 'default', async (tx) => {
      await tx.query('SELECT id FROM events WHERE id = $1 FOR UPDATE', [id]);
      locked();
      await released;
    });
    await isLocked;
    const claim = withTenant(a, 'default', (tx) => claimReceived(tx, [id as string]));
    // Seen from a superuser's session: pg_stat_activity hides other roles' queries.
    const watcher = new pg.Client({ connectionString: PG_SUPER_URL });
    await watcher.connect();
    try {
      await waitFor(
        async () => {
          const { rows } = await watcher.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%status = ''received''%FOR UPDATE%'`,
          );
          return (rows[0]?.n ?? 0) > 0 || undefined;
        },
        { what: 'the triage claim waiting for the held row', timeoutMs: 30_000 },
      );
    } finally {
      await watcher.end();
      release();
      await holding;
    }
    expect((await claim).map((r) => r.id)).toEqual([id]);
  });
});
