import { randomUUID } from 'node:crypto';
import { withTenant, type Db } from '../db/pool.js';
import { insertEvents, type EventRow } from '../db/sql/insert-events.js';
import { contentHash } from '../domain/text.js';
import type { InputIssue } from '../errors.js';
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
    ttl: event.ttl ?? null,
    metadata: event.metadata ?? {},
    source,
    source_ref: sourceRef ?? null,
  };
}

/**
 * Validates and durably stores events for one tenant, in one transaction. Returns only after the
 * commit; the caller hands `newIds` to the dispatcher afterwards. A client `id` is the idempotency
 * key (per tenant): the same key twice stores one event and counts as a duplicate.
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
  const stored = rows.length > 0 ? await withTenant(db, tenantId, (tx) => insertEvents(tx, rows)) : [];
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
