import { z } from 'zod';
import { idsHash } from '../../src/domain/ids.js';
import type { NextJob } from '../../src/queue/stage.js';

export const EmbedInput = z.object({
  tenantId: z.string().min(1),
  eventIds: z.array(z.uuid()).min(1).max(1000),
});
export type EmbedInput = z.infer<typeof EmbedInput>;

export const embedKey = (i: EmbedInput): string => `embed-${i.tenantId}-${idsHash(i.eventIds)}`;

export function embedJob(tenantId: string, eventIds: string[]): NextJob {
  return { stage: 'embed', input: { tenantId, eventIds } };
}
