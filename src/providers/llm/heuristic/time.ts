/**
 * Finds the time a sentence talks about: absolute dates as written, relative ones ("yesterday",
 * "last month", "3 years ago", 上周) resolved against the message's occurredAt. Plain UTC Date
 * arithmetic; results are ISO strings at the start of the day / month / year they name.
 */

import { NUMBER_WORDS } from '../../../domain/vocabulary.js';
import { storableTime } from '../../../input.js';

export type TimePrecision = 'exact' | 'day' | 'month' | 'year' | 'relative';

export interface ResolvedTime {
  event_time: string;
  time_precision: TimePrecision;
}

export const MONTHS: Record<string, number> = {
  january: 0,
  jan: 0,
  february: 1,
  feb: 1,
  march: 2,
  mar: 2,
  april: 3,
  apr: 3,
  may: 4,
  june: 5,
  jun: 5,
  july: 6,
  jul: 6,
  august: 7,
  aug: 7,
  september: 8,
  sep: 8,
  sept: 8,
  october: 9,
  oct: 9,
  november: 10,
  nov: 10,
  december: 11,
  dec: 11,
};
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTH_RE = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const NUM_RE = '(\\d{1,3}|a couple of|a couple|a few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)';

/** A UTC day; setUTCFullYear, because Date.UTC reads years 0–99 as 1900–1999. */
const day = (y: number, m: number, d: number): Date => {
  const date = new Date(0);
  date.setUTCFullYear(y, m, d);
  return date;
};
/** Text can name any year ("0000-01-01"); only times PostgreSQL can store are returned. */
const out = (date: Date, time_precision: TimePrecision): ResolvedTime | null => {
  const event_time = storableTime(Number.isNaN(date.getTime()) ? null : date.toISOString());
  return event_time ? { event_time, time_precision } : null;
};

/** A time stated in `text`, or null. Absolute dates win over relative phrases. */
export function resolveTime(text: string, occurredAt: string): ResolvedTime | null {
  return absoluteTime(text, occurredAt) ?? relativeTime(text, occurredAt);
}

