import { execFile } from 'node:child_process';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import type { EventLoopUtilization } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Duplex } from 'node:stream';
import { promisify } from 'node:util';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js';
import { inProcessSocketPair } from './in-process-socket.js';
import type { SessionHoldStats } from './pglite-session-queue.js';
import type { ThreadMemory } from './pglite-thread-serve.js';
import { PGliteThread } from './pglite-thread.js';
import { extractTemplate, PGDATA_TEMPLATE, templateMismatch } from './pgdata-template.js';
import { serveConnection } from './session-connection.js';

export interface EmbeddedDatabase {
  /** postgresql:// URL of the loopback socket server. */
  url: string;
  port: number;
  /**
   * The session itself, outside the session queue: for tools that bulk-load as the database's
   * owner (a benchmark). Whatever it sets on the session (a role) applies to every connection.
   */
  owner: Pick<PGliteThread, 'exec' | 'query'>;
  /**
   * A new connection to the database without the loopback socket, for `pg`'s `stream` option:
   * this process's pools use it (no kernel round trip, and one trip into PGlite per statement
   * instead of one per protocol message: session-connection.ts); other processes (the CLI, tools)
   * use `url`.
   */
  connect(): Duplex;
  /** Switch the single PGlite session to the application role (after migrations). */
  dropPrivileges(): Promise<void>;
  /** How long connections held the single session, and waited for it (pglite-session-queue.ts). */
  sessionStats(opts?: { reset?: boolean }): Promise<SessionHoldStats>;
  /** How busy PGlite's thread has been, as `performance.eventLoopUtilization` (benchmarks). */
  utilization(since?: EventLoopUtilization): EventLoopUtilization;
  /** What PGlite's thread holds: its WebAssembly memory and V8 heap, in bytes (benchmarks). */
  memory(): Promise<ThreadMemory>;
  /** The data directory as a gzip'd tarball (the template of new databases: pgdata-template.ts). */
  dumpDataDir(): Promise<Uint8Array>;
  /** Records this process's API URL in the data directory's lock (data-dir-lock.ts), for CLI commands. */
  advertise(url: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * PGlite (PostgreSQL in WASM) with pgvector, in a thread of its own (pglite-thread.ts), served on
 * a loopback port so `pg` and BullMQ connect to it like to any server; this process's own pools
 * skip the socket (`connect()`, the same protocol through an in-process stream). PGlite has ONE
 * session shared by every connection: session
 * settings (search_path, role) made here apply to all of them, and a transaction open on one
 * connection holds every other until it ends — so never wait on another connection inside one.
 */
export async function startEmbeddedDatabase(opts: {
  home: string;
  port: number;
  log: Logger;
  inMemory?: boolean;
  /** shared_buffers, e.g. `32MB` (PGlite keeps them in its WASM heap). Default: PostgreSQL's 128MB. */
  sharedBuffers?: string;
  /** A new data directory starts as a copy of this template when it fits (pgdata-template.ts); else initdb. */
  template?: string;
}): Promise<EmbeddedDatabase> {
  if (opts.inMemory) return openDatabase('memory://', undefined, opts, () => undefined);
  const dataDir = path.resolve(opts.home, 'pgdata');
  await mkdir(opts.home, { recursive: true });
  // Before anything touches the files: a second process on a live database must never open it.
  const lock = await acquireDataDirLock(opts.home);
  try {
    // Present while a new data directory is created: a start stopped then (a kill) left a
    // directory that may hold PG_VERSION and not the rest, which would never open again.
    const creating = path.join(opts.home, 'pgdata.creating');
    if (await exists(creating)) {
      opts.log.warn({ dataDir }, 'the creation of the embedded database was interrupted; creating it again');
      await rm(dataDir, { recursive: true, force: true });
    }
    if (await exists(path.join(dataDir, 'PG_VERSION'))) return await openDatabase(dataDir, lock, opts, () => undefined);
    await writeFile(creating, '');
    const db = await openDatabase(dataDir, lock, opts, (open) => createDataDir(dataDir, open, opts.template, opts.log));
    await rm(creating, { force: true });
    return db;
  } catch (err) {
    await lock.release();
    throw err;
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

type OpenThread = () => Promise<PGliteThread>;

/**
 * A new data directory from the template, or by initdb when there is no usable template or it did
 * not extract or open (the directory made from it is removed first).
 */
async function createDataDir(dataDir: string, open: OpenThread, template: string | undefined, log: Logger): Promise<PGliteThread> {
  const unusable = template ? await templateMismatch(template) : 'none configured';
  if (template && !unusable) {
    let placed = false;
    try {
      await extractTemplate(template, dataDir);
      placed = true;
      const thread = await open();
      log.info({ dataDir, template }, 'created the embedded database from its template');
      return thread;
    } catch (err) {
      log.warn({ err, template }, 'the embedded database template did not load; running initdb');
      if (placed) await rm(dataDir, { recursive: true, force: true });
    }
  } else log.info({ reason: unusable }, 'no embedded database template used');
  await initDataDir(dataDir, log);
  return open();
}

async function openDatabase(
  dataDir: string,
  lock: DataDirLock | undefined,
  opts: { port: number; log: Logger; inMemory?: boolean; sharedBuffers?: string },
  /** Opens the thread on a new data directory (createDataDir), or undefined for an existing one. */
  create: (open: OpenThread) => Promise<PGliteThread> | undefined,
): Promise<EmbeddedDatabase> {
  // PGlite runs with fsync = off, so its files survive a crash of the process (every write has
  // reached the kernel) but not of the machine. Full-page images in the WAL protect against pages
  // torn by a machine crash only, which fsync = off does not survive anyway; they cost the first
  // write to each page after a checkpoint 8 kB of WAL, and made the first seconds of a fresh start
  // slow (chunk freshness at 50 events/s: p95 1.1-1.4 s with them, 0.4 s without).
  //
  // PGlite has no checkpointer: a checkpoint runs inside the statement whose WAL passes
  // max_wal_size. PostgreSQL's 1GB default let pgdata carry 1.5 GB of WAL for 3,000 small events;
  // 64MB keeps it near 100 MB, and each inline checkpoint has little to write (auto-analyze.ts
  // also checkpoints on a timer, which bounds the replay after a kill -9).
  const postgresqlconf = [
    'full_page_writes = off',
    "max_wal_size = '64MB'",
    "min_wal_size = '32MB'",
    // VACUUM's memory for dead row ids (default 64MB): PGlite's WASM heap keeps whatever it grew to.
    "maintenance_work_mem = '16MB'",
    ...(opts.sharedBuffers ? [`shared_buffers = '${opts.sharedBuffers}'`] : []),
  ];
  const open: OpenThread = () =>
    PGliteThread.open({
      dataDir,
      postgresqlconf,
      // BullMQ's PostgreSQL backend pins search_path with a startup option, which PGlite ignores;
      // its objects live in schema "bullmq" with singular names that do not clash with ours (plural).
      setup: 'SET search_path TO public, bullmq',
      onExit: (err) => opts.log.error({ err }, 'the embedded database stopped; memloom must be restarted'),
    });
  const db = await (create(open) ?? open());
  // Connections take turns per protocol exchange, not per message (see SessionQueue).
  const queue = db.queue;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setNoDelay(true);
    serveConnection(queue, socket);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, '127.0.0.1', () => resolve());
    });
  } catch (err) {
    await db.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  opts.log.info({ port, dataDir: opts.inMemory ? 'memory' : dataDir }, 'embedded database listening');
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    owner: db,
    connect() {
      const [client, server] = inProcessSocketPair();
      serveConnection(queue, server);
      return client;
    },
    async dropPrivileges() {
      // pg_maintain: ANALYZE and VACUUM, pg_checkpoint: CHECKPOINT, for the application role
      // (auto-analyze.ts), as PGlite has no autovacuum and no checkpointer.
      await db.exec(
        `GRANT CREATE ON DATABASE postgres TO memloom_app; GRANT pg_maintain TO memloom_app; GRANT pg_checkpoint TO memloom_app; SET ROLE memloom_app`,
      );
    },
    sessionStats: (o) => db.stats(o),
    utilization: (since) => db.utilization(since),
    memory: () => db.memory(),
    dumpDataDir: () => db.dumpDataDir(),
    async advertise(url) {
      await lock?.setUrl(url);
    },
    async stop() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
      await db.close();
      await lock?.release();
    },
  };
}

/** The embedded database of a memloom process with this configuration (createDeps; `memloom start` opens it early). */
export function openEmbeddedDatabase(config: Config, log: Logger, opts: { inMemory?: boolean } = {}): Promise<EmbeddedDatabase> {
  return startEmbeddedDatabase({
    home: config.MEMLOOM_HOME,
    port: config.MEMLOOM_DB_PORT,
    sharedBuffers: config.MEMLOOM_DB_SHARED_BUFFERS,
    log: log.child({ component: 'db' }),
    inMemory: opts.inMemory ?? false,
    template: PGDATA_TEMPLATE,
  });
}

const INITDB_SCRIPT = fileURLToPath(new URL('./initdb.mjs', import.meta.url));

/**
 * Runs initdb for a fresh data directory in a child process: the initdb WASM instance stays
 * resident (~200 MB) in the process that ran it, and memloom runs for days.
 */
async function initDataDir(dataDir: string, log: Logger): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  log.info({ dataDir }, 'initializing the embedded database');
  try {
    await promisify(execFile)(process.execPath, [INITDB_SCRIPT, dataDir], { timeout: 300_000 });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(`initializing the embedded database in ${dataDir} failed${stderr ? `: ${stderr}` : ''}`, { cause: err });
  }
}
