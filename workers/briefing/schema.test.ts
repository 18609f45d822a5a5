import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { briefingDedupId, briefingJob } from './schema.js';

const config = loadConfig({});
const now = new Date('2026-12-06T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('briefingJob: a quiet period bounded by a max wait', () => {
  it('defaults to seconds, not minutes', () => {
    expect(config.BRIEFING_DEBOUNCE_MS).toBeLessThanOrEqual(5_000);
    expect(config.BRIEFING_MAX_WAIT_MS).toBeGreaterThan(config.BRIEFING_DEBOUNCE_MS);
  });

  it('debounces after a recent refresh: each change restarts the quiet period', () => {
    const job = briefingJob(config, 't', 'dana', ago(1_000), now);
    expect(job.opts?.delay).toBe(config.BRIEFING_DEBOUNCE_MS);
    expect(job.opts?.deduplication).toMatchObject({ id: briefingDedupId({ tenantId: 't', userId: 'dana' }), replace: true, keepLastIfActive: true });
  });

  it('never postpones past the max wait after the last refresh', () => {
    const left = 1_200;
    const job = briefingJob(config, 't', 'dana', ago(config.BRIEFING_MAX_WAIT_MS - left), now);
    expect(job.opts?.delay).toBe(Math.min(config.BRIEFING_DEBOUNCE_MS, left));
    expect(job.opts?.deduplication).toMatchObject({ replace: true });
  });

  it('throttles when the last refresh is older than the max wait, or there was none: later changes join, never postpone', () => {
    for (const last of [ago(config.BRIEFING_MAX_WAIT_MS + 1), null]) {
      const job = briefingJob(config, 't', 'dana', last, now);
      expect(job.opts?.delay).toBe(config.BRIEFING_DEBOUNCE_MS);
      expect(job.opts?.deduplication).toEqual({ id: briefingDedupId({ tenantId: 't', userId: 'dana' }), keepLastIfActive: true });
    }
  });
});
