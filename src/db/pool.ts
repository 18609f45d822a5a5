import type { Duplex } from 'node:stream';
import pg from 'pg';
import { MemloomError } from '../errors.js';

export type Db = pg.Pool;
export type Tx = pg.PoolClient;
/** Anything that can run a query: the pool (autocommit) or a client inside a transaction. */
export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

// bigint columns (seq, counts) come back as JS numbers: our counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * The application pool. Every connection runs as the non-superuser role memloom_app so row-level
 * security holds even for superuser DATABASE_URLs (embedded mode switches the one PGlite session
 * instead, see embedded.ts).
 */
export function createPool(url: string, opts: { max?: number; setRole: boolean; applicationName?: string; stream?: () => Duplex }): Db {
  const pool = new pg.Pool({
    connectionString: url,
    // Embedded mode: connections inside the process, without the loopback socket (embedded.ts).
    ...(opts.stream ? { stream: opts.stream } : {}),
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'memloom',
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    // Awaited by the pool before the connection is handed out, so no query runs before the role is set.
    ...(opts.setRole ? { onConnect: async (client: pg.PoolClient) => void (await client.query('SET ROLE memloom_app')) } : {}),
  } as pg.PoolConfig);
  // An idle client erroring (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Runs `fn` in a transaction scoped to one tenant: `app.tenant_id` is set with SET LOCAL semantics,
 * so row-level security sees exactly this tenant and the setting dies with the transaction.
 * Never await a provider call or another pool inside `fn` (PGlite has one session).
 */
export async function withTenant<T>(db: Db, tenantId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const client = await connect(db);
  // A connection dropping mid-transaction emits 'error' on the checked-out client; without a
  // listener that is an uncaught exception. The query in flight rejects anyway.
  let broken: Error | undefined;
  const onError = (err: Error) => (broken = err);
  client.on('error', onError);
  try {
    // One round trip (a simple query), not two: every pipeline step opens a few of these.
    await client.query(`BEGIN; SELECT set_config('app.tenant_id', ${client.escapeLiteral(tenantId)}, true)`);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

async function connect(db: Db): Promise<Tx> {
  try {
    return await db.connect();
  } catch (err) {
    throw new MemloomError('DATABASE_UNAVAILABLE', 'The database cannot be reached.', { kind: 'unavailable', cause: err });
  }
}

/** Lists tenant ids; the tenants table is global (no RLS), maintenance iterates it. */
export async function listTenants(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM tenants ORDER BY id');
  return rows.map((r) => r.id);
}
