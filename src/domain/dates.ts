/**
 * Dates as people write and ask them (docs/recall.md "Dates"). Pure, no I/O, UTC days throughout
 * (a chunk's key holds its event time's UTC date).
 *
 * - resolveRelativeDates: "yesterday", "last night", "two weeks ago", "last Friday", "next month"
 *   in a text, resolved against the time it was said (the event time) into absolute spans of days.
 * - queryDates: the dates a question names ("on October 3, 2023", "3rd of May", "in June 2023",
 *   "in 2022", and relative ones against the time it is asked).
 * - dateWords: the words of a span for a full-text key ("3 october 2023 tuesday").
 */
import { NUMBER_WORDS } from './vocabulary.js';

const DAY = 86_400_000;
const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WEEKDAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

export type Grain = 'day' | 'week' | 'month' | 'year';

/** Days [start, end) in ms since the epoch, UTC midnights; `year` undefined: any year (a date asked without one). */
export interface DateSpan {
  start: number;
  end: number;
  grain: Grain;
  /** false when the span came from a date written without a year: compare month and day only. */
  yearKnown?: boolean;
}

const COUNT = `(\\d{1,2}|a couple of|a couple|couple|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`;
const UNIT = '(day|week|month|year)s?';
const WEEKDAY = '(sunday|monday|tuesday|wednesday|thursday|friday|saturday)';
const MONTH = '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)';

function dayOf(t: number): number {
  return Math.floor(t / DAY) * DAY;
}

function daySpan(day: number): DateSpan {
  return { start: day, end: day + DAY, grain: 'day' };
}

/** The Monday-to-Sunday week holding `day`. */
function weekSpan(day: number): DateSpan {
  const monday = day - ((new Date(day).getUTCDay() + 6) % 7) * DAY;
  return { start: monday, end: monday + 7 * DAY, grain: 'week' };
}

function monthSpan(year: number, month: number): DateSpan {
  return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1), grain: 'month' };
}

function yearSpan(year: number): DateSpan {
  return { start: Date.UTC(year, 0, 1), end: Date.UTC(year + 1, 0, 1), grain: 'year' };
}

function count(word: string): number {
  return /^\d+$/.test(word) ? Number(word) : (NUMBER_WORDS[word] ?? 1);
}

/** `day` moved by n units (negative: back), as a span of that unit's grain (days: the day). */
function shifted(day: number, unit: string, n: number): DateSpan {
  const d = new Date(day);
  switch (unit) {
    case 'day':
      return daySpan(day + n * DAY);
    case 'week':
      return weekSpan(day + 7 * n * DAY);
    case 'month':
      return monthSpan(d.getUTCFullYear(), d.getUTCMonth() + n);
    default:
      return yearSpan(d.getUTCFullYear() + n);
  }
}

/** The weekday `wd` before (dir −1) or after (dir +1) `day`, never `day` itself. */
function weekdayFrom(day: number, wd: number, dir: -1 | 1): number {
  const today = new Date(day).getUTCDay();
  const diff = dir < 0 ? (today - wd + 7) % 7 || 7 : (wd - today + 7) % 7 || 7;
  return day + dir * diff * DAY;
}

interface Rule {
  re: RegExp;
  span(m: RegExpMatchArray, day: number): DateSpan | undefined;
}

