import { z } from 'zod';
import { TRIAGE_BATCH, triageJobId } from '../../src/queue/triage-jobs.js';

/** The events of one ingest flush, queued by src/queue/triage-jobs.ts. */
export const TriageInput = z.object({
  tenantId: z.string().min(1),
  eventIds: z.array(z.uuid()).min(1).max(TRIAGE_BATCH),
});
export type TriageInput = z.infer<typeof TriageInput>;

export const triageKey = (i: TriageInput): string => triageJobId(i);
