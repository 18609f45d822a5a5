import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { MemloomError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';
import { freePort, spawnMemloom } from './support/process.js';
import { createScratchDatabase, PG_ADMIN_URL } from './support/server-mode.js';

/**
 * A PostgreSQL without pgvector: PGlite started without the extension, served on a port as any
 * server is. (The machine's PostgreSQL 15 has pgvector once scripts/install-pgvector.sh ran, and an
 * extension installed on a server is available in all its databases.)
 */
describe('server mode without pgvector', () => {
  let db: PGlite;
  let server: PGLiteSocketServer;
  let url: string;
  beforeAll(async () => {
    db = await PGlite.create();
    const port = await freePort();
    server = new PGLiteSocketServer({ db, host: '127.0.0.1', port });
    await server.start();
    url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  });
  afterAll(async () => {
    await server?.stop();
    await db?.close();
  });

  it('fails fast naming pgvector and the fix, creating nothing', async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const available = await c.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    await c.end();
    expect(available.rowCount).toBe(0);

    const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' });
    const err = await createDeps(config, createLogger(config, process.stderr)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MemloomError);
    expect((err as MemloomError).code).toBe('PGVECTOR_MISSING');
    expect((err as Error).message).toMatch(/pgvector/);
    expect((err as Error).message).toMatch(/unset DATABASE_URL|pgvector\/pgvector/);
    const after = new pg.Client({ connectionString: url });
    await after.connect();
    const { rowCount } = await after.query(`SELECT 1 FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`);
    await after.end();
    expect(rowCount).toBe(0);
  });
});

describe('server mode where the role may not create the extension', () => {
  it('stops with one line naming pgvector and the fix, creating nothing (not even memloom_migrations)', async () => {
    const db = await createScratchDatabase('memloom_nopriv');
    const role = `${db.name}_r`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      // A plain role that owns its database (it may create tables there), as on many hosted servers.
      await admin.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEROLE`);
      await admin.query(`ALTER DATABASE ${db.name} OWNER TO ${role}`);
      const url = new URL(db.url);
      url.username = role;
      const config = loadConfig({ DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' });
      const err = await createDeps(config, createLogger(config, process.stderr)).then(
        () => undefined,
        (e: unknown) => e,
      );
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