/** The relative expressions understood, each resolved against the day it was said. */
const RULES: Rule[] = [
  { re: /\bthe day before yesterday\b/giu, span: (_m, day) => daySpan(day - 2 * DAY) },
  { re: /\bthe day after tomorrow\b/giu, span: (_m, day) => daySpan(day + 2 * DAY) },
  { re: /\b(?:yesterday|last night)\b/giu, span: (_m, day) => daySpan(day - DAY) },
  { re: /\btomorrow\b/giu, span: (_m, day) => daySpan(day + DAY) },
  { re: new RegExp(`\\b${COUNT} ${UNIT} ago\\b`, 'giu'), span: (m, day) => shifted(day, lc(m[2]), -count(lc(m[1]))) },
  { re: new RegExp(`\\bin ${COUNT} ${UNIT}(?:'s| from now)?(?: time)?\\b`, 'giu'), span: (m, day) => shifted(day, lc(m[2]), count(lc(m[1]))) },
  { re: /\b(last|past|previous|next|coming) (week|month|year)\b/giu, span: (m, day) => shifted(day, lc(m[2]), /^(?:next|coming)$/.test(lc(m[1])) ? 1 : -1) },
  {
    re: /\b(last|next|this) weekend\b/giu,
    span: (m, day) => {
      const dir = lc(m[1]) === 'last' ? -1 : 1;
      const saturday = lc(m[1]) === 'this' && new Date(day).getUTCDay() === 6 ? day : weekdayFrom(day, 6, dir);
      // Said on a Sunday, "last weekend" is the one before this Sunday's.
      const start = dir < 0 && new Date(day).getUTCDay() === 0 ? saturday - 7 * DAY : saturday;
      return { start, end: start + 2 * DAY, grain: 'week' };
    },
  },
  {
    re: new RegExp(`\\b(last|next|this|coming) ${WEEKDAY}\\b`, 'giu'),
    span: (m, day) => {
      const wd = WEEKDAY_NAMES.indexOf(lc(m[2]));
      if (lc(m[1]) === 'last') return daySpan(weekdayFrom(day, wd, -1));
      if (lc(m[1]) === 'this' && new Date(day).getUTCDay() === wd) return daySpan(day);
      return daySpan(weekdayFrom(day, wd, 1));
    },
  },
];

function lc(s: string | undefined): string {
  return (s ?? '').toLowerCase().replace(/\s+/g, ' ');
}

/**
 * The relative dates of `text` ("yesterday", "last night", "two weeks ago", "last Friday", "next
 * month", "in three days", "last weekend") resolved against `at` (when it was said), in text
 * order, each once. A bare weekday or month ("on Friday", "in May") is not resolved: it may be
 * before or after, or a name.
 */
export function resolveRelativeDates(text: string, at: Date): DateSpan[] {
  const day = dayOf(at.getTime());
  if (!Number.isFinite(day)) return [];
  const found: Array<{ index: number; span: DateSpan }> = [];
  const lower = text.normalize('NFKC');
  // Rules go longest expression first; text an earlier rule read is not read again ("the day before yesterday").
  const used: Array<[number, number]> = [];
  for (const rule of RULES) {
    for (const m of lower.matchAll(rule.re)) {
      const end = m.index + m[0].length;
      if (used.some(([a, b]) => m.index < b && end > a)) continue;
      const span = rule.span(m, day);
      if (!span || !Number.isFinite(span.start)) continue;
      used.push([m.index, end]);
      found.push({ index: m.index, span });
    }
  }
  found.sort((a, b) => a.index - b.index);
  return uniqueSpans(found.map((f) => f.span));
}

