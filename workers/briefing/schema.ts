import { z } from 'zod';
import type { Config } from '../../src/config.js';
import { scopeToken, uniqueJobId } from '../../src/domain/scope.js';
import { debounced, throttled } from '../../src/queue/enqueue.js';
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
 * The refresh after a change settled (extraction, dream): a quiet period per user
 * (BRIEFING_DEBOUNCE_MS) bounded by a max wait (BRIEFING_MAX_WAIT_MS) from the last refresh.
 * - Refreshed recently: debounce mode, each change restarts the quiet period, but never past
 *   `lastRefreshAt + max wait`, so a busy user still gets a refresh at least that often.
 * - Never refreshed, or longer ago than the max wait: throttle mode, the first change sets the
 *   time (one quiet period later) and later changes join it without postponing it.
 * Either way at most one refresh is pending and one running per user (see src/queue/enqueue.ts).
 */
export function briefingJob(config: Config, tenantId: string, userId: string, lastRefreshAt: Date | null, now = new Date()): NextJob {
  const input = { tenantId, userId };
  const id = briefingDedupId(input);
  const left = lastRefreshAt === null ? -1 : lastRefreshAt.getTime() + config.BRIEFING_MAX_WAIT_MS - now.getTime();
  if (left <= 0) return { stage: 'briefing', input, opts: { delay: config.BRIEFING_DEBOUNCE_MS, deduplication: throttled(id) } };
  return { stage: 'briefing', input, opts: { delay: Math.min(config.BRIEFING_DEBOUNCE_MS, left), deduplication: debounced(id) } };
}

/** The scheduled refresh: at once (it also removes the digest of a scope left with nothing to say). */
export function briefingNow(tenantId: string, userId: string): NextJob {
  return { stage: 'briefing', input: { tenantId, userId } };
}
