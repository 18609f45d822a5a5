/**
 * The values a statement names, as spans of its text (src/domain/slots.ts reads the rest): shapes
 * (times, dates, amounts, durations, versions, percentages, numbers), known values of the lexicon's
 * categories (slot-lexicon.ts) and capitalised names. Each span keeps its normalised forms, so
 * "9:30", "09:30" and "half past nine" compare equal. Pure and deterministic.
 */
import { NUMBER_WORDS } from './vocabulary.js';
import { CHANGE_WORDS, GENERIC_WORDS, VALUE_CATEGORIES, VALUE_NAMES, VALUE_SYNONYMS } from './slot-lexicon.js';
import { isStopword } from './stopwords.js';

export interface Span {
  start: number;
  end: number;
  kind: string;
  norm: string[];
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`;
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
/** Lexicon values that are also everyday words: they count only when capitalised. */
export const AMBIGUOUS_VALUES = new Set(
  `go c r mac fly edge arc monday notion signal linear render railway elastic echo gin rocket realm phoenix arch mint fish teams sh tap ava drone
  argo neon aurora fauna spring express remix solid astro nano atom cursor helix zed shortcut tea coffee flat white semaphore lambda pulsar
  keto paleo halal kosher crystal dart lua julia swift ruby rust java haskell elixir opera safari chrome brave pixel galaxy oracle`
    .split(/\s+/)
    .filter(Boolean),
);
export const EVERYDAY_DRINKS = new Set(['tea', 'coffee', 'flat white']);

/** Spans of values in `text` by shape: times, dates, money, durations, versions, percentages, numbers. */
export function shapeSpans(text: string): Span[] {
  const out: Span[] = [];
  const add = (re: RegExp, kind: string, norm: (m: RegExpExecArray) => string[]) => {
    for (const m of text.matchAll(new RegExp(re.source, `${re.flags.replace('g', '')}g`))) {
      const start = m.index ?? 0;
      // "$2,050 starting": an optional unit's space is not part of the value when no unit follows.
      const end = start + m[0].trimEnd().length;
      if (out.some((s) => start < s.end && end > s.start)) continue;
      out.push({ start, end, kind, norm: norm(m as RegExpExecArray) });
    }
  };
  add(/\b(\d{4})-(\d{2})-(\d{2})\b/, 'date', (m) => [`${m[2]}-${m[3]}`, m[1] as string]);
  add(new RegExp(String.raw`\b${MONTH}\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?`, 'i'), 'date', (m) => dateNorm(m[1], m[2], m[3]));
  add(new RegExp(String.raw`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?${MONTH}\b(?:,?\s+(\d{4}))?`, 'i'), 'date', (m) => dateNorm(m[2], m[1], m[3]));
  // "9.30" is a time after "at", "by", "from", "until"… ("standup at 9.30"); elsewhere a dotted
  // number is a version ("Python 3.12", "Ubuntu 22.04"). A colon is a time anywhere.
  add(
    /\b(?:[01]?\d|2[0-3])(?::[0-5]\d)?\s?(?:a\.?m\.?|p\.?m\.?)(?![a-z])|\b(?:[01]?\d|2[0-3]):[0-5]\d\b|(?<=\b(?:at|by|from|until|till|before|after|around|about)\s)(?:[01]?\d|2[0-3])\.[0-5]\d(?!\.\d)\b|\bnoon\b|\bmidnight\b/i,
    'time',
    (m) => [timeNorm(m[0])],
  );
  add(
    /[$€£¥]\s?\d[\d,]*(?:\.\d+)?\s?(?:k|m|mm|bn|million|thousand|billion)?\b|\b\d[\d,]*(?:\.\d+)?\s?(?:k|m|million|thousand|billion)?\s?(?:dollars|euros|pounds|usd|eur|gbp|bucks|chf|yen)\b/i,
    'money',
    (m) => [moneyNorm(m[0])],
  );
  add(
    /\b(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|a|an|half an?)[\s-]?(minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|sprints?)\b/i,
    'duration',
    (m) => [`${numberOf(m[1] as string)} ${unitOf(m[2] as string)}`],
  );
  add(/\b(?:v|version\s+)?\d+(?:\.\d+){1,3}\b|\bv\d+\b|\bversion\s+\d+\b/i, 'version', (m) => [m[0].toLowerCase().replace(/^v(?:ersion\s+)?/, '')]);
  add(/\b\d+(?:\.\d+)?\s?(?:k|km|kms|mi|miles?|kilomet(?:er|re)s?|kg|kgs|lbs?|pounds|gb|tb|mb|cores?|gigs?)\b/i, 'quantity', (m) => [
    m[0].toLowerCase().replace(/\s+/g, ''),
  ]);
  // Identifiers with digits: "us-east-1", "m5.large", "gpt-4o".
  add(/\b(?=[\w.-]*\d)(?=[\w.-]*[a-z])[a-z][a-z0-9]*(?:[-.][a-z0-9]+)+\b/i, 'id', (m) => [m[0].toLowerCase()]);
  add(/\b\d+(?:\.\d+)?\s?(?:%|percent\b)/i, 'percent', (m) => [`${m[0].replace(/\s|percent/gi, '').replace('%', '')}%`]);
  add(/\b(mon|tues|wednes|thurs|fri|satur|sun)days?\b/i, 'date', (m) => [
    WEEKDAYS[['mon', 'tues', 'wednes', 'thurs', 'fri', 'satur', 'sun'].indexOf((m[1] as string).toLowerCase())] as string,
  ]);
  add(
    /\b(?:end of (?:the )?(?:week|month|quarter|year|sprint)|q[1-4](?:\s+\d{4})?|(?:early|mid|late)[\s-](?:january|february|march|april|may|june|july|august|september|october|november|december))\b/i,
    'date',
    (m) => [m[0].toLowerCase().replace(/\s+/g, ' ')],
  );
  add(/\b(?:January|February|March|April|June|July|August|September|October|November|December)\b(?:\s+(\d{4}))?/, 'date', (m) =>
    dateNorm(m[0].split(/\s+/)[0], undefined, m[1]),
  );
  add(/\b\d+(?:[.,]\d+)*\b/, 'number', (m) => [m[0].replace(/,/g, '')]);
  add(/\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty)\b(?=\s+\p{L})(?!\s+of\b)/iu, 'number', (m) => [
    String(numberOf(m[1] as string)),
  ]);
  return out;
}

function dateNorm(month: string | undefined, day: string | undefined, year: string | undefined): string[] {
  const mi = MONTHS.indexOf((month ?? '').slice(0, 3).toLowerCase());
  const mm = String(mi + 1).padStart(2, '0');
  const out = [day ? `${mm}-${day.padStart(2, '0')}` : mm];
  if (year) out.push(year);
  return out;
}

function timeNorm(raw: string): string {
  const s = raw.toLowerCase().replace(/\./g, ':').replace(/\s/g, '');
  if (s === 'noon') return '12:00';
  if (s === 'midnight') return '00:00';
  const m = /^(\d{1,2})(?::(\d{2}))?(a|p)?/.exec(s.replace(/:(?=[ap])/, ''));
  let h = Number(m?.[1] ?? 0);
  if (m?.[3] === 'p' && h < 12) h += 12;
  if (m?.[3] === 'a' && h === 12) h = 0;
  return `${String(h).padStart(2, '0')}:${m?.[2] ?? '00'}`;
}

function moneyNorm(raw: string): string {
  const s = raw.toLowerCase().replace(/,/g, '');
  const n = Number(/\d+(?:\.\d+)?/.exec(s)?.[0] ?? 0);
  const mult = /\b(?:k|thousand)\b|\dk\b/.test(s) ? 1e3 : /\b(?:m|mm|million)\b|\dm\b/.test(s) ? 1e6 : /\b(?:bn|billion)\b|\dbn\b/.test(s) ? 1e9 : 1;
  return String(Math.round(n * mult));
}

function numberOf(word: string): number {
  const w = word.toLowerCase().replace(/\s+an?$/, '');
  return NUMBER_WORDS[w] ?? Number(w);
}

function unitOf(unit: string): string {
  const u = unit.toLowerCase();
  if (u.startsWith('min')) return 'minute';
  if (u.startsWith('h')) return 'hour';
  return u.replace(/s$/, '');
}

/** Spans of known values (slot-lexicon.ts), longest name first; everyday words only when capitalised. */
export function lexiconSpans(text: string, taken: Span[]): Span[] {
  const lower = text.toLowerCase();
  const out: Span[] = [];
  for (const name of VALUE_NAMES) {
    let from = 0;
    for (;;) {
      const at = lower.indexOf(name, from);
      if (at < 0) break;
      from = at + name.length;
      const before = lower[at - 1];
      const after = lower[at + name.length];
      const plural = after === 's' && !/[\p{L}\p{N}]/u.test(lower[at + name.length + 1] ?? '') && /[a-z]$/.test(name);
      if ((before !== undefined && /[\p{L}\p{N}_@#+./-]/u.test(before)) || (after !== undefined && /[\p{L}\p{N}_+#@]/u.test(after) && !plural)) continue;
      if (after === '.' && /[\p{L}]/u.test(lower[at + name.length + 1] ?? '')) continue;
      if (AMBIGUOUS_VALUES.has(name) && !/^\p{Lu}/u.test(text.slice(at)) && !EVERYDAY_DRINKS.has(name)) continue;
      const span = {
        start: at,
        end: at + name.length + (plural ? 1 : 0),
        kind: VALUE_CATEGORIES.get(name) as string,
        norm: [VALUE_SYNONYMS.get(name) ?? name],
      };
      if ([...taken, ...out].some((s) => span.start < s.end && span.end > s.start)) continue;
      out.push(span);
    }
  }
  return out;
}

const NOT_NAME = new Set(
  `i i'm i've i'll i'd the a an we our my it its this that these those he she they his her their you your monday tuesday wednesday thursday friday
  saturday sunday january february march april may june july august september october november december today tomorrow yesterday also
  but and or so then now still ok okay yes no hey hi hello thanks great sure noted got actually well anyway honestly basically btw
  update news fyi quick heads context note reminder currently recently finally also just really perfect cool`
    .split(/\s+/)
    .filter(Boolean),
);

/** Capitalised word runs that are not sentence-initial and not known words: names ("Acme Corp", "Priya Raman", "Fly.io"). */
export function nameSpans(text: string, taken: Span[]): Span[] {
  const out: Span[] = [];
  const re = /(?<![\p{L}\p{N}'’])(\p{Lu}[\p{L}\p{N}.+#&'’-]*(?:\s+(?:of\s+|de\s+|van\s+|von\s+)?\p{Lu}[\p{L}\p{N}.+#&'’-]*)*)/gu;
  for (const m of text.matchAll(re)) {
    const start = m.index ?? 0;
    let word = m[0].replace(/['’]s$/, '').replace(/[.'’-]+$/, '');
    const sentenceStart = /(?:^|[.!?:;]\s+|["“(]\s*)$/.test(text.slice(0, start));
    const words = word.split(/\s+/);
    while (words.length > 0 && NOT_NAME.has((words[0] as string).toLowerCase())) words.shift();
    word = words.join(' ');
    // An acronym ("API", "SDK", "SKUs") names a kind of thing, not a value.
    if (!word || isStopword(word.toLowerCase()) || /^[A-Z]{2,5}s?$/.test(word)) continue;
    const offset = m[0].indexOf(word);
    // A capitalised first word may be any word ("Standup is at 9:30"): it names the subject, never a value.
    const initial = sentenceStart && words.length === 1 && word === m[0] && !/[A-Z].*[A-Z]|\d|\./.test(word.slice(1));
    if (initial && (CHANGE_WORDS.has(word.toLowerCase()) || GENERIC_WORDS.has(word.toLowerCase()) || NOT_NAME.has(word.toLowerCase()))) continue;
    const span = { start: start + offset, end: start + offset + word.length, kind: initial ? 'initial' : 'name', norm: [word.toLowerCase()] };
    if (taken.some((s) => span.start < s.end && span.end > s.start)) continue;
    out.push(span);
  }
  return out;
}
