import { randomUUID } from 'node:crypto';
import type { Db } from '../db/pool.js';
import { insertedEvents, insertEventsStatement, runInOneTransaction, setTenantStatement, type EventRow, type InsertedEvent } from '../db/sql/insert-events.js';
import { withSpeaker } from '../domain/speaker.js';
import { contentHash } from '../domain/text.js';
import type { InputIssue } from '../errors.js';
import { translateError } from '../errors-translate.js';
import { storableTtl } from '../input.js';
import { validateEvents, type EventInput } from './schema.js';

export type EventSource = 'http' | 'file' | 'client' | 'feedback' | 'cli';

export interface IngestResult {
  accepted: number;
  duplicates: number;
  /** In request order: the stored event's id (also for duplicates), null for rejected items. */
  ids: Array<string | null>;
  issues: InputIssue[];
  tooLarge: number[];
  /** Ids of events this call inserted, to hand to the queue after the commit. */
  newIds: string[];
}

export interface IngestOptions {
  source: EventSource;
  /** Idempotency key for items without `id` (file lines: sha256(path + line number + line)). Default: random, no dedup. */
  deriveKey?: (index: number) => string;
  sourceRef?: (index: number) => string | undefined;
  /** Group commit shared by concurrent callers (the API has one); default: a write of this call's own. */
  writer?: EventWriter;
}

export function toEventRow(event: EventInput, key: string, source: EventSource, sourceRef: string | undefined): EventRow {
  return {
    idem_key: key,
    dataset: event.dataset,
    user_id: event.user_id ?? null,
    agent_id: event.agent_id ?? null,
    session_id: event.session_id ?? null,
    type: event.type,
    role: event.role ?? null,
    content: event.content,
    content_hash: contentHash(event.content),
    occurred_at: event.occurred_at ?? null,
    importance: event.importance ?? null,
    // A TTL whose expiry would pass the stored range means "never" (storableTtl).
    ttl: storableTtl(event.ttl, event.occurred_at ? Date.parse(event.occurred_at) : Date.now()),
    // A `Name: ` prefix names the speaker when the metadata does not (src/domain/speaker.ts).
    metadata: withSpeaker(event.type, event.content, event.metadata ?? {}, event.role),
    source,
    source_ref: sourceRef ?? null,
  };
}

/**
 * Validates and durably stores events for one tenant. Returns only after the commit; the caller
 * hands `newIds` to the dispatcher afterwards. A client `id` is the idempotency key (per tenant):
 * the same key twice stores one event and counts as a duplicate.
 */
export async function ingestEvents(db: Db, tenantId: string, items: unknown[], opts: IngestOptions): Promise<IngestResult> {
  const { valid, issues, tooLarge } = validateEvents(items);
  const ids: Array<string | null> = items.map(() => null);
  const rows: EventRow[] = [];
  const firstIndexOfKey = new Map<string, number>();
  const sameKeyAs: Array<[number, string]> = [];
  for (const { index, event } of valid) {
    const key = event.id ?? opts.deriveKey?.(index) ?? `auto-${randomUUID()}`;
    if (firstIndexOfKey.has(key)) {
      sameKeyAs.push([index, key]);
      continue;
    }
    firstIndexOfKey.set(key, index);
    rows.push(toEventRow(event, key, opts.source, opts.sourceRef?.(index)));
  }
  const stored = rows.length > 0 ? await (opts.writer ?? new EventWriter(db)).write(tenantId, rows) : [];
  let accepted = 0;
  let duplicates = sameKeyAs.length;
  const newIds: string[] = [];
  const idOfKey = new Map<string, string>();
  for (const s of stored) {
    idOfKey.set(s.idem_key, s.id);
    ids[firstIndexOfKey.get(s.idem_key) as number] = s.id;
    if (s.inserted) {
      accepted++;
      newIds.push(s.id);
    } else duplicates++;
  }
  for (const [index, key] of sameKeyAs) ids[index] = idOfKey.get(key) ?? null;
  return { accepted, duplicates, ids, issues, tooLarge, newIds };
}

interface Pending {
  tenantId: string;
  rows: EventRow[];
  resolve: (stored: InsertedEvent[]) => void;
  reject: (err: unknown) => void;
}

/** Rows per shared write; a request bigger than this still goes in one piece, alone. */
const GROUP_ROWS = 2_000;

export interface EventWriterOptions {
  /**
   * Group commits in flight at once. 1 (the default) where the database has one session (PGlite:
   * a second write would only queue behind the first, and a bigger group costs less than two);
   * more on a server, whose pool runs them on separate connections at the same time.
   */
  inFlight?: number;
}

