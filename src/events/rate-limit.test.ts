import { describe, expect, it } from 'vitest';
import { TenantRateLimiter } from './rate-limit.js';

describe('TenantRateLimiter', () => {
  it('allows a burst of one second worth, then asks to wait for the missing tokens', () => {
    const l = new TenantRateLimiter(10);
    expect(l.take('t', 10, 0)).toBe(0);
    expect(l.take('t', 1, 0)).toBe(100);
    expect(l.take('t', 1, 100)).toBe(0);
  });

  it('keeps tenants apart', () => {
    const l = new TenantRateLimiter(2);
    expect(l.take('a', 2, 0)).toBe(0);
    expect(l.take('a', 1, 0)).toBeGreaterThan(0);
    expect(l.take('b', 2, 0)).toBe(0);
  });

  it('lets a batch over the rate through from a full bucket and makes the tenant wait it off', () => {
    const l = new TenantRateLimiter(2);
    expect(l.take('t', 5, 0)).toBe(0);
    const wait = l.take('t', 1, 0);
    expect(wait).toBe(2000); // 3 tokens of debt + 1 needed at 2/s
    expect(l.take('t', 1, wait)).toBe(0);
  });

  it('tells a batch over the rate how long until the bucket is full', () => {
    const l = new TenantRateLimiter(2);
    expect(l.take('t', 1, 0)).toBe(0);
    expect(l.take('t', 50, 0)).toBe(500);
    expect(l.take('t', 50, 500)).toBe(0);
  });
});
