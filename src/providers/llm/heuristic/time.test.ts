import { describe, expect, it } from 'vitest';
import { resolveTime } from './time.js';

// A Monday afternoon.
const AT = '2023-05-08T13:56:00.000Z';

describe('resolveTime', () => {
  it.each([
    ['I went to a support group yesterday', '2023-05-07T00:00:00.000Z', 'day'],
    ['we shipped it today', '2023-05-08T00:00:00.000Z', 'day'],
    ['the demo is tomorrow', '2023-05-09T00:00:00.000Z', 'day'],
    ['last week we moved offices', '2023-05-01T00:00:00.000Z', 'relative'],
    ['next week I fly to Tokyo', '2023-05-15T00:00:00.000Z', 'relative'],
    ['we are going camping next month', '2023-06-01T00:00:00.000Z', 'month'],
    ['I painted that lake sunrise last year', '2022-01-01T00:00:00.000Z', 'year'],
    ['I started transitioning three years ago', '2020-01-01T00:00:00.000Z', 'year'],
    ['we met 2 days ago', '2023-05-06T00:00:00.000Z', 'day'],
    ['I ran a charity race last Saturday', '2023-05-06T00:00:00.000Z', 'day'],
    ['昨天我去了北京', '2023-05-07T00:00:00.000Z', 'day'],
    ['我下个月去上海', '2023-06-01T00:00:00.000Z', 'month'],
    ['去年我们搬家了', '2022-01-01T00:00:00.000Z', 'year'],
  ])('resolves "%s" against the message time', (text, iso, precision) => {
    expect(resolveTime(text, AT)).toEqual({ event_time: iso, time_precision: precision });
  });

  it.each([
    ['The launch was on 8 May 2023', '2023-05-08T00:00:00.000Z', 'day'],
    ['The launch was on May 8, 2023', '2023-05-08T00:00:00.000Z', 'day'],
    ['released 2023-05-08', '2023-05-08T00:00:00.000Z', 'day'],
    ['deployed at 2023-05-08T09:30:00Z', '2023-05-08T09:30:00.000Z', 'exact'],
    ['we moved in May 2021', '2021-05-01T00:00:00.000Z', 'month'],
    ['she was born in 1990', '1990-01-01T00:00:00.000Z', 'year'],
    ['2023年5月8日发布', '2023-05-08T00:00:00.000Z', 'day'],
  ])('reads the absolute date in "%s"', (text, iso, precision) => {
    expect(resolveTime(text, AT)).toEqual({ event_time: iso, time_precision: precision });
  });

  it('finds no time where none is stated, and ignores ports, versions and the modal "may"', () => {
    expect(resolveTime('The API runs on port 8787', AT)).toBeNull();
    expect(resolveTime('Upgrade to v2.3.1 soon', AT)).toBeNull();
    expect(resolveTime('You may want to restart it', AT)).toBeNull();
  });

  it('still reads absolute dates when occurredAt is not a date', () => {
    expect(resolveTime('yesterday', 'not a date')).toBeNull();
    expect(resolveTime('on 8 May 2023', 'not a date')?.time_precision).toBe('day');
  });

  it('reads years below 100 as written and drops dates PostgreSQL cannot store', () => {
    expect(resolveTime('released 0099-05-08', AT)).toEqual({ event_time: '0099-05-08T00:00:00.000Z', time_precision: 'day' });
    // Hostile content (the events-directory fuzz found it): year 0 failed every extraction write.
    expect(resolveTime('deployed at 0000-01-01T00:00:00Z', AT)).toBeNull();
    expect(resolveTime('released 0000-01-01', AT)).toBeNull();
  });

  it.each([
    'We met in the year 300000.',
    'The deadline is 10/10/99999.',
    'Released on +300000-01-01T00:00:00Z and on 275760-09-13T00:00:00Z.',
    'Born -000500-01-01, in 500 BC, or 4714 BC.',
    'It happened 9007199254740992 seconds after the epoch.',
    'Meeting on 9999-12-31T23:59:59-14:00.',
    'Meeting on 0001-01-01T00:00:00+14:00.',
    'On March 3, 275760 we moved.',
    '99999年1月1日我们决定了。',
    'That was 999 years ago.',
  ])('reads no date, or only one PostgreSQL and JavaScript both store, in "%s"', (text) => {
    const t = resolveTime(text, AT);
    if (t === null) return;
    const ms = Date.parse(t.event_time);
    expect(ms).toBeGreaterThanOrEqual(Date.parse('0001-01-01T00:00:00Z'));
    expect(ms).toBeLessThanOrEqual(Date.parse('9999-12-31T23:59:59.999Z'));
    expect(t.event_time).toMatch(/^\d{4}-/);
  });

  it('does not read the tail of a longer number as a year', () => {
    expect(resolveTime('On March 3, 275760 we moved.', AT)?.event_time).toBe('2023-03-03T00:00:00.000Z');
    expect(resolveTime('99999年1月1日我们决定了。', AT)).toBeNull();
    expect(resolveTime('Released on +300000-01-01T00:00:00Z.', AT)).toBeNull();
  });
});
