/**
 * Cheap signals of what a recall query asks for, read before any SQL (microseconds): whether it
 * asks about time, what shape of value it asks for, whether it asks what the assistant said, and
 * which words it contains (to match participants' names). Pure, no I/O.
 */
import { shapeSpans } from './slot-spans.js';

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

/**
 * "before" / "until" that opens a clause about now or later ("before I can merge", "until we
 * ship"): a subject, then a verb that is not in the past tense. "before we moved to SQLite" and
 * "before SQLite" still ask about the past.
 */
const CLAUSE_NOT_PAST_RE =
  /\b(?:before|until)\s+(?:i|we|you|they|he|she|it|my|our|your|the\s+\w+)\s+(?!(?:was|were|had|did|used|went|came|left|got|made|took|began|started|bought)\b|\w+ed\b)\w+/gi;

export function asksAboutPast(query: string): boolean {
  return PAST_VALUE_RE.test(query.replace(CLAUSE_NOT_PAST_RE, ' '));
}

/**
 * "these days", "nowadays", "at the moment": a question about the present says so in words that
 * are not what it is about ("when's my team's check-in these days?" matched "a snow day tomorrow").
 */
const PRESENT_PHRASE_RE = /\b(?:these days|nowadays|at the moment|right now|as of now|as of today|as we speak|at present|for now|for the time being)\b/gi;

/** The query without its present-time phrases: the words its keyword search looks for. */
export function withoutPresentPhrases(query: string): string {
  return query.replace(PRESENT_PHRASE_RE, ' ');
}

export function asksAboutTime(query: string): boolean {
  return TEMPORAL_QUERY_RE.test(query);
}

/** A sentence that asks: it ends with "?" and opens with a question word or an auxiliary verb. */
const ASKING_RE =
  /^(?:what|what's|which|who|who's|whom|whose|when|where|where's|why|how|how's|do|does|did|is|are|was|were|am|can|could|would|will|should|shall|have|has|had|any|anything|anyone|want|wanna|need|shall)\b[^?]*\?$/i;

/**
 * A question chat writes without its mark: a question word before an auxiliary and its subject
 * ("how do I roll back a bad deploy", "what should go in the goodie bags"), or an auxiliary
 * before its subject ("is a HYSA worth it over my savings", "can you look up prices").
 */
const UNMARKED_QUESTION_RE =
  /^(?:(?:how|what|which|where|when|why|who)\s+(?:do|does|did|can|could|should|would|will|is|are|am|was|were)\s+(?:i|we|you|u|they|he|she|it|my|our|your|the|a|an|this|that|these|those|there)\b|(?:what|which|who)\s+(?:should|would|could|can)\s+\w+|(?:is|are|do|does|did|can|could|should|would|will)\s+(?:a|an|the|it|this|that|there|i|you|u|we|they|my|our|your)\s+\w+)/i;

export function asksUnmarked(sentence: string): boolean {
  return UNMARKED_QUESTION_RE.test(sentence.trim());
}

/**
 * A clause that asks for something rather than stating it: "can you book the boys a dental
 * cleaning", "remind me to ask my manager", "please draft a note", "help me set up my calendar".
 */
