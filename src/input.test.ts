import { describe, expect, it } from 'vitest';
import { clampTime, durationMs, identifier, storableText, storableTime, storableTtl, timestamp, toStorable } from './input.js';

describe('boundary text checks', () => {
  it('rejects what PostgreSQL cannot store, and control characters in identifiers', () => {
    expect(storableText(100).safeParse('a\u0000b').success).toBe(false);
    expect(storableText(100).safeParse('half \ud83d pair').success).toBe(false);
    expect(storableText(100).safeParse('tab\tand 😀 and \u001b[0m').success).toBe(true);
    expect(identifier().safeParse('u\u0001').success).toBe(false);
    expect(identifier().safeParse('user 😀 名前').success).toBe(true);
  });

  it('accepts only timestamps timestamptz can hold', () => {
    expect(timestamp().safeParse('2026-11-29T10:00:00Z').success).toBe(true);
    expect(timestamp().safeParse('2028-02-29T10:00:00+14:00').success).toBe(true);
    expect(timestamp().safeParse('0000-01-01T00:00:00Z').success).toBe(false);
    expect(timestamp().safeParse('2026-02-30T00:00:00Z').success).toBe(false);
    expect(timestamp().safeParse('2027-02-29T00:00:00Z').success).toBe(false);
    // inside the range as written, outside it in UTC: JavaScript writes them as 0000-… and +010000-…
    expect(timestamp().safeParse('0001-01-01T00:00:00+14:00').success).toBe(false);
    expect(timestamp().safeParse('9999-12-31T23:59:59-14:00').success).toBe(false);
    expect(timestamp().safeParse('0001-01-01T00:00:00Z').success).toBe(true);
    expect(timestamp().safeParse('9999-12-31T23:59:59Z').success).toBe(true);
    expect(timestamp().safeParse('+300000-01-01T00:00:00Z').success).toBe(false);
  });

  it('clamps a stored time into the range both PostgreSQL and JavaScript write alike', () => {
    expect(clampTime(new Date('0000-12-31T10:00:00Z'))).toBe('0001-01-01T00:00:00.000Z');
    expect(clampTime(new Date('+010000-01-01T13:59:59Z'))).toBe('9999-12-31T23:59:59.999Z');
    expect(clampTime(new Date(Number.NaN))).toBe('1970-01-01T00:00:00.000Z');
    expect(clampTime(Date.parse('2026-01-01T00:00:00Z'))).toBe('2026-01-01T00:00:00.000Z');
  });

  it('keeps a TTL only while its expiry stays in the range', () => {
    const now = Date.parse('2026-12-01T00:00:00Z');
    expect(durationMs('P1DT1H')).toBe(25 * 3_600_000);
    expect(storableTtl('P30D', now)).toBe('P30D');
    expect(storableTtl('P7000Y', now)).toBe('P7000Y');
    expect(storableTtl('P9999999Y', now)).toBeNull();
    expect(storableTtl('P999999M', now)).toBeNull();
    expect(storableTtl('P1D', Date.parse('9999-12-31T00:00:00Z'))).toBeNull();
    expect(storableTtl(undefined, now)).toBeNull();
  });

  it('cleans text from outside the checks without touching valid text', () => {
    expect(toStorable('ok 😀')).toBe('ok 😀');
    expect(toStorable('a\u0000b\ud83d')).toBe('ab\ufffd');
    expect(toStorable('😀'.slice(0, 1))).toBe('\ufffd');
  });

  it('keeps a time from outside the checks only when timestamptz can hold it', () => {
    expect(storableTime('2023-05-08')).toBe('2023-05-08T00:00:00.000Z');
    expect(storableTime('2023-05-08T09:30:00+02:00')).toBe('2023-05-08T07:30:00.000Z');
    expect(storableTime('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00.000Z');
    expect(storableTime('0000-01-01T00:00:00Z')).toBeNull();
    expect(storableTime('+010000-01-01T00:00:00Z')).toBeNull();
    expect(storableTime('+300000-01-01T00:00:00Z')).toBeNull();
    expect(storableTime('-000500-01-01T00:00:00Z')).toBeNull();
    expect(storableTime('9999-12-31T23:59:59-14:00')).toBeNull();
    expect(storableTime(String(2 ** 53))).toBeNull();
    expect(storableTime('sometime next spring')).toBeNull();
    expect(storableTime(null)).toBeNull();
  });
});
