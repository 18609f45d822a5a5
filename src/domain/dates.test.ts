import { describe, expect, it } from 'vitest';
import { dateWords, dayOfTime, overlaps, queryDates, resolveRelativeDates, type DateSpan } from './dates.js';

const iso = (t: number) => new Date(t).toISOString().slice(0, 10);
const show = (spans: DateSpan[]) => spans.map((s) => `${s.grain} ${iso(s.start)}..${iso(s.end)}`);
// Wednesday 4 October 2023, afternoon.
const at = new Date('2023-10-04T15:30:00Z');

describe('resolveRelativeDates', () => {
  it('resolves days against the time the text was said', () => {
    expect(show(resolveRelativeDates('Yesterday I went to Tokyo', at))).toEqual(['day 2023-10-03..2023-10-04']);
    expect(show(resolveRelativeDates('last night was fun, tomorrow we rest', at))).toEqual(['day 2023-10-03..2023-10-04', 'day 2023-10-05..2023-10-06']);
    expect(show(resolveRelativeDates('the day before yesterday', at))).toEqual(['day 2023-10-02..2023-10-03']);
  });

  it('resolves counts of units ago and ahead', () => {
    expect(show(resolveRelativeDates('I started two weeks ago', at))).toEqual(['week 2023-09-18..2023-09-25']);
    expect(show(resolveRelativeDates('3 days ago', at))).toEqual(['day 2023-10-01..2023-10-02']);
    expect(show(resolveRelativeDates('a month ago', at))).toEqual(['month 2023-09-01..2023-10-01']);
    expect(show(resolveRelativeDates('a couple of years ago', at))).toEqual(['year 2021-01-01..2022-01-01']);
    expect(show(resolveRelativeDates('the race is in three days', at))).toEqual(['day 2023-10-07..2023-10-08']);
  });

  it('resolves last and next weeks, months, weekends and weekdays', () => {
    expect(show(resolveRelativeDates('last week', at))).toEqual(['week 2023-09-25..2023-10-02']);
    expect(show(resolveRelativeDates('next month', at))).toEqual(['month 2023-11-01..2023-12-01']);
    expect(show(resolveRelativeDates('last year', at))).toEqual(['year 2022-01-01..2023-01-01']);
    expect(show(resolveRelativeDates('last weekend', at))).toEqual(['week 2023-09-30..2023-10-02']);
    expect(show(resolveRelativeDates('last Friday', at))).toEqual(['day 2023-09-29..2023-09-30']);
    expect(show(resolveRelativeDates('next Friday', at))).toEqual(['day 2023-10-06..2023-10-07']);
    // Said on a Wednesday, "last Wednesday" is a week before.
    expect(show(resolveRelativeDates('last Wednesday', at))).toEqual(['day 2023-09-27..2023-09-28']);
  });

  it('leaves bare weekdays, months and durations alone', () => {
    expect(resolveRelativeDates('On Friday in May I ran for two weeks', at)).toEqual([]);
  });
});

describe('queryDates', () => {
  const now = new Date('2026-12-07T00:00:00Z');
  it('reads full dates in the ways they are written', () => {
    for (const q of ['Which city was Calvin at on October 3, 2023?', 'What happened on 3 October 2023?', 'the 3rd of October, 2023', 'on 2023-10-03']) {
      expect(show(queryDates(q, now))).toEqual(['day 2023-10-03..2023-10-04']);
    }
  });

  it('reads months of a year, years, dates without a year and relative dates', () => {
    expect(show(queryDates('What did she paint in June 2023?', now))).toEqual(['month 2023-06-01..2023-07-01']);
    expect(show(queryDates('Where did he live in 2022?', now))).toEqual(['year 2022-01-01..2023-01-01']);
    const yearless = queryDates('What did Jon do on October 3?', now);
    expect(yearless).toHaveLength(1);
    expect(overlaps(yearless[0] as DateSpan, dayOfTime(at))).toBe(false);
    expect(overlaps(yearless[0] as DateSpan, dayOfTime(new Date('2023-10-03T10:00:00Z')))).toBe(true);
    expect(show(queryDates('what did I do yesterday?', now))).toEqual(['day 2026-12-06..2026-12-07']);
  });

  it('finds no date in a question without one', () => {
    expect(queryDates('What does May like to paint?', now)).toEqual([]);
    expect(queryDates('When did Caroline go to the support group?', now)).toEqual([]);
  });
});

describe('dateWords', () => {
  it('names a day by its day of the month, month, year and weekday', () => {
    expect(dateWords(dayOfTime(at))).toBe('4 october 2023 wednesday');
    expect(dateWords(resolveRelativeDates('two weeks ago', at)[0] as DateSpan)).toBe('september 2023');
  });
});
