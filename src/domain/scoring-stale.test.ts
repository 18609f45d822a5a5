import { describe, expect, it } from 'vitest';
import { fuse, STALE_WEIGHT } from './scoring.js';

describe('fuse: a result that no longer holds', () => {
  it('keeps STALE_WEIGHT of the score it would have, and nothing else changes', () => {
    const now = new Date('2026-03-01T00:00:00Z');
    const signals = { relevance: 0.8, keyword: 0.7, vector: 0.4, occurredAt: new Date('2026-02-20T00:00:00Z'), importance: 6 };
    const held = fuse(signals, now);
    const stale = fuse({ ...signals, current: false }, now);
    expect(stale.score).toBeCloseTo(held.score * STALE_WEIGHT, 3);
    expect(stale.scores).toEqual(held.scores);
    expect(STALE_WEIGHT).toBeGreaterThan(0);
    expect(STALE_WEIGHT).toBeLessThan(1);
  });
});
