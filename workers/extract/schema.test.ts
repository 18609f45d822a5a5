import { describe, expect, it } from 'vitest';
import { debounceWait } from './schema.js';

const config = { EXTRACT_DEBOUNCE_MS: 1000, EXTRACT_MAX_WAIT_MS: 10_000 };
const NOW = Date.parse('2026-11-29T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms);

describe('debounceWait', () => {
  it('extracts at once when the key is quiet and nothing is upstream', () => {
    expect(debounceWait(config, { waiting: 5, oldest: ago(3000), upstream: 0, sinceLastMs: 1500 }, NOW)).toBe(0);
  });

  it('waits out the rest of the quiet period after the newest event', () => {
    expect(debounceWait(config, { waiting: 5, oldest: ago(3000), upstream: 0, sinceLastMs: 400 }, NOW)).toBe(600);
  });

  it('waits a debounce period while events of the key are still upstream', () => {
    expect(debounceWait(config, { waiting: 5, oldest: ago(3000), upstream: 2, sinceLastMs: 5000 }, NOW)).toBe(1000);
  });

  it('never waits beyond EXTRACT_MAX_WAIT_MS from the oldest waiting event', () => {
    expect(debounceWait(config, { waiting: 5, oldest: ago(9700), upstream: 2, sinceLastMs: 0 }, NOW)).toBe(300);
    expect(debounceWait(config, { waiting: 5, oldest: ago(10_000), upstream: 2, sinceLastMs: 0 }, NOW)).toBe(0);
  });

  it('does not wait when nothing is waiting or debounce is off', () => {
    expect(debounceWait(config, { waiting: 0, oldest: null, upstream: 3, sinceLastMs: 0 }, NOW)).toBe(0);
    expect(debounceWait({ ...config, EXTRACT_DEBOUNCE_MS: 0 }, { waiting: 5, oldest: ago(100), upstream: 3, sinceLastMs: 0 }, NOW)).toBe(0);
  });
});
