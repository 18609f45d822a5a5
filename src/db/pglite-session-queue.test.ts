import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSocketPair } from './in-process-socket.js';
import { PGliteThread } from './pglite-thread.js';
import { runAsApi } from './priority.js';
import { serveConnection } from './session-connection.js';

let db: PGliteThread;
const clients: pg.Client[] = [];

async function client(): Promise<pg.Client> {
  const c = new pg.Client({
    user: 'postgres',
    database: 'postgres',
    stream: () => {
      const [mine, server] = inProcessSocketPair();
      serveConnection(db.queue, server);
      return mine;
    },
  } as pg.ClientConfig);
  await c.connect();
  clients.push(c);
  return c;
}

async function queued(n: number): Promise<void> {
  for (let i = 0; i < 1000 && (await db.queueLength()) < n; i++) await new Promise((r) => setTimeout(r, 5));
  expect(await db.queueLength()).toBe(n);
}

beforeAll(async () => {
  db = await PGliteThread.open({ dataDir: 'memory://', postgresqlconf: [] });
});
afterAll(async () => {
  for (const c of clients) await c.end().catch(() => undefined);
  await db.close();
});

describe('the embedded session queue', () => {
  it('gives the free session to a waiting API statement before background statements queued earlier', async () => {
    const [holder, background, api] = [await client(), await client(), await client()];
    await holder.query('BEGIN');
    const seq = (c: pg.Client) => c.query<{ n: string }>(`SELECT nextval('turns')::text AS n`).then((r) => Number(r.rows[0]!.n));
    await holder.query('CREATE TEMP SEQUENCE turns');
    // While the holder's transaction is open both wait: the background one first.
    const bg = seq(background);
    await queued(1);
    const ap = runAsApi(() => seq(api));
    await queued(2);
    await holder.query('COMMIT');
    const [bgTurn, apiTurn] = await Promise.all([bg, ap]);
    expect(apiTurn).toBeLessThan(bgTurn);

    const stats = await db.stats();
    expect(stats.turns.api).toBeGreaterThanOrEqual(1);
    expect(stats.turns.background).toBeGreaterThanOrEqual(2);
  });
});
