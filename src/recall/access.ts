import { withTenant, type Db } from '../db/pool.js';
import { recordAccess } from '../db/sql/recall-graph.js';
import type { Logger } from '../logger.js';

/** How long access counts gather before they are written (not ranking: a write batching interval). */
const ACCESS_FLUSH_MS = 1000;

/**
 * Access counts of returned memories, accumulated in memory and written once a second per tenant,
 * off the response path. A crash loses at most a second of access signals, never memory.
 */
export class AccessRecorder {
  readonly #db: Db;
  readonly #log: Logger;
  #pending = new Map<string, Map<string, number>>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;

  constructor(db: Db, log: Logger) {
    this.#db = db;
    this.#log = log;
  }

  record(tenantId: string, memoryIds: string[]): void {
    if (memoryIds.length === 0) return;
    const counts = this.#pending.get(tenantId) ?? new Map<string, number>();
    for (const id of memoryIds) counts.set(id, (counts.get(id) ?? 0) + 1);
    this.#pending.set(tenantId, counts);
    this.#timer ??= setTimeout(() => void this.flush(), ACCESS_FLUSH_MS);
  }

  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#writing;
    const batch = this.#pending;
    this.#pending = new Map();
    this.#writing = (async () => {
      for (const [tenantId, counts] of batch) {
        await withTenant(this.#db, tenantId, (tx) => recordAccess(tx, counts)).catch((err: unknown) => this.#log.warn({ err }, 'access signals not recorded'));
      }
    })();
    await this.#writing;
  }
}
