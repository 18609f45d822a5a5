import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { MemloomError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';
import { freePort } from './support/process.js';

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
