import { z } from 'zod';
import type { Config } from '../../src/config.js';
import { shortHash } from '../../src/domain/ids.js';
import type { QuietState } from '../../src/db/sql/extract-events.js';
import { debounced } from '../../src/queue/enqueue.js';
import type { NextJob } from '../../src/queue/stage.js';

/** All not-yet-extracted events of one extraction key (a session, a user's loose events, a document). */
export const ExtractInput = z.object({
  tenantId: z.string().min(1),
  extractKey: z.string().min(1).max(500),
});
export type ExtractInput = z.infer<typeof ExtractInput>;

/** Events handled by one extraction pass with a model provider (one model call); a longer backlog continues in a follow-up job. */
export const EXTRACT_BATCH = 100;
/**
 * Events per pass with the offline heuristic extractor, which costs no model call: a pass writes
 * its units in one transaction, and 100 near-duplicate turns (100 supersessions: neighbour search,
 * new versions, provenance) held the embedded database ~200 ms; a quarter of that keeps the API's
 * wait behind it short.
 */
export const HEURISTIC_EXTRACT_BATCH = 25;

export const extractBatch = (config: Pick<Config, 'LLM_PROVIDER'>): number => (config.LLM_PROVIDER === 'heuristic' ? HEURISTIC_EXTRACT_BATCH : EXTRACT_BATCH);

/**
 * How long a pass's claim on its events holds before another job may take them over (the pass
 * died): longer than a pass can take — four model requests (the extraction and the reconcile
 * decision, each with one correction) plus margin.
 */
export const extractLeaseMs = (config: Pick<Config, 'LLM_TIMEOUT_MS'>): number => 4 * config.LLM_TIMEOUT_MS + 60_000;

/** Debounce identity: one pending extraction per (tenant, key). */
export const extractDedupId = (i: ExtractInput): string => `extract-${i.tenantId}-${shortHash(i.extractKey)}`;

/**
 * Job ids must be unique per run (a completed job keeps its id for a while and would swallow a
 * later add); the debounce identity is the deduplication id instead.
 */
export const extractKey = (i: ExtractInput): string => `${extractDedupId(i)}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/**
 * A debounced extraction: each new event in the key restarts the quiet period
 * (EXTRACT_DEBOUNCE_MS); once the oldest waiting event is older than EXTRACT_MAX_WAIT_MS the job
 * runs at once, so a never-ending session is still extracted regularly.
 */
export function extractJob(config: Config, tenantId: string, key: string, oldest: Date, now = Date.now()): NextJob {
  const waited = now - oldest.getTime();
  const delay = waited >= config.EXTRACT_MAX_WAIT_MS ? 0 : Math.min(config.EXTRACT_DEBOUNCE_MS, config.EXTRACT_MAX_WAIT_MS - waited);
  return extractAfter(tenantId, key, delay);
}

/** The key's debounced extraction in `delay` ms (at most one pass waiting and one running per key). */
export function extractAfter(tenantId: string, key: string, delay: number): NextJob {
  const input = { tenantId, extractKey: key };
  return { stage: 'extract', input, opts: { delay, deduplication: debounced(extractDedupId(input)) } };
}

/**
 * How long a pass should still wait, in milliseconds (0: extract now). The queue's debounce
 * restarts at each embedded event, but a session whose events are still in triage, chunk or embed
 * (the pipeline lags behind it) or arrived within the quiet period is not quiet yet: extracting
 * then would split it into several passes and model calls. EXTRACT_MAX_WAIT_MS, counted from the
 * oldest waiting event, bounds the wait; EXTRACT_DEBOUNCE_MS=0 turns waiting off.
 */
export function debounceWait(config: Pick<Config, 'EXTRACT_DEBOUNCE_MS' | 'EXTRACT_MAX_WAIT_MS'>, state: QuietState, now = Date.now()): number {
  if (config.EXTRACT_DEBOUNCE_MS === 0 || state.waiting === 0 || state.oldest === null) return 0;
  const maxWaitLeft = config.EXTRACT_MAX_WAIT_MS - (now - state.oldest.getTime());
  if (maxWaitLeft <= 0) return 0;
  // Upstream events enqueue their own debounced pass when embedded; this wait is the safety net.
  const wait = state.upstream > 0 ? config.EXTRACT_DEBOUNCE_MS : config.EXTRACT_DEBOUNCE_MS - (state.sinceLastMs ?? Infinity);
  return wait > 0 ? Math.min(wait, maxWaitLeft) : 0;
}
