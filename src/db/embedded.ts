import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { Logger } from '../logger.js';
import { SessionQueue } from './pglite-session-queue.js';

export interface EmbeddedDatabase {
  /** postgresql:// URL of the loopback socket server. */
  url: string;
  port: number;
  db: PGlite;
  /** Switch the single PGlite session to the application role (after migrations). */
  dropPrivileges(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * PGlite (PostgreSQL in WASM) with pgvector, served on a loopback port so Prisma, `pg` and BullMQ
 * connect to it like to any server. PGlite has ONE session shared by every connection: session
 * settings (search_path, role) made here apply to all of them, and a transaction open on one
 * connection holds every other until it ends — so never wait on another connection inside one.
 */
export async function startEmbeddedDatabase(opts: { home: string; port: number; log: Logger; inMemory?: boolean }): Promise<EmbeddedDatabase> {
  let dataDir = 'memory://';
  if (!opts.inMemory) {
    dataDir = path.resolve(opts.home, 'pgdata');
    await mkdir(dataDir, { recursive: true });
  }
  const db = await PGlite.create({ dataDir, extensions: { vector } });
  // BullMQ's PostgreSQL backend pins search_path with a startup option, which PGlite ignores;
  // its objects live in schema "bullmq" with singular names that do not clash with ours (plural).
  await db.exec('SET search_path TO public, bullmq');
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: opts.port, maxConnections: 1000 });
  // Connections must take turns per protocol exchange, not per message (see SessionQueue).
  (server as unknown as { queryQueue: SessionQueue }).queryQueue = new SessionQueue(db);
  await server.start();
  const address = server.getServerConn();
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  opts.log.info({ port, dataDir: opts.inMemory ? 'memory' : dataDir }, 'embedded database listening');
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    db,
    async dropPrivileges() {
      await db.exec(`GRANT CREATE ON DATABASE postgres TO memloom_app; SET ROLE memloom_app`);
    },
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
