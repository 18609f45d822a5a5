/**
 * A fresh, empty database for migration tests: in-memory PGlite, or in the server suite a new
 * PostgreSQL 15 database owned by the suite's owner role (no superuser, row-level security
 * forced), as a deployment migrates. And a folder holding only the migrations before one, to
 * write data as an older version left it.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedDatabase } from '../../src/db/embedded.js';
import { MIGRATIONS_DIR } from '../../src/db/migrator.js';
import { createLogger } from '../../src/logger.js';
import { OWNER_ROLE, PG_SUPER_URL, SERVER_MODE } from './server-db.js';

export async function freshDatabase(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (!SERVER_MODE) {
    const db = await startEmbeddedDatabase({ home: '', port: 0, inMemory: true, log: createLogger({ LOG_LEVEL: 'silent', PRETTY_LOGS: false }) });
    return { url: db.url, stop: () => db.stop() };
  }
  const name = `memloom_mig_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
  const admin = new pg.Client({ connectionString: PG_SUPER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} OWNER ${OWNER_ROLE}`);
  await admin.end();
  const c = new pg.Client({ connectionString: PG_SUPER_URL.replace(/\/[^/]*$/, `/${name}`) });
  await c.connect();
  await c.query('CREATE EXTENSION vector');
  await c.end();
  const url = PG_SUPER_URL.replace(/\/\/[^@/]*@/, `//${OWNER_ROLE}@`).replace(/\/[^/]*$/, `/${name}`);
  return {
    url,
    stop: async () => {
      const a = new pg.Client({ connectionString: PG_SUPER_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

/** A temporary folder with every migration that sorts before `name` (the caller removes it). */
export async function migrationsBefore(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'memloom-mig-'));
  for (const m of await readdir(MIGRATIONS_DIR)) {
    if (m >= name) continue;
    await mkdir(path.join(dir, m));
    await copyFile(path.join(MIGRATIONS_DIR, m, 'migration.sql'), path.join(dir, m, 'migration.sql'));
  }
  return dir;
}
