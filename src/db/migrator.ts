import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { MemloomError } from '../errors.js';
import type { Logger } from '../logger.js';
import { PACKAGE_ROOT } from '../package-root.js';

export const MIGRATIONS_DIR = path.join(PACKAGE_ROOT, 'prisma/migrations');
const LOCK_KEY = 727_001; // pg_advisory_lock key: one migrator at a time across all replicas

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/**
 * Fails fast, before anything is created, when the server cannot give us pgvector >= 0.5 (HNSW):
 * not installed on the server, too old, or installed but not creatable by this role (pgvector is
 * not a trusted extension: CREATE EXTENSION needs a superuser, or a managed service's admin role).
 * A database that lacks the extension gets it here, in a transaction of its own, so a role that
 * may not create it fails before the migrations table or anything else exists.
 */
export async function assertPgvector(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ default_version: string; installed_version: string | null }>(
    `SELECT default_version, installed_version FROM pg_available_extensions WHERE name = 'vector'`,
  );
  const row = rows[0];
  const fix =
    'Install pgvector >= 0.5 on that server (Debian/Ubuntu: apt install postgresql-<major>-pgvector; Docker: the pgvector/pgvector:0.8.0-pg15 image; managed: enable the "vector" extension), or unset DATABASE_URL to use the embedded database.';
  if (!row) {
    throw new MemloomError('PGVECTOR_MISSING', `The PostgreSQL server has no pgvector extension (needed for vector search). ${fix}`, {
      kind: 'unavailable',
      retryable: false,
    });
  }
  const version = row.installed_version ?? row.default_version;
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major === 0 && minor < 5) {
    throw new MemloomError('PGVECTOR_TOO_OLD', `pgvector ${version} is installed but memloom needs >= 0.5 for HNSW indexes. ${fix}`, {
      kind: 'unavailable',
      retryable: false,
      details: { version },
    });
  }
  if (row.installed_version !== null) return;
  await client.query('BEGIN');
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    if ((err as { code?: string }).code !== '42501') throw err; // insufficient_privilege
    const { rows: who } = await client.query<{ role: string; db: string }>('SELECT current_user AS role, current_database() AS db');
    const { role = '?', db = '?' } = who[0] ?? {};
    throw new MemloomError(
      'PGVECTOR_NOT_PERMITTED',
      `pgvector is installed on the server, but role "${role}" may not create the "vector" extension in database "${db}" (it needs a superuser). Fix: as a superuser run CREATE EXTENSION vector; in database "${db}" once (managed services: enable the "vector" extension), then start memloom again. Nothing was created.`,
      { kind: 'unavailable', retryable: false, details: { role, database: db } },
    );
  }
}

/**
 * Applies pending migrations in name order, each in its own transaction, under a session advisory
 * lock so concurrent starters wait instead of racing. An applied migration whose file changed is an
 * error: migrations are append-only.
 */
export async function migrate(client: pg.ClientBase, log?: Logger, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await readMigrations(dir);
  if (await isCurrent(client, migrations)) return [];
  await assertPgvector(client);
  await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS memloom_migrations (
      name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM memloom_migrations');
    const applied = new Map(rows.map((r) => [r.name, r.checksum]));
    const done: string[] = [];
    for (const m of migrations) {
      const checksum = applied.get(m.name);
      if (checksum !== undefined) {
        if (checksum !== m.checksum) {
          throw new MemloomError('MIGRATION_CHANGED', `Migration ${m.name} was changed after it was applied; add a new migration instead.`, {
            kind: 'internal',
            retryable: false,
          });
        }
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO memloom_migrations (name, checksum) VALUES ($1, $2)', [m.name, m.checksum]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
      log?.info({ migration: m.name }, 'migration applied');
      done.push(m.name);
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
  }
}

/**
 * Whether the database is already what `migrate` makes it, read in one statement without the
 * lock: pgvector >= 0.5 installed and every migration applied with its checksum. A start of a
 * current database (most starts) then costs one statement instead of five; pg_extension is read,
 * not pg_available_extensions, which reads every extension's control file (on PGlite, its
 * emulated file system). Anything else (a new database, a pending or changed migration) takes
 * the full path, which checks and says what is wrong.
 */
async function isCurrent(client: pg.ClientBase, migrations: Migration[]): Promise<boolean> {
  type State = { vector: string | null; applied: Array<[string, string]> | null };
  let row: State | undefined;
  try {
    const { rows } = await client.query<State>(`SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector,
       (SELECT json_agg(json_build_array(name, checksum)) FROM memloom_migrations) AS applied`);
    row = rows[0];
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return false; // no memloom_migrations yet
    throw err;
  }
  const [major = 0, minor = 0] = (row?.vector ?? '0.0').split('.').map(Number);
  if (major === 0 && minor < 5) return false;
  const applied = new Map(row?.applied ?? []);
  return migrations.every((m) => applied.get(m.name) === m.checksum);
}

/** Tenants named by API keys exist before any request of theirs arrives. */
export async function ensureTenants(client: pg.ClientBase, tenants: Iterable<string>): Promise<void> {
  const ids = [...new Set(['default', ...tenants])];
  await client.query('INSERT INTO tenants (id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [ids]);
}
