import { z } from 'zod';
import { TRIAGE_BATCH, triageJobId } from '../../src/queue/triage-jobs.js';

/**
 * The events of one ingest flush (`eventIds`, queued by src/queue/triage-jobs.ts), or one event
 * (`eventId`: jobs queued before batching, one per event). Exactly one of the two.
 */
export const TriageInput = z
  .object({
    tenantId: z.string().min(1),
    eventId: z.uuid().optional(),
    eventIds: z.array(z.uuid()).min(1).max(TRIAGE_BATCH).optional(),
  })
  .refine((i) => (i.eventId === undefined) !== (i.eventIds === undefined), { message: 'exactly one of eventId and eventIds' });
export type TriageInput = z.infer<typeof TriageInput>;

export const triageEvents = (i: TriageInput): string[] => i.eventIds ?? [i.eventId as string];

export const triageKey = (i: TriageInput): string => triageJobId(i);
