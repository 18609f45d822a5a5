import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { createLogger } from '../src/logger.js';
import { MemloomError } from '../src/errors.js';
import { spawnMemloom } from './support/process.js';
import { createScratchDatabase } from './support/server-mode.js';

// A PostgreSQL 15 without pgvector (a new machine of this kind, and CI) is exactly the server memloom must
// refuse; once pgvector is installed (scripts/install-pgvector.sh) the first test reports itself skipped.
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

describe('server mode where the role may not create the extension', () => {
  it('stops with one line naming pgvector and the fix, creating nothing (not even memloom_migrations)', async () => {
    const db = await createScratchDatabase('memloom_nopriv');
    const role = `${db.name}_r`;
    const admin = new pg.Client({ connectionString: PLAIN_POSTGRES });
    await admin.connect();
    try {
      // A plain role that owns its database (it may create tables there), as on many hosted servers.
      await admin.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEROLE`);
      await admin.query(`ALTER DATABASE ${db.name} OWNER TO ${role}`);
      const url = new URL(db.url);
      url.username = role;
      const config = loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' });
      const err = await createDeps(config, createLogger(config, process.stderr)).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(MemloomError);
      expect((err as MemloomError).code).toBe('PGVECTOR_NOT_PERMITTED');
      expect((err as Error).message).toMatch(/pgvector/);
      expect((err as Error).message).toContain(`CREATE EXTENSION vector; in database "${db.name}"`);

      // The CLI prints that one line, no stack trace.
      const cli = spawnMemloom(['migrate'], { DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' });
      expect((await cli.exited).code).toBe(1);
      expect(cli.output().trim().split('\n')).toEqual([`memloom migrate: ${(err as Error).message}`]);

      const inDb = new pg.Client({ connectionString: db.url });
      await inDb.connect();
      const tables = await inDb.query(`SELECT table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`);
      const ext = await inDb.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`);
      await inDb.end();
      expect(tables.rows).toEqual([]);
      expect(ext.rowCount).toBe(0);
    } finally {
      await db.drop();
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
      await admin.end();
    }
  }, 300_000);
});
