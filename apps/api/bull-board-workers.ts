import { hostname } from 'node:os';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { Queue, Worker } from 'bullmq';
import type { Db } from '../../src/db/pool.js';

/** A worker as Bull Board lists it. */
export interface BoardWorker {
  id: string;
  name: string | null;
  addr: string;
  age: number;
}

/** Where the board's adapters find the workers of a queue on BullMQ's PostgreSQL backend. */
export interface WorkerSources {
  /** This process's workers (embedded mode runs every stage in the API's process). */
  local: readonly Worker[];
  /** A PostgreSQL server (not PGlite): its sessions name the workers of every process (address and
   * age are visible for sessions of the same role; BullMQ connects as the app does). */
  server?: Db;
  startedAt: number;
}

/**
 * Bull Board reads a queue's workers from the connections its backend names: Redis's CLIENT LIST
 * does, but BullMQ's PostgreSQL backend answers with `application_name`s only, which the board
 * drops for lack of an address, so every queue showed "No workers". On a PostgreSQL server the
 * worker sessions are read from `pg_stat_activity` with their address and age; on the embedded
 * database every connection shares PGlite's one session, so the process lists its own workers
 * (the only ones there are: one process owns an embedded database).
 */
export class PostgresBackendAdapter extends BullMQAdapter {
  readonly #queueName: string;
  readonly #sources: WorkerSources;

  constructor(queue: Queue, sources: WorkerSources) {
    super(queue);
    this.#queueName = queue.name;
    this.#sources = sources;
  }

  override async getWorkers(): Promise<BoardWorker[]> {
    if (this.#sources.server) return serverWorkers(this.#sources.server, this.#queueName);
    const age = Math.round((Date.now() - this.#sources.startedAt) / 1000);
    return this.#sources.local
      .filter((w) => w.name === this.#queueName && w.isRunning())
      .map((_w, i) => ({ id: `${process.pid}-${i}`, name: `${hostname()} pid ${process.pid}`, addr: 'in-process', age }));
  }
}

/** Worker sessions of one queue (BullMQ names a worker's LISTEN connection `<queue>` or `<queue>:w:<name>`). */
async function serverWorkers(db: Db, queue: string): Promise<BoardWorker[]> {
  const { rows } = await db.query<{ pid: number; application_name: string; addr: string | null; age: number }>(
    `SELECT pid, application_name, host(client_addr) AS addr, coalesce(extract(epoch FROM now() - backend_start)::int, 0) AS age
       FROM pg_stat_activity
      WHERE datname = current_database() AND (application_name = $1 OR starts_with(application_name, $1 || ':w:'))
      ORDER BY backend_start`,
    [queue],
  );
  return rows.map((r) => {
    const at = r.application_name.indexOf(':w:');
    return { id: String(r.pid), name: at === -1 ? null : r.application_name.slice(at + 3), addr: r.addr ?? 'local socket', age: r.age };
  });
}
