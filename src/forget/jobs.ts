import type { Deps } from '../deps.js';
import { EVENT_QUEUES } from '../queue/flow.js';

/** The states a job waits in (EVENT_QUEUES: the queues whose payloads name events or an extraction key). */
const WAITING_STATES = ['waiting', 'delayed', 'prioritized'] as const;
/** Jobs looked at per queue: removal only saves work, so a deep backlog is not scanned to the end. */
const SCAN_LIMIT = 1000;

export interface ForgottenWork {
  tenantId: string;
  eventIds: Set<string>;
  /** Extraction keys with no event left. */
  deadKeys: Set<string>;
}

/**
 * Removes waiting and delayed pipeline jobs that refer only to forgotten events. Call after the
 * forget committed, never inside its transaction (PGlite has one session). This only saves work:
 * correctness does not depend on it, because every stage acts on stored rows only (triage claims
 * `received` events, chunk and embed select the listed events' rows, extract loads events by key,
 * provenance and chunks reference events by foreign key), so a job that runs anyway, or was
 * already active, finds nothing and writes nothing.
 */
export async function removeQueuedJobs(deps: Deps, work: ForgottenWork): Promise<number> {
  let removed = 0;
  for (const name of EVENT_QUEUES) {
    const jobs = await deps.queues.get(name).getJobs([...WAITING_STATES], 0, SCAN_LIMIT - 1);
    for (const job of jobs) {
      if (!job || !refersOnlyToForgotten(job.data, work)) continue;
      try {
        await job.remove();
        removed++;
      } catch (err) {
        // Taken by a worker meanwhile (locked): it will find no event and do nothing.
        deps.log.debug({ err, queue: name, jobId: job.id }, 'forgotten job not removed');
      }
    }
  }
  return removed;
}

export function refersOnlyToForgotten(data: unknown, work: ForgottenWork): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as { tenantId?: unknown; eventIds?: unknown; extractKey?: unknown };
  if (d.tenantId !== work.tenantId) return false;
  if (Array.isArray(d.eventIds)) return d.eventIds.length > 0 && d.eventIds.every((id) => typeof id === 'string' && work.eventIds.has(id));
  if (typeof d.extractKey === 'string') return work.deadKeys.has(d.extractKey);
  return false;
}
