/**
 * Cheap signals of what a recall query asks for, read before any SQL (microseconds): whether it
 * asks about time, and which words it contains (to match participants' names). Pure, no I/O.
 */

/** "when …", "how long …", "since when", "what year/month/day/date/time", "how many days/weeks/…". */
const TEMPORAL_QUERY_RE =
  /\b(?:when|since when|how long|how often|how many (?:years|months|weeks|days|hours|times)|what (?:year|month|day|date|time|week)|which (?:year|month|day|date|week)|what time|date of)\b|几时|什么时候|何时|多久|哪(?:一)?(?:年|月|天)/iu;

const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec';
const WEEKDAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|weekday';
/**
 * A time expression in an item's text: dates, months, weekdays, years, relative times ("last
 * week", "two days ago", "next summer", "yesterday"), durations ("for 3 years").
 */
const TIME_EXPRESSION_RE = new RegExp(
  [
    `\\b(?:${MONTHS}|${WEEKDAYS})\\b`,
    '\\b(?:1[89]|20)\\d\\d\\b',
    '\\b\\d{1,4}[-/.]\\d{1,2}(?:[-/.]\\d{1,4})?\\b',
    '\\b(?:yesterday|today|tomorrow|tonight|recently|lately|soon|ago|since|until|anniversary|birthday)\\b',
    '\\b(?:last|next|this|past|coming|previous|every|each|few|couple of)\\s+(?:\\w+\\s+)?(?:day|night|week|weekend|month|year|summer|winter|spring|fall|autumn|morning|evening|time)s?\\b',
    '\\b(?:\\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|several|many)\\s+(?:day|week|month|year|hour|decade)s?\\b',
    '[0-9一二三四五六七八九十]+\\s*(?:年|月|日|号|天|周|星期)|昨天|今天|明天|上周|下周|去年|明年',
  ].join('|'),
  'iu',
);

/** "before", "used to", "previously", "moved from": the question asks for an earlier value, not the current one. */
const PAST_VALUE_RE =
  /\b(?:before|used to|previously|originally|formerly|at first|initially|in the past|back then|prior to|former|previous|earlier|(?:move|moved|switch|switched|change|changed|migrate|migrated|come|came) (?:away )?from|until)\b/i;

export function asksAboutPast(query: string): boolean {
  return PAST_VALUE_RE.test(query);
}

export function asksAboutTime(query: string): boolean {
  return TEMPORAL_QUERY_RE.test(query);
}

export function hasTimeExpression(text: string): boolean {
  return TIME_EXPRESSION_RE.test(text);
}

/** The query's words (lower case, stopwords kept: names like "May" or "Will" are stopwords too). */
export function queryWords(query: string): Set<string> {
  return new Set(words(query));
}

function words(query: string): string[] {
  return query
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((w) => w !== '');
}

/** True when the query names the participant: a word of `name` ("Caroline", "Jon Smith") of 2+ letters is in it. */
export function namesParticipant(query: Set<string>, name: string | null | undefined): boolean {
  if (!name) return false;
  return words(name).some((p) => p.length >= 2 && query.has(p));
}
