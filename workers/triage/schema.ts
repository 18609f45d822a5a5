import { z } from 'zod';

/** One job per event; its id is the event id (the API and the reconciler use the same id). */
export const TriageInput = z.object({
  tenantId: z.string().min(1),
  eventId: z.uuid(),
});
export type TriageInput = z.infer<typeof TriageInput>;

export const triageKey = (i: TriageInput): string => i.eventId;

/** Events triaged together in one job: a burst is handled by the first job, the rest find nothing left. */
export const TRIAGE_BATCH = 200;
