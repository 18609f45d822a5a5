import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import type { QueueName } from '../../src/queue/names.js';
import { startRoles, type Roles, type Running } from '../../apps/cli/commands/roles.js';
import { createServerDatabase, SERVER_MODE, type ServerDatabase } from './server-db.js';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestMemloom extends Running {
  /** Base URL of the API (when the api role runs). */
  url: string;
  config: Config;
  home: string;
  eventsDir: string;
  /** Stops memloom and removes its temporary directories. */
  close(): Promise<void>;
}

export interface TestOptions {
  /**
   * Run BullMQ on Redis (fresh key prefix) instead of the PostgreSQL backend. Default: the server
   * suite's backend (MEMLOOM_TEST_SERVER), else the PostgreSQL backend.
   */
  redis?: boolean;
  /** Extra environment-style configuration. */
  env?: Record<string, string>;
  roles?: Partial<Roles>;
  /** Reuse a MEMLOOM_HOME (restart tests); default: a fresh temporary directory. */
  home?: string;
  /** Keep the embedded database in memory (faster; default true unless `home` is given). */
  inMemory?: boolean;
}

/** Server suite: the database of each MEMLOOM_HOME, so a restart on the same home finds its data. */
const serverDatabases = new Map<string, ServerDatabase>();

/**
 * Starts a real memloom in this process: embedded PGlite (or, in the server suite, a fresh
 * database on the local PostgreSQL, see server-db.ts), real queues (PostgreSQL backend or Redis),
 * real HTTP on an ephemeral loopback port. Nothing of memloom is mocked.
 */
export async function startTestMemloom(opts: TestOptions = {}): Promise<TestMemloom> {
  const home = opts.home ?? (await mkdtemp(path.join(os.tmpdir(), 'memloom-home-')));
  const redis = opts.redis ?? SERVER_MODE === 'redis';
  // A test that brings its own DATABASE_URL keeps it; otherwise the server suite gives each home a database.
  let server: ServerDatabase | undefined;
  if (SERVER_MODE && opts.env?.DATABASE_URL === undefined) {
    server = serverDatabases.get(home) ?? (await createServerDatabase());
    serverDatabases.set(home, server);
  }
  const eventsDir = opts.env?.EVENTS_DIR ?? path.join(home, 'events');
  const config = loadConfig({
    PORT: '0',
    MEMLOOM_HOME: home,
    EVENTS_DIR: eventsDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    EXTRACT_DEBOUNCE_MS: '200',
    REQUEUE_INTERVAL_MS: '1000',
    ...(redis ? { REDIS_URL } : {}),
    ...(server ? { DATABASE_URL: server.url } : {}),
    ...opts.env,
  });
  const log = createLogger(config, process.stderr);
  const roles: Roles = { api: true, watcher: false, workers: [] as QueueName[], scheduler: false, ...opts.roles };
  let running: Running;
  try {
    running = await startRoles(config, log, roles, { inMemory: opts.inMemory ?? opts.home === undefined, queuePrefix: `test-${randomUUID().slice(0, 8)}` });
  } catch (err) {
    if (server && opts.home === undefined) await dropServerDatabase(home);
    throw err;
  }
  const address = running.app?.server.address();
  const url = address && typeof address === 'object' ? `http://127.0.0.1:${address.port}` : '';
  return {
    ...running,
    url,
    config,
    home,
    eventsDir,
    async close() {
      await running.stop();
      // A home the test passed in may be started again: its database stays until the run's
      // template is dropped (server-global-setup.ts drops every copy).
      if (opts.home === undefined) {
        await rm(home, { recursive: true, force: true });
        await dropServerDatabase(home);
      }
    },
  };
}

async function dropServerDatabase(home: string): Promise<void> {
  const db = serverDatabases.get(home);
  serverDatabases.delete(home);
  await db?.drop();
}

/** Polls `fn` until it returns a truthy value (or throws after `timeoutMs`). Not a timing assertion. */
export async function waitFor<T>(fn: () => Promise<T> | T, opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what ?? 'condition'}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}
