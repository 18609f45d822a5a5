import { z } from 'zod';
import { withTenant, type Db } from '../db/pool.js';
import { searchProgress } from '../db/sql/event-progress.js';

/** Longest wait a request may ask for: the answer stays bounded whatever the pipeline does. */
export const SEARCHABLE_WAIT_MAX_MS = 30_000;
export const SEARCHABLE_WAIT_DEFAULT_MS = 5_000;

/** The query string of POST /v1/events: `?wait=searchable[&timeout_ms=N]` (read your writes). */
export const EventsQuery = z
  .object({
    wait: z.enum(['searchable']).optional().describe('answer once the stored events are recallable as chunks, or at timeout_ms'),
    timeout_ms: z.coerce
      .number({ error: `an integer between 0 and ${SEARCHABLE_WAIT_MAX_MS}` })
      .int(`an integer between 0 and ${SEARCHABLE_WAIT_MAX_MS}`)
      .min(0, `an integer between 0 and ${SEARCHABLE_WAIT_MAX_MS}`)
      .max(SEARCHABLE_WAIT_MAX_MS, `an integer between 0 and ${SEARCHABLE_WAIT_MAX_MS}`)
      .default(SEARCHABLE_WAIT_DEFAULT_MS)
      .describe(`with wait: the longest wait in ms (default ${SEARCHABLE_WAIT_DEFAULT_MS}, at most ${SEARCHABLE_WAIT_MAX_MS})`),
  })
  .strict();

/** First poll soon (chunks are usually stored within tens of ms), then less often. */
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 200;

/**
 * Waits until every one of `ids` is recallable as chunks: past embedding (its chunks and their
 * vectors are stored: `embedded`, `extracting`, `done`) or skipped at triage (it has nothing to
 * find, and nothing of it is pending). Resolves true then; false at the deadline, as soon as one
 * has failed (a dead letter waits for a retry), or when `cancelled()` says the client went away.
 * Polls the events' statuses (workers/README.md) by primary key, at most every 200 ms.
 */
export async function waitSearchable(db: Db, tenantId: string, ids: readonly string[], timeoutMs: number, cancelled: () => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = FIRST_POLL_MS; ; pause = Math.min(MAX_POLL_MS, pause * 2)) {
    const { waiting, failed } = await withTenant(db, tenantId, (tx) => searchProgress(tx, ids));
    if (failed > 0) return false;
    if (waiting === 0) return true;
    const left = deadline - Date.now();
    if (left <= 0 || cancelled()) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
  }
}