/**
 * Group commit. PGlite runs one statement at a time on the thread that also serves HTTP, so what
 * limits ingestion is the number of round trips, not their size: requests that arrive while a
 * write is in flight are written together by the next one, in a single message that is a single
 * transaction (per tenant: set_config + INSERT). Each caller still gets its answer only after that
 * commit. If a shared write fails for a reason other than the database being unavailable, each
 * request is written again on its own, so one request's bad data fails only that request. On a
 * server up to `inFlight` writes run at once; a write PostgreSQL aborts as a deadlock victim is written again.
 */
export class EventWriter {
  readonly #db: Db;
  readonly #max: number;
  #queue: Pending[] = [];
  #running = 0;
  #peak = 0;

  constructor(db: Db, opts: EventWriterOptions = {}) {
    this.#db = db;
    this.#max = Math.max(1, opts.inFlight ?? 1);
  }

  /** The most group commits this writer has had in flight at once. */
  get peakInFlight(): number {
    return this.#peak;
  }

  write(tenantId: string, rows: EventRow[]): Promise<InsertedEvent[]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ tenantId, rows, resolve, reject });
      this.#pump();
    });
  }

  /** Starts writes while a slot is free: each takes what has queued, up to GROUP_ROWS. */
  #pump(): void {
    while (this.#running < this.#max && this.#queue.length > 0) {
      let size = 0;
      let n = 0;
      while (n < this.#queue.length && (n === 0 || size + (this.#queue[n] as Pending).rows.length <= GROUP_ROWS))
        size += (this.#queue[n++] as Pending).rows.length;
      const group = this.#queue.splice(0, n);
      this.#running++;
      this.#peak = Math.max(this.#peak, this.#running);
      void this.#commit(group)
        .catch((err: unknown) => {
          for (const p of group) p.reject(err);
        })
        .finally(() => {
          this.#running--;
          this.#pump();
        });
    }
  }

  async #commit(group: Pending[]): Promise<void> {
    try {
      const results = await writeGroupRetryingDeadlocks(this.#db, group);
      group.forEach((p, i) => p.resolve(results[i] as InsertedEvent[]));
    } catch (err) {
      if (group.length === 1 || translateError(err).kind === 'unavailable') {
        for (const p of group) p.reject(err);
        return;
      }
      for (const p of group) await writeGroupRetryingDeadlocks(this.#db, [p]).then(([stored]) => p.resolve(stored as InsertedEvent[]), p.reject);
    }
  }
}

/** Attempts at a write that PostgreSQL chose as a deadlock's victim. */
const DEADLOCK_ATTEMPTS = 5;
/** Upper bound of the random pause before attempt n (× n): two victims that retried at once would meet again. */
const DEADLOCK_JITTER_MS = 20;

/**
 * On a server, two writers (API processes, the watcher, this writer's parallel group commits)
 * inserting the same keys in different orders deadlock; PostgreSQL aborts one. Written again, the
 * victim finds the other's rows committed and counts them as duplicates, after a short random
 * pause (the other writer's next group may hold the same keys: in a CI run of 2026-12-07, under
 * load, a victim retried at once deadlocked on all three attempts). Rows are not sorted by
 * key instead: their order is the request's, which `seq` records and the pipeline follows.
 */
async function writeGroupRetryingDeadlocks(db: Db, group: Pending[]): Promise<InsertedEvent[][]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeGroup(db, group);
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt >= DEADLOCK_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * DEADLOCK_JITTER_MS * attempt));
    }
  }
}

/** Writes a group in one transaction; per request, the stored events in row order. */
async function writeGroup(db: Db, group: Pending[]): Promise<InsertedEvent[][]> {
  const byTenant = new Map<string, Map<string, EventRow>>();
  for (const p of group) {
    const rows = byTenant.get(p.tenantId) ?? new Map<string, EventRow>();
    for (const r of p.rows) if (!rows.has(r.idem_key)) rows.set(r.idem_key, r); // first request with a key wins
    byTenant.set(p.tenantId, rows);
  }
  const tenants = [...byTenant].map(([tenantId, rows]) => ({ tenantId, rows: [...rows.values()] }));
  const results = await runInOneTransaction(
    db,
    tenants.flatMap((t) => [setTenantStatement(t.tenantId), insertEventsStatement(t.rows)]),
  );
  const stored = new Map<string, Map<string, InsertedEvent>>();
  for (const [i, t] of tenants.entries()) {
    const events = await insertedEvents(db, t.tenantId, t.rows, results[2 * i + 1]);
    stored.set(t.tenantId, new Map(events.map((e) => [e.idem_key, e])));
  }
  // a key inserted for an earlier request of the group is a duplicate for the later ones
  const claimed = new Set<string>();
  return group.map((p) =>
    p.rows.map((r) => {
      const s = stored.get(p.tenantId)?.get(r.idem_key) as InsertedEvent;
      const key = `${p.tenantId}\n${r.idem_key}`;
      if (!s.inserted || claimed.has(key)) return { ...s, inserted: false };
      claimed.add(key);
      return s;
    }),
  );
}