const REQUEST_RE =
  /^(?:(?:and|also|so|ok|okay|oh|hey|hi|then|now|pls|please)\s+)*(?:(?:can|could|would|will)\s+(?:you|u)\b|please\b|pls\b|remind\s+me\b|help\s+me\b|give\s+me\b|send\s+me\b|show\s+me\b|tell\s+me\b|let\s+me\s+know\b|let'?s\b)/i;

/** Words of a clause: three or more say something; fewer ("Sure.", "Got it", "hi") set the tone only. */
const saysSomething = (x: string) => x.split(/\s+/).filter(Boolean).length >= 3;

/**
 * A turn that only asks: each of its sentences of three words or more is a question, or each of
 * their clauses of three words or more asks for something ("Sure. Which region are they in?",
 * "can you book the boys a dental cleaning", "hi, can you help me plan my week"), and there is
 * one. Such a turn states nothing; the answer is in the turn after it (src/domain/scoring.ts
 * answerLifts). A statement with a question or a request beside it ("I drive a 2012 Corolla, is
 * it worth fixing the AC?", "my phone's a Pixel 7, can you find me a case?") is no such turn.
 */
export function asksOnly(text: string): boolean {
  const sentences = text
    .trim()
    .split(/(?<=[.!?])\s+/)
    .map((x) => x.trim())
    .filter(saysSomething);
  return sentences.length > 0 && sentences.every((x) => ASKING_RE.test(x) || asksUnmarked(x) || onlyRequests(x));
}

function onlyRequests(sentence: string): boolean {
  const clauses = sentence
    .replace(/[.!?]+$/, '')
    .split(/\s*[,;:—–]\s*|\s+-\s+/)
    .map((x) => x.trim())
    .filter(saysSomething);
  return clauses.length > 0 && clauses.every((x) => REQUEST_RE.test(x));
}

/**
 * The query asks what the assistant said or did ("what did you recommend for…", "which plan did
 * you make me?", "your advice on…"): then the assistant's turns are first-hand evidence.
 */
const ASKS_ASSISTANT_RE =
  /\b(?:you|u)\s+(?:\w+\s+)?(?:said|say|told|tell|recommend|recommended|suggest|suggested|propose|proposed|advise|advised|mention|mentioned|wrote|write|gave|give|made|make|set|send|sent|explain|explained|answer|answered|think|thought|plan|planned|draft|drafted|book|booked|promise|promised)\b|\byour\s+(?:advice|suggestion|recommendation|answer|plan|reply|idea|tip|take|opinion|draft)s?\b/i;

export function asksAssistant(query: string): boolean {
  return ASKS_ASSISTANT_RE.test(query);
}

/**
 * What shape of value a question asks for, by its question phrase: "what time" a time, "which
 * day" / "by what day" a date (a weekday or "the 5th" included), "how much" / "what do I pay" an
 * amount, "how long" a duration, "which version" a version, "how many" a count. Kinds as
 * src/domain/slot-spans.ts shapeSpans names them, plus `day` for an ordinal day of the month.
 */
const ANSWER_SHAPES: ReadonlyArray<[RegExp, readonly string[]]> = [
  [/\b(?:what|which|at what)\s+time\b|\btime of (?:the )?day\b|\bwhat hour\b|\bhow (?:early|late)\b/i, ['time']],
  [/\b(?:what|which|by what)\s+(?:day|days|date|weekday|weekdays|mornings?|afternoons?|evenings?|nights?)\b/i, ['date', 'day']],
  [/\bhow much\b(?!\s+(?:time|longer|more time)\b)/i, ['money', 'quantity']],
  [
    /\bwhat\s+(?:do|does|did|am|are|is|will|should|can)\s+(?:i|we|it|they|you|he|she)\s+(?:\w+\s+)?(?:pay|paying|spend|spending|charge|charging|earn|earning|owe)\b|\b(?:cost|costs|price|prices|fee|fees|salary|budget|pay rate)\b/i,
    ['money'],
  ],
  [/\bhow long\b/i, ['duration']],
  [/\bversions?\b/i, ['version', 'number']],
  [/\bhow many\b|\bhow (?:big|large|far|heavy|fast|old)\b/i, ['number', 'quantity', 'money', 'duration']],
  [/\bpercent(?:age)?\b|\bwhat share\b/i, ['percent']],
];

export function expectedShapes(query: string): Set<string> {
  const out = new Set<string>();
  for (const [re, kinds] of ANSWER_SHAPES) if (re.test(query)) for (const k of kinds) out.add(k);
  return out;
}

/** The text states a value of one of the shapes a question asks for (expectedShapes). */
export function holdsShape(text: string, kinds: ReadonlySet<string>): boolean {
  if (kinds.has('day') && /\b(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b/i.test(text)) return true;
  return shapeSpans(text).some((s) => kinds.has(s.kind));
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
