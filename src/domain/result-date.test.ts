import { describe, expect, it } from 'vitest';
import { resultDate } from './result-date.js';

describe('resultDate', () => {
  it('gives the day it was said, and the day it is about when that differs', () => {
    expect(resultDate({ occurred_at: '2026-11-05T09:00:00.000Z', event_time: '2026-12-15T00:00:00.000Z' })).toBe('2026-11-05, about 2026-12-15');
    expect(resultDate({ occurred_at: '2026-11-05T09:00:00.000Z', event_time: '2026-11-05T18:00:00.000Z' })).toBe('2026-11-05');
    expect(resultDate({ occurred_at: '2026-11-05T09:00:00.000Z', event_time: null })).toBe('2026-11-05');
    expect(resultDate({ occurred_at: '2026-11-05T09:00:00.000Z' })).toBe('2026-11-05');
  });
});
