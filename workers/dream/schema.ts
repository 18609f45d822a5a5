import { z } from 'zod';
import { scopeToken, uniqueJobId } from '../../src/domain/scope.js';
import type { NextJob } from '../../src/queue/stage.js';

/** One auto-dream of a user scope; userId '' is the scope of memories without a user. */
export const DreamInput = z.object({
  tenantId: z.string().min(1),
  userId: z.string().max(200),
  /** Which trigger fired (sessions | memories | interval | manual), for logs and user_state. */
  trigger: z.string().max(40).default('manual'),
});
export type DreamInput = z.infer<typeof DreamInput>;

/** Memories of one scope a dream considers (the newest); clustering compares pairs within kinds. */
export const DREAM_MAX_MEMORIES = 3000;

/** One pending dream per (tenant, user): while it waits, later triggers add nothing. */
export const dreamDedupId = (i: Pick<DreamInput, 'tenantId' | 'userId'>): string => `dream-${i.tenantId}-${scopeToken(i.userId)}`;

export const dreamKey = (i: DreamInput): string => uniqueJobId(dreamDedupId(i));

export function dreamJob(tenantId: string, userId: string, trigger: string): NextJob {
  const input = { tenantId, userId, trigger };
  return { stage: 'dream', input, opts: { deduplication: { id: dreamDedupId(input) } } };
}
