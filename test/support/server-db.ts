import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { ensureTenants, migrate } from '../../src/db/migrator.js';
import { ROOT } from './process.js';

/**
 * The server-mode suite (`npm run test:server`, vitest.server.config.ts): the same test files as
 * the embedded suite, run against the local PostgreSQL 15 + pgvector with the queues on Redis or
 * on BullMQ's PostgreSQL backend. MEMLOOM_TEST_SERVER (`redis` | `postgres`) switches it on;
 * unset, every test runs embedded as before.
 *
 * Each memloom a test starts gets a fresh database copied from a template (migrations applied
 * once per run: `CREATE DATABASE x TEMPLATE t`), owned by a LOGIN role that is not a superuser,
 * as on a managed service; the app's pool switches to memloom_app (no BYPASSRLS, policies forced)
 * on every connection, as it does for any DATABASE_URL.
 */
export type ServerQueues = 'redis' | 'postgres';

export const SERVER_MODE: ServerQueues | undefined = parseMode(process.env.MEMLOOM_TEST_SERVER);

function parseMode(v: string | undefined): ServerQueues | undefined {
  if (v === undefined || v === '') return undefined;
  if (v === 'redis' || v === 'postgres') return v;
  throw new Error(`MEMLOOM_TEST_SERVER must be redis or postgres (or unset for embedded), not ${JSON.stringify(v)}`);
}

/** Superuser connection of the local server (trust auth): creates roles, databases, the extension. */
export const PG_SUPER_URL = process.env.TEST_PLAIN_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
/** The databases' owner: LOGIN, no superuser, no BYPASSRLS; a member of memloom_app so it may SET ROLE to it. */
export const OWNER_ROLE = 'memloom_test_owner';

/** The queue backends a file that tests both should run: both embedded, the suite's one on a server. */
export const QUEUE_BACKENDS: ReadonlyArray<{ redis: boolean }> = SERVER_MODE ? [{ redis: SERVER_MODE === 'redis' }] : [{ redis: false }, { redis: true }];

function urlOf(database: string, user: string): string {
  const u = new URL(PG_SUPER_URL);
  u.username = user;
  u.pathname = `/${database}`;
  return u.toString();
}

async function asSuper<T>(fn: (c: pg.Client) => Promise<T>, database = 'postgres'): Promise<T> {
  const c = new pg.Client({ connectionString: urlOf(database, new URL(PG_SUPER_URL).username || 'postgres') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** pgvector on the server (built by scripts/install-pgvector.sh when missing), the owner role, memloom_app. */
async function prepareServer(): Promise<void> {
  await asSuper(async (c) => {
    const { rows } = await c.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    if (rows.length === 0) {
      const r = spawnSync('bash', [path.join(ROOT, 'scripts/install-pgvector.sh')], { stdio: 'inherit' });
      if (r.status !== 0) throw new Error('pgvector is not installed and scripts/install-pgvector.sh failed');
    }
    // Roles are cluster-wide and other runs create them too: tolerate a concurrent creator.
    await c.query(`DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'memloom_app') THEN CREATE ROLE memloom_app NOLOGIN NOSUPERUSER NOBYPASSRLS; END IF;
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${OWNER_ROLE}') THEN CREATE ROLE ${OWNER_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE; END IF;
      EXCEPTION WHEN unique_violation OR duplicate_object THEN NULL; END $$`);
    await c.query(`GRANT memloom_app TO ${OWNER_ROLE}`);
  });
}

/**
 * Creates the run's template: a database owned by OWNER_ROLE with the vector extension (created by
 * the superuser: pgvector is not a trusted extension) and every migration applied by the owner.
 */
export async function createTemplate(): Promise<string> {
  await prepareServer();
  await dropStaleTemplates();
  // The creation time (seconds, base 36) in the name lets a later run drop what a killed run left.
  const name = `memloom_tpl_${Math.floor(Date.now() / 1000).toString(36)}_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
  await asSuper((c) => c.query(`CREATE DATABASE ${name} OWNER ${OWNER_ROLE}`));
  await asSuper((c) => c.query('CREATE EXTENSION vector'), name);
  const owner = new pg.Client({ connectionString: urlOf(name, OWNER_ROLE) });
  await owner.connect();
  try {
    await migrate(owner, createLogger({ LOG_LEVEL: 'silent', PRETTY_LOGS: false }, process.stderr));
    await ensureTenants(owner, []);
  } finally {
    await owner.end();
  }
  return name;
}

/** Runs killed before their teardown leave databases behind: those of templates over 6 hours old go. */
const STALE_AFTER_S = 6 * 3600;
async function dropStaleTemplates(): Promise<void> {
  const { rows } = await asSuper((c) => c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'memloom\\_tpl\\_%'`));
  const now = Date.now() / 1000;
  const stale = new Set<string>();
  for (const { datname } of rows) {
    const m = /^memloom_tpl_([0-9a-z]+)_[0-9a-f]{8}/.exec(datname);
    if (m?.[1] && now - Number.parseInt(m[1], 36) > STALE_AFTER_S) stale.add(datname.slice(0, m[0].length));
  }
  for (const template of stale) await dropTemplate(template);
}

/** Drops the template and every database copied from it (also those a crashed test file left). */
export async function dropTemplate(template: string): Promise<void> {
  await asSuper(async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`, [template, `${template}\\_%`]);
    for (const r of rows) await c.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
  });
}

export interface ServerDatabase {
  name: string;
  /** Connects as OWNER_ROLE (not a superuser). */
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh migrated database for one memloom (or several processes sharing it). Copied from the
 * run's template when the server config provided one; otherwise (a file run on its own with
 * MEMLOOM_TEST_SERVER set) an empty database the app migrates at startup.
 */
export async function createServerDatabase(): Promise<ServerDatabase> {
  let template: string | undefined;
  try {
    template = inject('memloomServerTemplate' as never) as string | undefined;
  } catch {
    template = undefined; // not inside a vitest worker
  }
  const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
  let name: string;
  if (template) {
    name = `${template}_${suffix}`;
    await asSuper((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template} OWNER ${OWNER_ROLE}`));
  } else {
    await prepareServer();
    name = `memloom_srv_${suffix}`;
    await asSuper((c) => c.query(`CREATE DATABASE ${name} OWNER ${OWNER_ROLE}`));
    await asSuper((c) => c.query('CREATE EXTENSION vector'), name);
  }
  return {
    name,
    url: urlOf(name, OWNER_ROLE),
    drop: () => asSuper((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
