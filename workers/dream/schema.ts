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

/** Nearest neighbours each new memory is compared with (merges, links): a run costs O(new × this). */
export const DREAM_NEIGHBOURS = 8;

/**
 * On a server, how far behind now() a dream's stored cursor stays (src/db/sql/dream.ts saveCursor):
 * longer than any transaction that writes memories runs, so none commits behind the cursor.
 */
export const DREAM_SETTLE_MS = 60_000;

/** One pending dream per (tenant, user): while it waits, later triggers add nothing. */
export const dreamDedupId = (i: Pick<DreamInput, 'tenantId' | 'userId'>): string => `dream-${i.tenantId}-${scopeToken(i.userId)}`;

export const dreamKey = (i: DreamInput): string => uniqueJobId(dreamDedupId(i));

export function dreamJob(tenantId: string, userId: string, trigger: string): NextJob {
  const input = { tenantId, userId, trigger };
  return { stage: 'dream', input, opts: { deduplication: { id: dreamDedupId(input) } } };
}
