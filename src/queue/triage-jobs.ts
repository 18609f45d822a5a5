import { idsHash } from '../domain/ids.js';

/** Events triaged by one job: the dispatcher queues one job per flush and tenant, in slices of this size. */
export const TRIAGE_BATCH = 500;

/** A triage job's payload: the events of one flush. */
export interface TriagePayload {
  tenantId: string;
  eventIds: string[];
}

/**
 * The job id: the same events of the same tenant give the same id, so the dispatcher and the
 * requeue task re-adding a batch that still exists create no second job. Correctness does not rest
 * on it: triage claims only `received` events, so overlapping jobs triage each event once.
 */
export function triageJobId(p: TriagePayload): string {
  return `triage-${p.tenantId}-${idsHash(p.eventIds)}`;
}

/** Jobs (id and payload) that triage `eventIds`, TRIAGE_BATCH events each. */
export function triageJobs(tenantId: string, eventIds: string[]): Array<{ jobId: string; data: TriagePayload }> {
  const jobs: Array<{ jobId: string; data: TriagePayload }> = [];
  for (let i = 0; i < eventIds.length; i += TRIAGE_BATCH) {
    const data = { tenantId, eventIds: eventIds.slice(i, i + TRIAGE_BATCH) };
    jobs.push({ jobId: triageJobId(data), data });
  }
  return jobs;
}