function absoluteTime(text: string, occurredAt: string): ResolvedTime | null {
  // Four digits that are a year's, not the tail of a longer number or of a signed year (+300000-…, -0500-…).
  const iso = /(?<![\d+\-−])\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:?\d{2})?)?\b/.exec(text);
  if (iso) {
    const [, y, mo, d, h] = iso;
    if (h !== undefined) return out(new Date(iso[0].replace(' ', 'T') + (iso[7] ? '' : 'Z')), 'exact');
    return out(day(Number(y), Number(mo) - 1, Number(d)), 'day');
  }
  const zh = /(?<!\d)(\d{4})年(?:(\d{1,2})月(?:(\d{1,2})[日号])?)?/.exec(text);
  if (zh) {
    const [, y, mo, d] = zh;
    if (d) return out(day(Number(y), Number(mo) - 1, Number(d)), 'day');
    if (mo) return out(day(Number(y), Number(mo) - 1, 1), 'month');
    return out(day(Number(y), 0, 1), 'year');
  }
  const base = new Date(occurredAt);
  const baseYear = Number.isNaN(base.getTime()) ? undefined : base.getUTCFullYear();
  const dmy = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_RE}\\.?,?(?:\\s+(\\d{4}))?\\b`, 'i').exec(text);
  const mdy = new RegExp(`\\b${MONTH_RE}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4})(?!\\d))?`, 'i').exec(text);
  const dayMatch = dmy ? { d: dmy[1], m: dmy[2], y: dmy[3] } : mdy && !/^\d{4}$/.test(mdy[2] ?? '') ? { d: mdy[2], m: mdy[1], y: mdy[3] } : null;
  if (dayMatch) {
    const month = MONTHS[(dayMatch.m ?? '').toLowerCase().replace(/\.$/, '')];
    const year = dayMatch.y ? Number(dayMatch.y) : baseYear;
    if (month !== undefined && year !== undefined && Number(dayMatch.d) <= 31) {
      // "May" alone is too often the modal verb; a bare "may 5" still needs a day number, checked above.
      return out(day(year, month, Number(dayMatch.d)), 'day');
    }
  }
  const my = new RegExp(`\\b${MONTH_RE}\\.?,?\\s+(\\d{4})\\b`, 'i').exec(text);
  if (my) {
    const month = MONTHS[(my[1] ?? '').toLowerCase()];
    if (month !== undefined) return out(day(Number(my[2]), month, 1), 'month');
  }
  const inMonth = new RegExp(`\\b(?:in|since|during|until|by|early|late|mid)\\s+${MONTH_RE}\\b`, 'i').exec(text);
  if (inMonth && baseYear !== undefined) {
    const month = MONTHS[(inMonth[1] ?? '').toLowerCase()];
    if (month !== undefined) return out(day(baseYear, month, 1), 'month');
  }
  const year =
    /\b(?:in|since|during|until|by|of|from|year|early|late|mid|before|after)\s+((?:19|20)\d{2})\b(?![.:/-]\d)/i.exec(text) ??
    /^((?:19|20)\d{2})\b(?![.:/-]\d)/.exec(text);
  if (year) return out(day(Number(year[1]), 0, 1), 'year');
  return null;
}

function relativeTime(text: string, occurredAt: string): ResolvedTime | null {
  const base = new Date(occurredAt);
  if (Number.isNaN(base.getTime())) return null;
  const y = base.getUTCFullYear();
  const m = base.getUTCMonth();
  const d = base.getUTCDate();
  const t = text.toLowerCase();

  const fixed: Array<[RegExp, () => ResolvedTime | null]> = [
    [/\bday before yesterday\b|前天/, () => out(day(y, m, d - 2), 'day')],
    [/\bday after tomorrow\b|后天/, () => out(day(y, m, d + 2), 'day')],
    [/\byesterday\b|\blast night\b|昨天|昨晚/, () => out(day(y, m, d - 1), 'day')],
    [/\btomorrow\b|明天/, () => out(day(y, m, d + 1), 'day')],
    [/\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening)\b|\bearlier today\b|今天|今晚/, () => out(day(y, m, d), 'day')],
    [/\blast weekend\b/, () => out(day(y, m, d - ((base.getUTCDay() + 1) % 7 || 7)), 'relative')],
    [/\b(?:this|next) weekend\b|这个周末|下个?周末/, () => out(day(y, m, d + ((6 - base.getUTCDay() + 7) % 7 || 7)), 'relative')],
    [/\blast week\b|\ba week ago\b|上周|上个?星期/, () => out(day(y, m, d - 7), 'relative')],
    [/\bnext week\b|下周|下个?星期/, () => out(day(y, m, d + 7), 'relative')],
    [/\bthis week\b|这周|本周/, () => out(day(y, m, d), 'relative')],
    [/\blast month\b|\ba month ago\b|上个月/, () => out(day(y, m - 1, 1), 'month')],
    [/\bnext month\b|下个月/, () => out(day(y, m + 1, 1), 'month')],
    [/\bthis month\b|这个月|本月/, () => out(day(y, m, 1), 'month')],
    [/\blast year\b|\ba year ago\b|去年/, () => out(day(y - 1, 0, 1), 'year')],
    [/\bnext year\b|明年/, () => out(day(y + 1, 0, 1), 'year')],
    [/\bthis year\b|今年/, () => out(day(y, 0, 1), 'year')],
    [/前年/, () => out(day(y - 2, 0, 1), 'year')],
  ];
  const ago = new RegExp(`\\b${NUM_RE}\\s+(days?|weeks?|months?|years?)\\s+ago\\b`).exec(t);
  const weekday = /\b(last|next|this|on)\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/.exec(t);

  // The phrase that appears first in the sentence wins, so "yesterday ... next month" reads as yesterday.
  const candidates: Array<{ at: number; resolve: () => ResolvedTime | null }> = [];
  for (const [re, resolve] of fixed) {
    const hit = re.exec(t);
    if (hit) candidates.push({ at: hit.index, resolve });
  }
  if (ago) candidates.push({ at: ago.index, resolve: () => resolveAgo(ago[1] ?? '', ago[2] ?? '', y, m, d) });
  if (weekday) {
    candidates.push({
      at: weekday.index,
      resolve: () => {
        const target = WEEKDAYS.indexOf(weekday[2] ?? '');
        const today = base.getUTCDay();
        const back = (today - target + 7) % 7 || 7;
        const forward = (target - today + 7) % 7 || 7;
        const past = weekday[1] === 'last' || (weekday[1] === 'on' && /\b(?:was|were|did|went|had|\w+ed)\b/.test(t));
        return out(day(y, m, past ? d - back : d + forward), 'day');
      },
    });
  }
  candidates.sort((a, b) => a.at - b.at);
  for (const c of candidates) {
    const r = c.resolve();
    if (r) return r;
  }
  return null;
}

function resolveAgo(amount: string, unit: string, y: number, m: number, d: number): ResolvedTime | null {
  const n = /^\d+$/.test(amount) ? Number(amount) : NUMBER_WORDS[amount];
  if (n === undefined) return null;
  const vague = !/^\d+$/.test(amount) && n === 3 && amount !== 'three';
  if (unit.startsWith('day')) return out(day(y, m, d - n), vague ? 'relative' : 'day');
  if (unit.startsWith('week')) return out(day(y, m, d - 7 * n), 'relative');
  if (unit.startsWith('month')) return out(day(y, m - n, 1), vague ? 'relative' : 'month');
  return out(day(y - n, 0, 1), vague ? 'relative' : 'year');
}