function uniqueSpans(spans: DateSpan[]): DateSpan[] {
  const seen = new Set<string>();
  return spans.filter((s) => {
    const k = `${s.start}:${s.end}:${s.yearKnown ?? true}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function monthIndex(word: string): number {
  const w = word.toLowerCase();
  return MONTH_NAMES.findIndex((m) => m.startsWith(w.slice(0, 3)) && m.startsWith(w));
}

const ORD = '(?:st|nd|rd|th)?';
/** "October 3, 2023", "Oct 3rd 2023", "October 3" */
const MONTH_DAY_RE = new RegExp(`\\b${MONTH}\\.? (\\d{1,2})${ORD}\\b(?:,? (\\d{4})\\b)?`, 'giu');
/** "3 October 2023", "3rd of October, 2023", "3 Oct" */
const DAY_MONTH_RE = new RegExp(`\\b(\\d{1,2})${ORD} (?:of )?${MONTH}\\b\\.?(?:,? (\\d{4})\\b)?`, 'giu');
/** "2023-10-03" */
const ISO_RE = /\b(\d{4})-(\d{2})-(\d{2})\b/gu;
/** "October 2023", "October of 2023" */
const MONTH_YEAR_RE = new RegExp(`\\b${MONTH},? (?:of )?(\\d{4})\\b`, 'giu');
const YEAR_RE = /\b(19\d\d|20\d\d)\b/gu;

/**
 * The dates a question names: full dates (day grain; "October 3" without a year matches that day
 * in any year), months of a year, years, and relative dates resolved against `now` (when it is
 * asked). A month or weekday alone is not a date here ("May", "Will" are names too).
 */
export function queryDates(query: string, now: Date): DateSpan[] {
  const text = query.normalize('NFKC');
  const spans: DateSpan[] = [];
  const used: Array<[number, number]> = [];
  const take = (m: RegExpExecArray) => used.push([m.index, m.index + m[0].length]);
  const inUsed = (m: RegExpExecArray) => used.some(([a, b]) => m.index < b && m.index + m[0].length > a);
  const day = (year: number | undefined, month: number, d: number): DateSpan | undefined => {
    if (month < 0 || d < 1 || d > 31) return undefined;
    const start = Date.UTC(year ?? 2000, month, d);
    if (new Date(start).getUTCDate() !== d) return undefined;
    return { ...daySpan(start), ...(year === undefined ? { yearKnown: false } : {}) };
  };
  for (const m of text.matchAll(ISO_RE)) {
    const s = day(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    if (s) {
      spans.push(s);
      take(m);
    }
  }
  for (const re of [MONTH_DAY_RE, DAY_MONTH_RE]) {
    for (const m of text.matchAll(re)) {
      if (inUsed(m)) continue;
      const [month, d] = re === MONTH_DAY_RE ? [monthIndex(m[1] ?? ''), Number(m[2])] : [monthIndex(m[2] ?? ''), Number(m[1])];
      const s = day(m[3] ? Number(m[3]) : undefined, month, d);
      if (s) {
        spans.push(s);
        take(m);
      }
    }
  }
  for (const m of text.matchAll(MONTH_YEAR_RE)) {
    if (inUsed(m)) continue;
    const month = monthIndex(m[1] ?? '');
    if (month < 0) continue;
    spans.push(monthSpan(Number(m[2]), month));
    take(m);
  }
  for (const m of text.matchAll(YEAR_RE)) if (!inUsed(m)) spans.push(yearSpan(Number(m[1])));
  return uniqueSpans([...spans, ...resolveRelativeDates(text, now)]);
}

/** True when the spans share a day; a span without a year is compared by month and day in the other's years. */
export function overlaps(a: DateSpan, b: DateSpan): boolean {
  if (a.yearKnown === false) return inYearsOf(a, b).some((x) => overlaps(x, b));
  if (b.yearKnown === false) return inYearsOf(b, a).some((x) => overlaps(a, x));
  return a.start < b.end && b.start < a.end;
}

function inYearsOf(yearless: DateSpan, other: DateSpan): DateSpan[] {
  const d = new Date(yearless.start);
  const years = new Set([new Date(other.start).getUTCFullYear(), new Date(other.end - 1).getUTCFullYear()]);
  return [...years].map((y) => daySpan(Date.UTC(y, d.getUTCMonth(), d.getUTCDate())));
}

/** The UTC day of `at` as a span. */
export function dayOfTime(at: Date): DateSpan {
  return daySpan(dayOf(at.getTime()));
}

/**
 * Words of a span for a full-text key: a day as its day of the month, month, year and weekday
 * ("3 october 2023 tuesday"); a week as the months and years it touches; a month as its month
 * and year; a year as the year.
 */
export function dateWords(span: DateSpan): string {
  const first = new Date(span.start);
  const last = new Date(span.end - DAY);
  const my = (d: Date) => `${MONTH_NAMES[d.getUTCMonth()]} ${String(d.getUTCFullYear()).padStart(4, '0')}`;
  switch (span.grain) {
    case 'day':
      return `${first.getUTCDate()} ${my(first)} ${WEEKDAY_NAMES[first.getUTCDay()]}`;
    case 'week':
      return first.getUTCMonth() === last.getUTCMonth() ? my(first) : `${my(first)} ${my(last)}`;
    case 'month':
      return my(first);
    default:
      return String(first.getUTCFullYear()).padStart(4, '0');
  }
}
