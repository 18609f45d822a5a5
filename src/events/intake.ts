import type { Dispatcher } from '../queue/dispatcher.js';
import { ingestEvents, type IngestOptions, type IngestResult } from './ingest.js';
import type { Db } from '../db/pool.js';

/** What intake needs of deps. */
export interface IntakeDeps {
  db: Db;
  dispatcher: Dispatcher;
}

/**
 * The one way events enter memloom: `store` writes them durably — in whatever transaction its
 * caller needs (the API's group commit, the watcher's line-and-offset transaction, the feedback
 * row's transaction) — and returns the ids it inserted; only after that commit are the new ones
 * handed to the triage queue. Duplicates are never handed on. If the hand-off fails (queue down,
 * crash right after the commit), the requeue task finds the stored events and enqueues them.
 */
export async function intake<T extends { newIds: readonly string[] }>(deps: IntakeDeps, tenantId: string, store: () => Promise<T>): Promise<T> {
  const stored = await store();
  deps.dispatcher.submit(tenantId, [...stored.newIds]);
  return stored;
}

/** Intake of events sent as JSON (HTTP, import): validation, idempotency keys, group commit, hand-off. */
export function acceptEvents(deps: IntakeDeps, tenantId: string, items: unknown[], opts: IngestOptions): Promise<IngestResult> {
  return intake(deps, tenantId, () => ingestEvents(deps.db, tenantId, items, opts));
}
