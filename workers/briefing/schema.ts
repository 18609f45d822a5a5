import { z } from 'zod';
import type { Config } from '../../src/config.js';
import { scopeToken, uniqueJobId } from '../../src/domain/scope.js';
import { debounced } from '../../src/queue/enqueue.js';
import type { NextJob } from '../../src/queue/stage.js';

/** Refresh of one user's working memory; userId '' is the scope of memories without a user. */
export const BriefingInput = z.object({
  tenantId: z.string().min(1),
  userId: z.string().max(200),
});
export type BriefingInput = z.infer<typeof BriefingInput>;

/** Debounce identity: one pending refresh per (tenant, user). */
export const briefingDedupId = (i: BriefingInput): string => `briefing-${i.tenantId}-${scopeToken(i.userId)}`;

export const briefingKey = (i: BriefingInput): string => uniqueJobId(briefingDedupId(i));

/**
 * A debounced refresh after new memories: each new write restarts the quiet period
 * (BRIEFING_DEBOUNCE_MS), so a busy session refreshes the digest once it settles.
 */
export function briefingJob(config: Config, tenantId: string, userId: string): NextJob {
  const input = { tenantId, userId };
  const delay = config.BRIEFING_DEBOUNCE_MS;
  return { stage: 'briefing', input, opts: { delay, deduplication: debounced(briefingDedupId(input)) } };
}

/** The scheduled refresh: at once (it also removes the digest of a scope left with nothing to say). */
export function briefingNow(tenantId: string, userId: string): NextJob {
  return { stage: 'briefing', input: { tenantId, userId } };
}
