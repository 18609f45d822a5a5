import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { createLogger } from '../src/logger.js';
import { MemloomError } from '../src/errors.js';

// The PostgreSQL 15 on this machine (and CI) has no pgvector: exactly the server memloom must refuse.
const PLAIN_POSTGRES = process.env.TEST_PLAIN_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

async function reachable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    const { rowCount } = await c.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    return rowCount === 0;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

describe('server mode without pgvector', () => {
  it('fails fast naming pgvector and the fix, creating nothing', async (ctx) => {
    if (!(await reachable(PLAIN_POSTGRES))) {
      // Reported, not silent: this machine kind starts PostgreSQL 15 without pgvector before every session and CI run.
      ctx.skip('no PostgreSQL without pgvector at ' + PLAIN_POSTGRES);
    }
    const config = loadConfig({ DATABASE_URL: PLAIN_POSTGRES, LOG_LEVEL: 'silent' });
    const err = await createDeps(config, createLogger(config, process.stderr)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MemloomError);
    expect((err as MemloomError).code).toBe('PGVECTOR_MISSING');
    expect((err as Error).message).toMatch(/pgvector/);
    expect((err as Error).message).toMatch(/unset DATABASE_URL|pgvector\/pgvector/);
    const c = new pg.Client({ connectionString: PLAIN_POSTGRES });
    await c.connect();
    const { rowCount } = await c.query(`SELECT 1 FROM information_schema.tables WHERE table_name IN ('memloom_migrations', 'events')`);
    await c.end();
    expect(rowCount).toBe(0);
  });
});
