/**
 * The splitting half of chunking: paragraphs, sentences and token windows, all as [start, end)
 * UTF-16 offsets into the original text. Every span is trimmed of surrounding whitespace and never
 * empty; only whitespace ever falls between consecutive spans, so together they cover every
 * non-whitespace character.
 */
import { countTokens, fitsTokens } from './tokens.js';

export interface Span {
  start: number;
  end: number;
}

/** The whitespace JavaScript's `\s` matches, tested by code for speed. */
export function isSpaceCode(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isSpaceAt(text: string, i: number): boolean {
  return isSpaceCode(text.charCodeAt(i));
}

/** True when `i` falls between the two halves of a surrogate pair. */
function insidePair(text: string, i: number): boolean {
  const hi = text.charCodeAt(i - 1);
  const lo = text.charCodeAt(i);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff;
}

/** [start, end) without leading/trailing whitespace, or null when nothing else is left. */
export function trimSpan(text: string, start: number, end: number): Span | null {
  while (start < end && isSpaceAt(text, start)) start++;
  while (end > start && isSpaceAt(text, end - 1)) end--;
  return start < end ? { start, end } : null;
}

/** Paragraphs are separated by a blank (or whitespace-only) line. */
export function paragraphs(text: string): Span[] {
  const out: Span[] = [];
  const sep = /\n[^\S\n]*\n\s*/g;
  let from = 0;
  for (const m of text.matchAll(sep)) {
    const span = trimSpan(text, from, m.index);
    if (span) out.push(span);
    from = m.index + m[0].length;
  }
  const last = trimSpan(text, from, text.length);
  if (last) out.push(last);
  return out;
}

const LATIN_END = new Set(['.', '!', '?', '…']);
const CJK_END = new Set(['。', '！', '？', '；', '｡']);
/** Closing quotes and brackets that belong to the sentence they end. */
const CLOSERS = new Set(['"', "'", ')', ']', '}', '”', '’', '»', '」', '』', '）', '》', '】', '〕']);

/**
 * Sentences of `para`: after `.!?…` followed by whitespace, after `。！？；` (Chinese/Japanese end
 * marks need no space), and at every newline. Closing quotes stay with their sentence.
 */
export function sentences(text: string, para: Span): Span[] {
  const out: Span[] = [];
  let from = para.start;
  const emit = (end: number): void => {
    const span = trimSpan(text, from, end);
    if (span) out.push(span);
    from = end;
  };
  for (let i = para.start; i < para.end; i++) {
    const ch = text[i] as string;
    if (ch === '\n') {
      emit(i);
      continue;
    }
    const latin = LATIN_END.has(ch);
    if (!latin && !CJK_END.has(ch)) continue;
    let j = i + 1;
    while (j < para.end && CLOSERS.has(text[j] as string)) j++;
    if (latin && j < para.end && !isSpaceAt(text, j)) continue; // v2.3, example.com, "?!"
    emit(j);
    i = j - 1;
  }
  emit(para.end);
  return out;
}

/** Largest end in (start, limit] whose slice fits `max` tokens, never inside a surrogate pair. */
function fittingEnd(text: string, start: number, limit: number, max: number): number {
  const count = (end: number): number => countTokens(text.slice(start, end));
  const clampToPair = (i: number): number => (insidePair(text, i) ? i - 1 : i);
  let lo = start + 1; // one code point always fits: maxTokens is at least MIN_MAX_TOKENS
  if (insidePair(text, lo)) lo++;
  let hi = limit; // the largest end that may still fit
  // Secant steps: scale the measured length by max/tokens, so a few counts narrow the range.
  let guess = start + max * 4;
  for (let step = 0; step < 4 && hi - lo > 8; step++) {
    const g = clampToPair(Math.min(Math.max(guess, lo + 1), hi));
    if (g <= lo) break;
    const tokens = count(g);
    if (tokens <= max) lo = g;
    else hi = g - 1;
    guess = start + Math.round(((g - start) * max) / Math.max(tokens, 1));
  }
  while (lo < hi) {
    const mid = clampToPair(Math.ceil((lo + hi) / 2));
    if (mid <= lo) break;
    if (count(mid) <= max) lo = mid;
    else hi = mid - 1;
  }
  return clampToPair(lo);
}

/** Soft break characters a window may end after when no whitespace is near. */
const SOFT_BREAK = new Set([',', ';', ':', '，', '、', '：', '；']);

/** Move `end` back to the nearest word or clause boundary after `floor`, if there is one. */
function softEnd(text: string, floor: number, end: number): number {
  if (isSpaceAt(text, end) || isSpaceAt(text, end - 1)) return end;
  for (let i = end - 1; i > floor; i--) {
    if (isSpaceAt(text, i)) return i;
    if (SOFT_BREAK.has(text[i - 1] as string)) return i;
  }
  return end;
}

/** Smallest start in (floor, end) whose slice to `end` fits `budget` tokens, moved to a word start. */
function overlapStart(text: string, floor: number, end: number, budget: number): number {
  let lo = Math.max(floor + 1, end - budget * 16); // no real text packs 16 chars into each token
  let hi = end;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (countTokens(text.slice(mid, end)) <= budget) hi = mid;
    else lo = mid + 1;
  }
  let start = lo;
  if (start < end && !isSpaceAt(text, start - 1)) {
    let k = start;
    while (k < end && !isSpaceAt(text, k)) k++;
    if (k < end) start = k; // a later word start exists inside the overlap
  }
  if (insidePair(text, start)) start++;
  return start;
}

/**
 * Cut an over-long span into windows of at most `max` tokens, ending at whitespace or a comma
 * when one lies in the window's second half. Windows overlap by about `overlap` tokens. Each
 * window ends strictly after the previous one (when the overlap would prevent that, the window
 * starts where the previous one ended), so the loop always progresses.
 */
export function tokenWindows(text: string, span: Span, max: number, overlap: number): Span[] {
  const out: Span[] = [];
  let start = span.start;
  let lastEnd = span.start; // trimmed end of the last window
  for (;;) {
    if (fitsTokens(text.slice(start, span.end), max)) {
      const last = trimSpan(text, start, span.end);
      if (last && last.end > lastEnd) out.push(last);
      return out;
    }
    const hard = fittingEnd(text, start, span.end, max);
    const end = softEnd(text, Math.max(start + Math.floor((hard - start) / 2), lastEnd), hard);
    const window = trimSpan(text, start, end);
    if (window === null || window.end <= lastEnd) {
      // Only overlap fitted: restart right after the previous window, without overlap.
      start = lastEnd;
      while (start < span.end && isSpaceAt(text, start)) start++;
      continue;
    }
    out.push(window);
    lastEnd = window.end;
    const next = overlap > 0 ? overlapStart(text, window.start, window.end, overlap) : window.end;
    start = Math.max(next, window.start + 1);
    if (insidePair(text, start)) start++;
    while (start < span.end && isSpaceAt(text, start)) start++;
  }
}
